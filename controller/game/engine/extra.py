"""The second combat of a turn (docs/rules.md §9, §10): granted by the event card or played
from the hand once the first combat is over, fought by the warrior that fought the first.

Where it is fought depends on how the first combat ended:

- the foe survived on its space: the attacker must step beside it, and the step is where a
  second combat goes, "After a combat, you can not move to a green space or another
  Warrior token as you can only fight a single combat per turn (2 combats per turn only if
  you have a card that allows this)" (A l.261, also l.39; B l.347): onto a green space or
  another foe's token beside the first foe (:mod:`.end`, rules revision 3 on; the journals
  of revisions 1 and 2 offered it after the step, against a foe next to the new space);
- otherwise (the foe eliminated, the green warrior back in the deck, a foe that fled) the
  attacker stays where it fought: the books say nothing of a step then (A l.259, B l.343),
  and the second combat is against a foe next to it (the offer below).
"""

from __future__ import annotations

from controller.core.errors import IllegalActionError
from controller.game.engine.combat import begin_combat
from controller.game.engine.common import (
    check_card,
    count_play,
    on_space,
    playable,
    use_card,
)
from controller.game.engine.turn import end_turn
from controller.game.events import ExtraCombat, Pass, PlayCard
from controller.game.state import GameState, Length, Phase
from controller.gamedata.cards import Card, EffectKind, Timing


def extra_targets(state: GameState) -> list[tuple[str, str]]:
    """(attacker, target) pairs for a second combat offered after the first: the warrior
    that fought the first one, still on the board, next to a foe. Only the warrior whose
    turn it is attacks (A l.247); the player's other warriors never moved this turn.

    From revision 3 this offer follows only a first combat the attacker ended where it
    fought (its foe eliminated, A l.259, B l.343, which say nothing of a step; the green
    warrior back in its deck; a foe that fled): after one the foe survived, the second
    combat is the step aside's (A l.261, :func:`second_by_step`)."""
    out = []
    any_warrior = state.config.rules_revision < 2  # a journal of the rules before (RULES_REVISION)
    for p in state.on_board(state.seat):
        if p.name != state.fighter and not any_warrior:
            continue
        for sp in state.data.near[on_space(p)]:
            foe = state.occ.get(sp)
            if foe is not None and state.pieces[foe].seat != state.seat:
                out.append((p.name, foe))
    return out


def after_combat_step(s: GameState, *, offer: bool = True) -> None:
    """The combat (or the move) is over: the extra-combat offer (unless ``offer`` is False:
    the step aside chose no second combat), or the end of the turn."""
    s.fighter = s.combat.attacker if s.combat is not None else None
    s.combat = None
    if offer and _extra_possible(s):
        s.phase = Phase.EXTRA_OFFER
        return
    end_turn(s)


def second_combat_allowed(s: GameState) -> bool:
    """Whether a second combat may still be fought this turn: one so far (never more than
    two, A l.265), and not in the 45-minute game with B's variant (B l.249)."""
    if s.combats != 1 or s.phase is Phase.OVER:
        return False
    v = s.config.variants
    return not (s.config.length is Length.MINUTES45 and v.one_combat_in_45_minutes)


def second_by_step(s: GameState) -> bool:
    """Whether the step aside after a combat the foe survived is where a second combat goes,
    onto a green space or another foe's token beside the first foe (A l.261): the rules of
    revision 3 on. A journal of revision 1 or 2 replays as it was played: the step went onto
    an empty space (a green one with a second combat granted) and the extra-combat offer
    came after it, against a foe next to the new space (the same foe too)."""
    return s.config.rules_revision >= 3


def second_combat_cards(s: GameState) -> list[Card]:
    """The cards in the hand of the player whose turn it is that grant a second combat."""
    return [
        c
        for c in playable(s, s.seat, Timing.AFTER_COMBAT)
        if c.effect.kind is EffectKind.EXTRA_COMBAT
    ]


def _extra_possible(s: GameState) -> bool:
    if not second_combat_allowed(s):
        return False
    if not (s.extra_granted or second_combat_cards(s)):
        return False
    return bool(extra_targets(s))


def extra_card(s: GameState, e: PlayCard) -> None:
    """Handle an extra-combat :class:`PlayCard`."""
    card = check_card(s, e.seat, e.card, Timing.AFTER_COMBAT)
    warrior, target = _check_pair(s, e.warrior, e.target)
    count_play(s, e.seat, card)
    use_card(s, e.seat, card.name)
    _begin_adjacent(s, warrior, target)


def extra_event(s: GameState, e: ExtraCombat) -> None:
    """Handle :class:`ExtraCombat` (the second combat the event card grants)."""
    if not s.extra_granted:
        raise IllegalActionError("no event card grants a second combat this turn")
    _begin_adjacent(s, *_check_pair(s, e.warrior, e.target))


def _check_pair(s: GameState, warrior: str | None, target: str | None) -> tuple[str, str]:
    """``warrior`` and ``target``, who may fight the second combat.

    Raises:
        IllegalActionError: they may not (the message says why: not the warrior that
            fought, or not side by side).
    """
    if warrior is not None and target is not None and (warrior, target) in extra_targets(s):
        return warrior, target
    if s.config.rules_revision >= 2 and warrior != s.fighter:
        raise IllegalActionError(
            f"{warrior} cannot attack {target}: only {s.fighter}, which fought this turn's "
            "combat, may fight the second (A l.247)"
        )
    raise IllegalActionError(f"{warrior} cannot attack {target}: they must stand side by side")


def _begin_adjacent(s: GameState, a: str, d: str) -> None:
    begin_combat(s, a, d, on_space(s.pieces[a]), on_space(s.pieces[d]), green=False, adjacent=True)


def decline_extra(s: GameState, e: Pass) -> None:
    """Handle :class:`Pass` at the extra-combat offer: the turn ends."""
    end_turn(s)
