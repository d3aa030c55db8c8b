"""An attack (docs/rules.md §3–§8): the striker's throws and rerolls, what the last throw
is worth, and the choice that opens the defence (or, for a reflected sphere, the
attacker's own answer)."""

from __future__ import annotations

from controller.core.errors import IllegalActionError, InvalidThrowError
from controller.core.quoting import short_repr
from controller.game.engine.common import check_die_faces, resolve, scorer
from controller.game.engine.defence import can_answer
from controller.game.engine.resolve import attack_done
from controller.game.events import ChooseAttack, DiceThrown, ThrowCorrected
from controller.game.state import GameState, Phase
from controller.rules.combat_types import Attack
from controller.rules.scoring import cashable
from controller.rules.variants import Variants


def dice_thrown(s: GameState, e: DiceThrown) -> None:
    """Handle the striker's :class:`DiceThrown` (a throw or a reroll)."""
    c = s.combat
    if c is None:
        raise IllegalActionError("no combat")
    if len(e.dice) != c.pool:
        raise InvalidThrowError(f"{c.striker} throws {c.pool} dice, the throw shows {len(e.dice)}")
    check_die_faces(s, e.dice, f"{c.striker}'s throw")
    if len(c.throws) > c.max_rerolls:
        raise IllegalActionError(
            f"{c.striker} has made all {c.max_rerolls} rerolls: choose what the throw is worth"
        )
    s.combat = c._replace(throws=(*c.throws, tuple(e.dice)), evidence=(*c.evidence, e.evidence))


def throw_corrected(s: GameState, e: ThrowCorrected) -> None:
    """Handle :class:`ThrowCorrected` of the striker's last throw."""
    c = s.combat
    if c is None:
        raise IllegalActionError("no throw to correct")
    if not c.throws or len(e.dice) != c.pool:
        raise InvalidThrowError(f"a correction replaces the last throw of {c.pool} dice")
    check_die_faces(s, e.dice, "the correction")
    s.combat = c._replace(throws=(*c.throws[:-1], tuple(e.dice)))


def attack_options(state: GameState) -> list[tuple[str, int]]:
    """(option name, damage) the attacker's last throw allows (empty before the first throw)."""
    c = state.combat
    if c is None or not c.throws:
        return []
    options = cashable(scorer(state).score(c.throws[-1]).options, sum_allowed=sum_allowed(state))
    return [(o.name, o.damage) for o in options]


def best_attack_option(state: GameState) -> str | None:
    """The option of the last throw that, should nobody answer it, costs the target most and
    the striker least (A l.153, l.253: "look at the active ability of the 2 Warriors ...
    choose the attack that will make your opponent lose the most Endurance"): the target's
    Shield, Reflect and divisor counted; a tie goes to the higher printed damage. A Story
    attempt's is its highest damage (no ability acts, B l.188). None before the first throw."""
    c = state.combat
    if c is None or not c.throws:
        return None
    ranked = []
    for name, printed in attack_options(state):
        if state.story is not None:
            ranked.append((printed, printed, name))
            continue
        r = resolve(state, Attack(c.throws, name))
        ranked.append((r.damage_dealt - r.damage_reflected, printed, name))
    return max(ranked, key=lambda row: row[:2])[2] if ranked else None


def sum_allowed(state: GameState) -> bool:
    """Whether the attack in progress may cash in the symbol sum (:func:`attack_options`;
    the advisor asks too, ``table.advice``): always (A l.255, B l.137, l.157), but not a
    Story attempt with the variant ``story_combos_only`` (docs/rules.md §12, B l.188,
    l.213: "two options", a warrior combo or the square's, else nothing)."""
    return state.story is None or story_sum_allowed(state.config.variants)


def story_sum_allowed(variants: Variants) -> bool:
    """Whether a Story attempt may cash in the symbol sum: not with the variant
    ``story_combos_only`` (:func:`sum_allowed`; ``toptable advise --story`` asks too)."""
    return not variants.story_combos_only


def choose_attack(s: GameState, e: ChooseAttack) -> None:
    """Handle :class:`ChooseAttack`: the attack is resolved as far as the defender's answer."""
    c = s.combat
    if c is None or not c.throws:
        raise IllegalActionError("throw the dice before choosing what the throw is worth")
    names = [n for n, _ in attack_options(s)]
    key = e.option.strip().casefold()
    match = next((n for n in names if n.casefold() == key), None)
    if match is None:
        makes = ", ".join(names)
        seat = s.pieces[c.striker].seat
        card = next((n for n in s.data.cards.cards if n.casefold() == key), None)
        if card is not None and (seat is None or card not in s.hands[seat]):
            holder = s.players[seat] if seat is not None else f"{c.striker} (green space)"
            raise IllegalActionError(
                f"{holder} has no {short_repr(card)} in hand; the last throw makes: {makes}"
            )
        raise IllegalActionError(
            f"the last throw does not make {short_repr(e.option)}; it makes: {makes}"
        )
    c = s.combat = c._replace(option=match)
    probe = resolve(s, Attack(c.throws, match))
    c = s.combat = c._replace(probe=probe)
    if probe.reflected and probe.damage_reflected > 0:  # the attacker may answer it (A l.110)
        s.phase = Phase.REFLECT_CHOICE
        return
    if probe.shielded or probe.reflected:
        attack_done(s, probe)
        return
    s.phase = Phase.DEFENCE_CHOICE
    if not can_answer(s):  # no answer at all: the damage lands
        attack_done(s, probe)
