"""The answers to an attack (docs/rules.md §4, §8): the defender's — none, a dodge roll, a
card (played at once, or by making its combo), Solar Flare's flight — and the attacker's
against the sphere a Reflect sends back: none, a dodge roll or a card (A l.110)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from controller.core.errors import IllegalActionError, InvalidThrowError
from controller.core.quoting import short_repr
from controller.core.symbols import Symbol
from controller.game.engine.common import (
    FLEE_STEPS,
    check_die_faces,
    count_play,
    fighter,
    owner,
    playable,
    put,
    resolve,
    use_card,
)
from controller.game.engine.resolve import attack_done
from controller.game.events import Defend, DiceThrown, StepAside, StopRolling, ThrowCorrected
from controller.game.state import Answer, GameState, Phase
from controller.gamedata.cards import Card, EffectKind, Timing
from controller.rules.attack import card_may_answer, dodge_made, dodge_needed
from controller.rules.combat_types import SOLAR_FLARE_BELOW, Attack, DefenceCardPlay
from controller.rules.dice import counts_of
from controller.rules.endurance import divided_damage
from controller.rules.pools import defence_pool, defence_rerolls
from controller.rules.scoring import makes, need_vector
from controller.rules.speed import Defence
from controller.rules.warriors import AbilityKind

DefenceAnswer = tuple[Answer, str | None]
"""An answer the defender may give, as a :class:`Defend` holds it: (answer, card or None)."""


def defence_answers(state: GameState) -> list[DefenceAnswer]:
    """The answers the player asked may give now. In ``DEFENCE_CHOICE``, the defender's: none,
    a dodge (as the attack's speed allows), Solar Flare's flight (at any speed; a
    green-space warrior's too, A l.237), each card the speed and the attack allow
    (rules.attack.card_may_answer: a Defence-deck Dodge card after a surprise attack too,
    A l.197). In ``REFLECT_CHOICE``, the attacker's
    against its reflected sphere: none, a dodge with its dice, any of its answering cards
    (A l.110)."""
    return list(_answers(state))


def can_answer(state: GameState) -> bool:
    """Whether :func:`defence_answers` holds more than "none" (stops at the first answer
    found: the engine asks this of every attack chosen)."""
    answers = _answers(state)
    return next(answers, None) is not None and next(answers, None) is not None


def _answers(state: GameState) -> Iterator[DefenceAnswer]:
    """:func:`defence_answers` one by one, "none" first (nothing out of a choice)."""
    c = state.combat
    probe = c.probe if c is not None else None
    if c is None or probe is None:
        return
    if state.phase is Phase.REFLECT_CHOICE:
        yield Answer.NONE, None
        yield Answer.DODGE, None
        seat = state.pieces[c.striker].seat
        if seat is not None:
            yield from ((Answer.CARD, card.name) for card in playable(state, seat, Timing.DEFENCE))
        return
    if state.phase is not Phase.DEFENCE_CHOICE:
        return
    yield Answer.NONE, None
    allowed = probe.defence
    if Defence.DODGE in allowed:
        yield Answer.DODGE, None
    if _may_flee(state):
        yield Answer.FLEE, None
    seat = state.pieces[c.target].seat
    if seat is None:  # a green-space warrior holds no cards
        return
    for card in playable(state, seat, Timing.DEFENCE):
        play = DefenceCardPlay(card.combo_view(), card.deck, ())
        if card_may_answer(play, allowed, probe.option):
            yield Answer.CARD, card.name


def flight_open(state: GameState) -> bool:
    """Whether the target under attack could flee with Solar Flare, had it the ability and
    under 10 endurance: the combat lets it (:func:`flight_allowed`) and a player's warrior
    has an empty space 3 steps away (:func:`flee_spaces`; a green-space warrior needs
    none). The advisor asks (``table.advice``)."""
    c = state.combat
    if c is None or not flight_allowed(state):
        return False
    if state.pieces[c.target].seat is None:
        return state.config.rules_revision >= 3
    return bool(flee_spaces(state))


def _may_flee(state: GameState) -> bool:
    """Whether the target may flee with Solar Flare (A l.122, B l.102): below 10 endurance,
    a player's warrior to an empty space 3 steps away (:func:`flee_spaces`); a green-space
    warrior (its ability is active, A l.237) off the board, out of the fight (docs/rules.md
    §8; from rules revision 3: before it, a green warrior never fled); never in a tie's
    duel (from rules revision 7)."""
    c = state.combat
    if c is None:
        return False
    t = fighter(state, c.target)
    left = t.warrior.endurance - state.pieces[c.target].damage
    return t.has(AbilityKind.SOLAR_FLARE) and left < SOLAR_FLARE_BELOW and flight_open(state)


def answer_text(answer: DefenceAnswer) -> str:
    """An answer as the journal and the prompts spell it (see :attr:`Defend.text`)."""
    kind, card = answer
    return card if card is not None else kind.value


def flight_allowed(state: GameState) -> bool:
    """Whether the combat under way lets a warrior flee with Solar Flare at all: not a tie's
    duel, which ends when one of its warriors is eliminated (B l.359, A l.287; from rules
    revision 7). The advisor asks too (``table.advice``)."""
    c = state.combat
    return c is not None and not (c.duel and state.config.rules_revision >= 7)


def flee_spaces(state: GameState) -> list[int]:
    """Where a defender fleeing with Solar Flare may go: an empty space 3 steps from the
    fight ("flee 3 spaces away", A l.122; "move away 3 squares", B l.102: not "up to", as
    a move's 4 are; from rules revision 8, before it up to 3 steps). None there: no flight."""
    c = state.combat
    if c is None or c.arena is None:  # no combat, or a Story one (no board)
        return []
    nearest = FLEE_STEPS if state.config.rules_revision >= 8 else 1
    return sorted(
        sp for sp, d in state.data.distances(c.arena, FLEE_STEPS).items()
        if d >= nearest and sp not in state.occ
    )  # fmt: skip


def defend(s: GameState, e: Defend) -> None:
    """Handle :class:`Defend`: the defender's answer, or the attacker's against its
    reflected sphere."""
    c = s.combat
    if c is None:
        raise IllegalActionError("no combat")
    answers = defence_answers(s)
    if (e.answer, e.card) not in answers:
        allowed = ", ".join(answer_text(a) for a in answers)
        raise IllegalActionError(
            f"{short_repr(e.text)} is not an answer allowed here; allowed: {allowed}"
        )
    reflected = s.phase is Phase.REFLECT_CHOICE
    if e.answer is Answer.NONE and c.probe is not None:
        attack_done(s, c.probe)
        return
    if e.answer is Answer.FLEE and s.pieces[c.target].seat is None:
        # A green-space warrior's flight (engine decision, docs/rules.md §8): the combat
        # ends as when it survives, under the warrior deck, healed (end.finish_combat)
        attack_done(s, resolve(s, Attack(c.throws, c.option, flee=True)))
        return
    if e.answer is Answer.FLEE:
        s.combat = c._replace(answer=Answer.FLEE)
        s.phase = Phase.FLEE
        return
    roller = c.striker if reflected else c.target
    support = c.striker_support if reflected else c.target_support
    f = fighter(s, roller)
    answer = Answer.REFLECT if reflected else Answer.DODGE
    card_name = None
    if e.card is not None:  # a card: the roller is a player's warrior
        seat = owner(s.pieces[roller])
        card = s.data.cards.card(e.card)
        if s.config.rules_revision < 3:  # before revision 3 the card counted once chosen
            count_play(s, seat, card)
        if not card.combo:  # no combo: the effect holds at once
            _spend(s, seat, card)
            _card_effect_done(s, card)
            return
        answer, card_name = (Answer.REFLECT_CARD if reflected else Answer.CARD), card.name
    s.combat = c._replace(
        answer=answer,
        answer_card=card_name,
        defence_pool=defence_pool(f, support, s.config.variants),
        defence_max_rerolls=defence_rerolls(f),
    )
    s.phase = Phase.DEFENCE_ROLL


def flee(s: GameState, e: StepAside) -> None:
    """Handle the fleeing defender's :class:`StepAside`."""
    c = s.combat
    if c is None:
        raise IllegalActionError("no combat")
    if e.space not in flee_spaces(s):
        revised = s.config.rules_revision >= 8
        away = f"{FLEE_STEPS} steps away" if revised else f"within {FLEE_STEPS} steps"
        raise IllegalActionError(f"space {e.space} is not an empty space {away}")
    p = s.pieces[c.target]
    put(s, p._replace(space=e.space))
    attack_done(s, resolve(s, Attack(c.throws, c.option, flee=True)))


def _defence_made(s: GameState, dice: tuple[Symbol, ...]) -> bool:
    """Whether the roll under way is made: a dodge's teleports, or its card's combo."""
    c = s.combat
    if c is None:
        return False
    if c.answer in (Answer.DODGE, Answer.REFLECT):
        roller = c.striker if c.answer is Answer.REFLECT else c.target
        needed = dodge_needed(fighter(s, roller), c.defence_pool, s.config.variants)
        return dodge_made(dice, needed)
    if c.answer_card is None:
        return False
    card = s.data.cards.card(c.answer_card)
    return makes(counts_of(dice), need_vector(card.combo))


def defence_throw(s: GameState, e: DiceThrown) -> None:
    """Handle a defence roll's :class:`DiceThrown` (the attacker's, for a reflected sphere)."""
    c = s.combat
    if c is None:
        raise IllegalActionError("no combat")
    roller = c.striker if c.answer in (Answer.REFLECT, Answer.REFLECT_CARD) else c.target
    if len(e.dice) != c.defence_pool:
        raise InvalidThrowError(
            f"{roller} throws {c.defence_pool} dice, the throw shows {len(e.dice)}"
        )
    check_die_faces(s, e.dice, f"{roller}'s throw")
    c = c._replace(defence_throws=(*c.defence_throws, tuple(e.dice)))
    s.combat = c
    if _defence_made(s, c.defence_throws[-1]) or len(c.defence_throws) > c.defence_max_rerolls:
        _finish_defence(s)


def defence_corrected(s: GameState, e: ThrowCorrected) -> None:
    """Handle :class:`ThrowCorrected` of the last defence roll: it is thrown again as read."""
    c = s.combat
    if c is None:
        raise IllegalActionError("no throw to correct")
    if not c.defence_throws or len(e.dice) != c.defence_pool:
        raise InvalidThrowError(f"a correction replaces the last throw of {c.defence_pool} dice")
    check_die_faces(s, e.dice, "the correction")
    s.combat = c._replace(defence_throws=c.defence_throws[:-1])
    defence_throw(s, DiceThrown(e.dice, e.evidence))


def stop_rolling(s: GameState, e: StopRolling) -> None:
    """Handle :class:`StopRolling` (the attempt ends with the throws made)."""
    c = s.combat
    if c is None or not c.defence_throws:
        raise IllegalActionError("throw at least once before stopping")
    _finish_defence(s)


def _finish_defence(s: GameState) -> None:
    c = s.combat
    if c is None or c.probe is None:
        return
    throws = c.defence_throws
    if c.answer is Answer.DODGE:
        attack_done(s, resolve(s, Attack(c.throws, c.option, dodge_throws=throws)))
        return
    if c.answer is Answer.REFLECT:
        attack_done(s, resolve(s, Attack(c.throws, c.option, reflect_dodge_throws=throws)))
        return
    if c.answer_card is None:
        return
    card = s.data.cards.card(c.answer_card)
    roller = c.striker if c.answer is Answer.REFLECT_CARD else c.target
    seat = owner(s.pieces[roller])
    if c.answer is Answer.REFLECT_CARD:
        play = DefenceCardPlay(card.combo_view(), card.deck, throws)
        result = resolve(s, Attack(c.throws, c.option, reflect_card=play))
        if result.reflect_dodged:  # made: spent; failed: kept, never played (A l.350)
            _spend(s, seat, card)
        attack_done(s, result)
        return
    if _defence_made(s, throws[-1]):
        _spend(s, seat, card)
        _card_effect_done(s, card)
    else:  # the combo failed: the damage goes through, the card is kept (§4), uncounted
        attack_done(s, c.probe)


def _spend(s: GameState, seat: int, card: Card) -> None:
    """``card`` takes effect: it counts against ``seat``'s limits of the turn and goes under
    its deck. Only then: a card whose combo fails is kept (A l.350) and was never played,
    as an Attack card whose combo fails (docs/rules.md §9), so it uses up no limit — not
    the turn's one Special card (A l.370: "use"), nor B's count of cards (B l.351). (A
    game of an earlier revision counted it once chosen, :func:`defend`.)"""
    if s.config.rules_revision >= 3:
        count_play(s, seat, card)
    use_card(s, seat, card.name)


def _card_effect_done(s: GameState, card: Card) -> None:
    c = s.combat
    if c is None:
        return
    base = c.probe if c.probe is not None else resolve(s, Attack(c.throws, c.option))
    if s.phase is Phase.REFLECT_CHOICE:  # the attacker's card stops its reflected sphere
        note = f"{card.name}: {c.striker} escapes its reflected sphere"
        result = replace(base, damage_reflected=0, reflect_dodged=True, notes=(note,))
    elif card.effect.kind is EffectKind.REFLECT:
        back = divided_damage(base.option.damage, fighter(s, c.striker).divisor)
        result = replace(base, damage_dealt=0, reflected=True, damage_reflected=back,
                         notes=(f"{card.name} sends {back} back",))  # fmt: skip
    elif card.effect.kind is EffectKind.DODGE:
        result = replace(base, damage_dealt=0, dodged=True, notes=(f"{card.name}: dodged",))
    else:
        result = replace(base, damage_dealt=0, card_defended=True, notes=(f"{card.name} stops it",))
    attack_done(s, result)
