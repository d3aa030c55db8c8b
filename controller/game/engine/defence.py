"""The defender's answer (docs/rules.md §4, §8): none, a dodge roll, a defence card (played at
once, or by making its combo), Solar Flare's flight; and the attacker's own roll to dodge
the sphere a Reflect sends back."""

from __future__ import annotations

from dataclasses import replace

from controller.core.errors import IllegalActionError, InvalidThrowError
from controller.core.symbols import Symbol
from controller.game.engine.common import (
    FLEE_STEPS,
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
from controller.gamedata.cards import Card, Deck, EffectKind, Timing
from controller.rules.attack import dodge_made
from controller.rules.combat_types import SOLAR_FLARE_BELOW, Attack
from controller.rules.dice import counts_of
from controller.rules.endurance import divided_damage
from controller.rules.pools import defence_pool, defence_rerolls
from controller.rules.scoring import CardCombo, CardDefence, makes, need_vector
from controller.rules.speed import Defence
from controller.rules.warriors import AbilityKind

DefenceAnswer = tuple[Answer, str | None]
"""An answer the defender may give, as a :class:`Defend` holds it: (answer, card or None)."""


def defence_answers(state: GameState) -> list[DefenceAnswer]:
    """The answers the defender may give now: none, a dodge, flight, each defence card."""
    c = state.combat
    if c is None or state.phase is not Phase.DEFENCE_CHOICE:
        return []
    probe = c.probe
    if probe is None:
        return []
    allowed = probe.defence
    out: list[DefenceAnswer] = [(Answer.NONE, None)]
    if Defence.DODGE in allowed:
        out.append((Answer.DODGE, None))
    seat = state.pieces[c.target].seat
    if seat is None:
        return out
    t = fighter(state, c.target)
    left = t.warrior.endurance - state.pieces[c.target].damage
    if t.has(AbilityKind.SOLAR_FLARE) and left < SOLAR_FLARE_BELOW and flee_spaces(state):
        out.append((Answer.FLEE, None))
    attack_card = probe.option.card
    for card in playable(state, seat, Timing.DEFENCE):
        if _card_answer_ok(card, allowed, attack_card):
            out.append((Answer.CARD, card.name))
    return out


def answer_text(answer: DefenceAnswer) -> str:
    """An answer as the journal and the prompts spell it (see :attr:`Defend.text`)."""
    kind, card = answer
    return card if card is not None else kind.value


def _card_answer_ok(
    card: Card, allowed: tuple[Defence, ...], attack_card: CardCombo | None
) -> bool:
    if card.effect.kind is EffectKind.DODGE:
        deck_ok = Defence.DODGE in allowed
    else:
        deck_ok = Defence.ANY_CARDS in allowed or (
            Defence.DEFENCE_CARDS in allowed and card.deck is Deck.DEFENCE
        )
    if attack_card is not None and attack_card.defence is CardDefence.INVULNERABLE_ONLY:
        deck_ok = deck_ok and card.invulnerable
    return deck_ok


def flee_spaces(state: GameState) -> list[int]:
    """Where a defender fleeing with Solar Flare may go: up to 3 steps, an empty space."""
    c = state.combat
    if c is None or c.arena is None:  # no combat, or a Story one (no board)
        return []
    return sorted(
        sp for sp, d in state.data.distances(c.arena, FLEE_STEPS).items()
        if d >= 1 and sp not in state.occ
    )  # fmt: skip


def defend(s: GameState, e: Defend) -> None:
    """Handle :class:`Defend`."""
    c = s.combat
    if c is None:
        raise IllegalActionError("no combat")
    answers = defence_answers(s)
    if (e.answer, e.card) not in answers:
        allowed = ", ".join(answer_text(a) for a in answers)
        raise IllegalActionError(f"{e.text!r} is not an answer allowed here; allowed: {allowed}")
    if e.answer is Answer.NONE and c.probe is not None:
        attack_done(s, c.probe)
        return
    if e.answer is Answer.FLEE:
        s.combat = c._replace(answer=Answer.FLEE)
        s.phase = Phase.FLEE
        return
    t = fighter(s, c.target)
    answer, card_name = Answer.DODGE, None
    if e.card is not None:  # a card: the target is a player's warrior
        seat = owner(s.pieces[c.target])
        card = s.data.cards.card(e.card)
        count_play(s, seat, card)
        if not card.combo:  # no combo: the effect holds at once
            use_card(s, seat, card.name)
            _card_effect_done(s, card)
            return
        answer, card_name = Answer.CARD, card.name
    s.combat = c._replace(
        answer=answer,
        answer_card=card_name,
        defence_pool=defence_pool(t, c.target_support),
        defence_max_rerolls=defence_rerolls(t),
    )
    s.phase = Phase.DEFENCE_ROLL


def flee(s: GameState, e: StepAside) -> None:
    """Handle the fleeing defender's :class:`StepAside`."""
    c = s.combat
    if c is None:
        raise IllegalActionError("no combat")
    if e.space not in flee_spaces(s):
        raise IllegalActionError(f"space {e.space} is not an empty space within {FLEE_STEPS} steps")
    p = s.pieces[c.target]
    put(s, p._replace(space=e.space))
    attack_done(s, resolve(s, Attack(c.throws, c.option, flee=True)))


def _defence_made(s: GameState, dice: tuple[Symbol, ...]) -> bool:
    c = s.combat
    if c is None:
        return False
    if c.answer is Answer.DODGE:
        return dodge_made(dice, fighter(s, c.target).dodge)
    if c.answer_card is None:
        return False
    card = s.data.cards.card(c.answer_card)
    return makes(counts_of(dice), need_vector(card.combo))


def defence_throw(s: GameState, e: DiceThrown) -> None:
    """Handle a defence roll's :class:`DiceThrown` (the attacker's, for a reflected sphere)."""
    c = s.combat
    if c is None:
        raise IllegalActionError("no combat")
    if c.answer is Answer.REFLECT:
        _reflect_throw(s, e)
        return
    if len(e.dice) != c.defence_pool:
        raise InvalidThrowError(
            f"{c.target} throws {c.defence_pool} dice, the throw shows {len(e.dice)}"
        )
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
    s.combat = c._replace(defence_throws=c.defence_throws[:-1])
    defence_throw(s, DiceThrown(e.dice, e.evidence))


def _reflect_throw(s: GameState, e: DiceThrown) -> None:
    c = s.combat
    if c is None:
        raise IllegalActionError("no combat")
    if len(e.dice) != c.defence_pool:
        raise InvalidThrowError(
            f"{c.striker} throws {c.defence_pool} dice, the throw shows {len(e.dice)}"
        )
    c = c._replace(defence_throws=(*c.defence_throws, tuple(e.dice)))
    s.combat = c
    made = dodge_made(c.defence_throws[-1], fighter(s, c.striker).dodge)
    if made or len(c.defence_throws) > c.defence_max_rerolls:
        _finish_reflect(s)


def _finish_reflect(s: GameState) -> None:
    c = s.combat
    if c is None or c.probe is None:
        return
    if not c.defence_throws:
        attack_done(s, c.probe)
        return
    attack_done(s, resolve(s, Attack(c.throws, c.option, reflect_dodge_throws=c.defence_throws)))


def stop_rolling(s: GameState, e: StopRolling) -> None:
    """Handle :class:`StopRolling` (taking the reflected damage, with or without a try)."""
    c = s.combat
    if c is not None and c.answer is Answer.REFLECT:
        _finish_reflect(s)
        return
    if c is None or not c.defence_throws:
        raise IllegalActionError("throw at least once before stopping")
    _finish_defence(s)


def _finish_defence(s: GameState) -> None:
    c = s.combat
    if c is None:
        return
    if c.answer is Answer.DODGE:
        attack_done(s, resolve(s, Attack(c.throws, c.option, dodge_throws=c.defence_throws)))
        return
    if c.answer_card is None:
        return
    card = s.data.cards.card(c.answer_card)
    made = _defence_made(s, c.defence_throws[-1])
    seat = owner(s.pieces[c.target])
    if made:
        use_card(s, seat, card.name)
        _card_effect_done(s, card)
    elif c.probe is not None:  # the combo failed: the damage goes through, the card is kept (§4)
        attack_done(s, c.probe)


def _card_effect_done(s: GameState, card: Card) -> None:
    c = s.combat
    if c is None:
        return
    base = c.probe if c.probe is not None else resolve(s, Attack(c.throws, c.option))
    if card.effect.kind is EffectKind.REFLECT:
        back = divided_damage(base.option.damage, fighter(s, c.striker).divisor)
        result = replace(base, damage_dealt=0, reflected=True, damage_reflected=back,
                         notes=(f"{card.name} sends {back} back",))  # fmt: skip
    elif card.effect.kind is EffectKind.DODGE:
        result = replace(base, damage_dealt=0, dodged=True, notes=(f"{card.name}: dodged",))
    else:
        result = replace(base, damage_dealt=0, card_defended=True, notes=(f"{card.name} stops it",))
    attack_done(s, result)
