"""One attack resolved: its throws checked, the option chosen, the defender's answer applied (§2–§5, §8)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from enum import Enum

from controller.core.errors import IllegalActionError, InvalidThrowError
from controller.core.quoting import short_repr
from controller.core.symbols import AttackSpeed, Defence, Symbol, speed_after_rerolls
from controller.rules.combat_types import (
    SHIELD_LIMIT,
    SOLAR_FLARE_BELOW,
    Attack,
    AttackResult,
    Deck,
    DefenceCardPlay,
    Throw,
)
from controller.rules.dice import STAR_INDEX, TELEPORT_INDEX, check_throw, counts_of
from controller.rules.endurance import divided_damage
from controller.rules.pools import attack_pool, attack_rerolls, defence_pool, defence_rerolls
from controller.rules.scoring import CardCombo, CardDefence, Option, makes, need_vector, scorer_for
from controller.rules.speed import allowed_defences
from controller.rules.variants import DEFAULT_VARIANTS, Variants
from controller.rules.warriors import AbilityKind, Fighter


def dodge_made(throw: Sequence[Symbol], needed: int) -> bool:
    """Whether a dodge throw shows at least ``needed`` teleports (stars wild, §4)."""
    c = counts_of(throw)
    return c[TELEPORT_INDEX] + c[STAR_INDEX] >= needed


def dodge_needed(dodger: Fighter, pool: int, variants: Variants = DEFAULT_VARIANTS) -> int:
    """The teleports ``dodger`` needs with ``pool`` dice: its card's dodge number (A l.79), or
    every die with B's variant ``dodge_needs_every_die`` (B l.335)."""
    return pool if variants.dodge_needs_every_die else dodger.dodge


def shield_stops(defender: Fighter, option: Option, variants: Variants = DEFAULT_VARIANTS) -> bool:
    """Whether ``defender``'s Shield stops ``option``: a sphere attack of less than 20 damage
    (any damage with B's variant ``shield_any_sphere``), not from an invulnerable card (§8)."""
    card = option.card
    if not defender.has(AbilityKind.SHIELD) or not option.holds_sphere:
        return False
    if card is not None and card.invulnerable:
        return False
    return variants.shield_any_sphere or option.damage < SHIELD_LIMIT


class _Refusal(Enum):
    """Why a card may not answer an attack (see :func:`card_answer_problem`)."""

    DECK = "deck"  # the attack's speed allows no card of its deck (§3)
    SPHERE_ONLY = "sphere only"  # it answers a sphere attack only (§4)
    INVULNERABLE_ONLY = "invulnerable only"  # the attack card allows only invulnerable ones


def _refusal(
    play: DefenceCardPlay, defence: tuple[Defence, ...], option: Option
) -> _Refusal | None:
    if not (
        Defence.ANY_CARDS in defence
        or (Defence.DEFENCE_CARDS in defence and play.deck is Deck.DEFENCE)
    ):
        return _Refusal.DECK
    if play.card.sphere_only and not option.holds_sphere:
        return _Refusal.SPHERE_ONLY
    attack_card = option.card
    if (
        attack_card is not None
        and attack_card.defence is CardDefence.INVULNERABLE_ONLY
        and not play.card.invulnerable
    ):
        return _Refusal.INVULNERABLE_ONLY
    return None


def card_may_answer(play: DefenceCardPlay, defence: tuple[Defence, ...], option: Option) -> bool:
    """Whether the card ``play`` may answer ``option`` (:func:`card_answer_problem` is None),
    without writing out why not: the engine asks it of every card in hand."""
    return _refusal(play, defence, option) is None


def card_answer_problem(
    play: DefenceCardPlay, defence: tuple[Defence, ...], option: Option, speed: AttackSpeed
) -> str | None:
    """Why the card ``play`` may not answer ``option`` cashed in at ``speed`` (None: it may):
    the speed's decks (§3), a sphere-only card against another attack (§4), an attack card
    that allows invulnerable cards only."""
    why = _refusal(play, defence, option)
    if why is _Refusal.DECK:
        article = "an" if str(play.deck)[0] in "aeiou" else "a"
        allowed = ", ".join(str(d) for d in defence)
        return f"a {speed} attack is not answered with {article} {play.deck} card ({allowed})"
    if why is _Refusal.SPHERE_ONLY:
        return f"{play.card.name} answers a sphere attack only"
    if why is _Refusal.INVULNERABLE_ONLY and option.card is not None:
        return f"{option.card.name} allows only an invulnerable card; {play.card.name} is not"
    return None


def check_attempt(throws: Sequence[Throw], pool: int, max_rerolls: int, who: str) -> int:
    """Check an attempt's throws against the pool and rerolls; return rerolls made.

    Raises:
        InvalidThrowError: no throw, a throw with another dice count, too many rerolls.
    """
    if not throws:
        raise InvalidThrowError(f"{who}: an attempt needs at least one throw")
    for i, t in enumerate(throws):
        check_throw(t, pool, f"{who}: throw {i + 1}")
    made = len(throws) - 1
    if made > max_rerolls:
        raise InvalidThrowError(
            f"{who}: {made} rerolls, but only {max_rerolls} are allowed (technique and abilities)"
        )
    return made


def choose_option(options: Sequence[Option], best: Option, choice: str | None, who: str) -> Option:
    """The option named by ``choice`` ("sum" or a combo/card name; None: ``best``).

    Raises:
        IllegalActionError: the final throw does not make that option.
    """
    if choice is None:
        return best
    key = choice.strip().casefold()
    for opt in options:
        if opt.name.casefold() == key:
            return opt
    made = ", ".join(o.name for o in options)
    raise IllegalActionError(
        f"{who}: the final throw does not make {short_repr(choice)}; it makes: {made}"
    )


def resolve_attack(
    attacker: Fighter,
    attacker_support: int,
    defender: Fighter,
    defender_support: int,
    defender_endurance_left: int,
    attack: Attack,
    cards: Sequence[CardCombo] = (),
    variants: Variants = DEFAULT_VARIANTS,
    *,
    green: bool = False,
    capped_first: bool = True,
) -> AttackResult:
    """Resolve one attack and the defender's answer (no costs, no elimination).
    ``green``: the defender is a green-space warrior (B's variant bars its dodge before
    the third reroll); ``capped_first``: as :func:`~controller.rules.pools.attack_pool`.

    Raises:
        InvalidThrowError: throws that do not fit the pools and rerolls.
        IllegalActionError: an answer the attack speed or abilities do not allow.
    """
    who = f"{attacker.name} attacking {defender.name}"
    pool = attack_pool(attacker, attacker_support, defender, capped_first)
    rerolls = check_attempt(attack.throws, pool, attack_rerolls(attacker, defender), who)
    score = scorer_for(attacker, cards, variants).score(attack.throws[-1])
    option = choose_option(score.options, score.best, attack.choice, who)
    card = option.card
    speed = speed_after_rerolls(rerolls)
    defence = allowed_defences(
        speed,
        variants,
        attacker_denies_dice=attacker.has(AbilityKind.NO_DEFENCE_DICE),
        card_defence=card.defence if card is not None else CardDefence.ANY,
        dodge_barred=green and variants.green_dodge_after_three_rerolls and rerolls < 3,
    )
    notes: list[str] = []
    base = AttackResult(
        attacker.name, defender.name, pool, rerolls, speed, defence, option, score.options
    )
    answers = sum(x is not None for x in (attack.dodge_throws, attack.defence_card)) + attack.flee
    if answers > 1:
        raise IllegalActionError(
            f"{who}: the defender gives one answer: a dodge, a card or a flight"
        )

    if attack.flee:
        if not defender.has(AbilityKind.SOLAR_FLARE):
            raise IllegalActionError(f"{defender.name} has no Solar Flare and cannot flee")
        if defender_endurance_left >= SOLAR_FLARE_BELOW:
            raise IllegalActionError(
                f"{defender.name} may flee with Solar Flare only below {SOLAR_FLARE_BELOW} endurance "
                f"(it has {defender_endurance_left})"
            )
        notes.append(f"{defender.name} flees with Solar Flare")
        return replace(base, fled=True, notes=tuple(notes))

    stops, reflects = sphere_acts(defender, option, variants)
    _check_no_answer_needed(attacker, defender, attack, stops, reflects)
    if stops:
        notes.append(f"{defender.name}'s Shield stops a sphere of {option.damage}")
        return replace(base, shielded=True, notes=tuple(notes))
    if reflects:
        escaped = _escapes_reflection(attacker, attacker_support, attack, variants)
        back = 0 if escaped else divided_damage(option.damage, attacker.divisor)
        notes.append(
            f"{defender.name} reflects the sphere"
            + (f"; {attacker.name} escapes it" if escaped else f"; {attacker.name} takes {back}")
        )
        return replace(
            base,
            reflected=True,
            reflect_dodged=escaped,
            damage_reflected=back,
            notes=tuple(notes),
        )

    dealt = divided_damage(option.damage, defender.divisor)
    if attack.dodge_throws is not None:
        if Defence.DODGE not in defence:
            raise IllegalActionError(
                f"{defender.name} may not dodge a {speed} attack here; allowed: "
                + ", ".join(str(d) for d in defence)
            )
        d_pool = defence_pool(defender, defender_support, variants)
        check_attempt(
            attack.dodge_throws, d_pool, defence_rerolls(defender), f"{defender.name} dodging"
        )
        needed = dodge_needed(defender, d_pool, variants)
        if dodge_made(attack.dodge_throws[-1], needed):
            notes.append(f"{defender.name} dodges with {needed} teleports")
            return replace(base, dodged=True, notes=tuple(notes))
        notes.append(f"{defender.name}'s dodge fails")
    elif attack.defence_card is not None:
        play = attack.defence_card
        why = card_answer_problem(play, defence, option, speed)
        if why is not None:
            raise IllegalActionError(f"{defender.name} may not play {play.card.name}: {why}")
        check_attempt(
            play.throws,
            defence_pool(defender, defender_support, variants),
            defence_rerolls(defender),
            f"{defender.name} playing {play.card.name}",
        )
        if makes(counts_of(play.throws[-1]), need_vector(play.card.symbols)):
            notes.append(f"{defender.name} stops the attack with {play.card.name}")
            return replace(base, card_defended=True, notes=tuple(notes))
        notes.append(f"{play.card.name} fails; {defender.name} keeps the card")
    if defender.divisor > 1 and option.damage:
        notes.append(f"{defender.name} divides {option.damage} by {defender.divisor}: {dealt}")
    return replace(base, damage_dealt=dealt, notes=tuple(notes))


def sphere_acts(defender: Fighter, option: Option, variants: Variants) -> tuple[bool, bool]:
    """Whether the defender's Shield stops the attack ``option``'s sphere, and whether its
    Reflect sends it back (not an invulnerable card's): either acts by itself, before any
    answer."""
    stops = shield_stops(defender, option, variants)
    invulnerable = option.card is not None and option.card.invulnerable
    reflects = (
        not stops
        and option.holds_sphere
        and not invulnerable
        and defender.has(AbilityKind.REFLECT_SPHERE)
    )
    return stops, reflects


def fit_answers(attack: Attack, defender: Fighter, option: Option, variants: Variants) -> Attack:
    """``attack`` with only the answers its sphere leaves room for (see
    :func:`sphere_acts`): for a caller that draws every answer before it knows which apply
    (the advisor's simulation)."""
    stops, reflects = sphere_acts(defender, option, variants)
    return replace(
        attack,
        dodge_throws=None if stops or reflects else attack.dodge_throws,
        defence_card=None if stops or reflects else attack.defence_card,
        reflect_dodge_throws=attack.reflect_dodge_throws if reflects else None,
        reflect_card=attack.reflect_card if reflects else None,
    )


def _check_no_answer_needed(
    attacker: Fighter, defender: Fighter, attack: Attack, stops: bool, reflects: bool
) -> None:
    """Refuse an answer the attack leaves no room for: the defender's dodge or card when its
    Shield stops the sphere or its Reflect sends it back (both act by themselves), and the
    attacker's answer to a reflected sphere when none was reflected.

    Raises:
        IllegalActionError: naming what acts instead.
    """
    answered = attack.dodge_throws is not None or attack.defence_card is not None
    if answered and (stops or reflects):
        acts = "Shield stops" if stops else "Reflect sends back"
        raise IllegalActionError(
            f"{defender.name}'s {acts} the sphere by itself: it gives no dodge or card"
        )
    if not reflects and (attack.reflect_dodge_throws, attack.reflect_card) != (None, None):
        raise IllegalActionError(
            f"{attacker.name}: no sphere is reflected back at it, so it has nothing to answer"
        )


def _escapes_reflection(
    attacker: Fighter, support: int, attack: Attack, variants: Variants
) -> bool:
    """Whether the attacker escapes its reflected sphere: by a dodge roll or by a card's combo
    (A l.110: "the attacker can then try to dodge using their dice or cards").

    Raises:
        IllegalActionError: both a dodge and a card.
        InvalidThrowError: throws that do not fit the attacker's defence pool.
    """
    if attack.reflect_dodge_throws is not None and attack.reflect_card is not None:
        raise IllegalActionError(f"{attacker.name} answers its reflected sphere once")
    pool = defence_pool(attacker, support, variants)
    if attack.reflect_dodge_throws is not None:
        check_attempt(
            attack.reflect_dodge_throws,
            pool,
            defence_rerolls(attacker),
            f"{attacker.name} dodging its reflected sphere",
        )
        return dodge_made(attack.reflect_dodge_throws[-1], dodge_needed(attacker, pool, variants))
    if attack.reflect_card is not None:
        play = attack.reflect_card
        check_attempt(
            play.throws,
            pool,
            defence_rerolls(attacker),
            f"{attacker.name} playing {play.card.name}",
        )
        return makes(counts_of(play.throws[-1]), need_vector(play.card.symbols))
    return False
