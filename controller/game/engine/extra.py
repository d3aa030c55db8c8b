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
  and the second combat is against a foe next to it (the offer below), or (revision 4 on)
  the warrior of a green space next to it, "you can not go to a green space after combat
  during your turn unless you have a card that lets you fight a second combat" (A l.39,
  which does not ask how the first combat ended).

The foe just fought is never the second combat's, wherever it went ("another Warrior
token", A l.261), nor, when it was a fusion, either of its partners (the fused warrior is
both characters, A l.209): revision 4 on (:func:`foes_fought`).
"""

from __future__ import annotations

from controller.core.errors import IllegalActionError
from controller.game.engine.combat import begin_combat, begin_green_combat
from controller.game.engine.common import (
    check_card,
    check_names,
    count_play,
    on_space,
    playable,
    put,
    use_card,
)
from controller.game.engine.turn import end_turn
from controller.game.events import ExtraCombat, Pass, PlayCard, StepAside
from controller.game.state import FUSIONS, Combat, GameState, Length, Phase
from controller.gamedata.board import Colour
from controller.gamedata.cards import Card, EffectKind, Timing


def extra_targets(state: GameState) -> list[tuple[str, str]]:
    """(attacker, target) pairs for a second combat offered after the first: the warrior
    that fought the first one, still on the board, next to a foe. Only the warrior whose
    turn it is attacks (A l.247); the player's other warriors never moved this turn.

    From revision 3 this offer follows only a first combat the attacker ended where it
    fought (its foe eliminated, A l.259, B l.343, which say nothing of a step; the green
    warrior back in its deck; a foe that fled): after one the foe survived, the second
    combat is the step aside's (A l.261, :func:`second_by_step`). From revision 4 the foe
    just fought (one that fled, or the striker that made the attacker flee from its
    counter-attack) and a fused foe's partners are never offered (:func:`foes_fought`)."""
    out = []
    any_warrior = state.config.rules_revision < 2  # a journal of the rules before (RULES_REVISION)
    fought = state.fought if not_again(state) else ()
    for p in state.on_board(state.seat):
        if p.name != state.fighter and not any_warrior:
            continue
        for sp in state.data.near[on_space(p)]:
            foe = state.occ.get(sp)
            if foe is not None and state.pieces[foe].seat != state.seat and foe not in fought:
                out.append((p.name, foe))
    return out


def not_again(s: GameState) -> bool:
    """Whether the foe just fought, wherever it went, and a fused foe's partners are never
    the second combat's (A l.209, l.261): revision 4 on. Before it, the offer after a combat
    named any foe next to the attacker: one that fled there too, and the step aside any
    foe beside the first, a partner of a fused one that split back too."""
    return s.config.rules_revision >= 4


def foes_fought(c: Combat) -> tuple[str, ...]:
    """The foe ``c`` fought and, when it was a fusion (for good, or for one attack and split
    back, ``defender_split_after``), its partners and the fused warrior: "the fused Warrior"
    is the two characters (A l.209), one foe for "another Warrior token" (A l.261)."""
    names = {c.defender, *(p.name for p in c.defender_split_after)}
    for fused, pair in FUSIONS.items():
        if fused in names:
            names |= {fused, *pair}
    return tuple(sorted(names))


def extra_green_steps(state: GameState) -> list[int]:
    """The empty green spaces next to the warrior that fought, where a second combat offered
    after the first may go (A l.39: "you can not go to a green space after combat ... unless
    you have a card that lets you fight a second combat"; revision 4 on, a warrior left in
    the green deck). Before revision 4 the offer was a foe next to it only."""
    if state.config.rules_revision < 4 or state.fighter is None:
        return []
    if not green_foe_is_new(state, state.fought):
        return []
    if not second_combat_allowed(state):
        return []
    p = state.pieces.get(state.fighter)
    if p is None or p.space is None or p.seat != state.seat:
        return []
    return sorted(
        sid
        for sid in state.data.near[p.space]
        if sid not in state.occ and state.data.colours[sid] is Colour.GREEN
    )


def green_foe_is_new(state: GameState, fought: tuple[str, ...]) -> bool:
    """Whether a second combat onto a green space would fight a warrior other than the foe
    just fought (``fought``): the green deck is not empty, and (revision 4 on) its top is not
    the green warrior that survived the first combat and went back under the deck, its only
    card (A l.261 "another Warrior token")."""
    if not state.green_deck:
        return False
    return not not_again(state) or state.green_deck[0] not in fought


def after_combat_step(s: GameState, *, offer: bool = True) -> None:
    """The combat (or the move) is over: the extra-combat offer (unless ``offer`` is False:
    the step aside chose no second combat), or the end of the turn."""
    s.fighter = s.combat.attacker if s.combat is not None else None
    s.fought = foes_fought(s.combat) if s.combat is not None else ()
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
    return bool(extra_targets(s) or extra_green_steps(s))


def extra_card(s: GameState, e: PlayCard) -> None:
    """Handle an extra-combat :class:`PlayCard`: ``warrior`` attacks ``target`` next to it,
    or (revision 4 on, no warrior or target named) the warrior that fought goes onto the
    green space ``space`` next to it."""
    card = check_card(s, e.seat, e.card, Timing.AFTER_COMBAT)
    if e.space is not None and e.warrior is None and e.target is None:
        space = _check_green(s, e.space)
        count_play(s, e.seat, card)
        use_card(s, e.seat, card.name)
        _begin_green(s, space)
        return
    check_names(card.name, e, warrior=True, target=True)
    warrior, target = _check_pair(s, e.warrior, e.target)
    count_play(s, e.seat, card)
    use_card(s, e.seat, card.name)
    _begin_adjacent(s, warrior, target)


def extra_green_event(s: GameState, e: StepAside) -> None:
    """Handle :class:`StepAside` at the extra-combat offer (revision 4 on): with the event
    card's second combat, the warrior that fought goes onto a green space next to it."""
    if not s.extra_granted:
        raise IllegalActionError("no event card grants a second combat this turn")
    _begin_green(s, _check_green(s, e.space))


def _check_green(s: GameState, space: int) -> int:
    if space not in extra_green_steps(s):
        raise IllegalActionError(
            f"space {space} is no empty green space next to {s.fighter} with a warrior left "
            "in the green deck (A l.39)"
        )
    return space


def _begin_green(s: GameState, space: int) -> None:
    """The warrior that fought steps onto the green space ``space`` next to it: the player
    to the right draws the green deck's top warrior, which defends (as after a move)."""
    p = s.pieces[str(s.fighter)]
    origin = on_space(p)
    put(s, p._replace(space=space))
    begin_green_combat(s, p.name, origin, space)


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
