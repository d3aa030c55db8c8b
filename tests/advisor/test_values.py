"""What cashing in is worth: the rules applied, and the vectorised table against the scalar path."""

from __future__ import annotations

from itertools import product

import pytest

from controller.advisor.advisor import Advisor, DiceAction
from controller.advisor.defence import CardStopOdds
from controller.advisor.multisets import tables
from controller.advisor.values import AttackValuer, Objective, OptionValue
from controller.core.symbols import Symbol
from controller.rules.attack import resolve_attack
from controller.rules.combat_types import Attack
from controller.rules.dice import TOURNAMENT_DIE, counts_of, dice_of
from controller.rules.scoring import CardCombo, CardDefence, Option, OptionKind, cashable
from controller.rules.speed import AttackSpeed
from controller.rules.variants import Variants
from controller.rules.warriors import AbilityKind, Combo, Fighter
from tests.advisor.helpers import SP, ST, STAR, K, P, T, ability, fighter

CARDS = (
    CardCombo("Blast Card", (SP, SP), 24),
    CardCombo("Unstoppable", (K, P, ST), 15, CardDefence.NONE),
    CardCombo("Holy Sphere", (SP, STAR), 18, invulnerable=True),
)
DEFENDERS = [
    None,
    fighter("Plain", endurance=25, dodge=2),
    fighter("Shielded", ability=ability(AbilityKind.SHIELD)),
    fighter("Mirror", ability=ability(AbilityKind.REFLECT_SPHERE)),
    fighter("Giant", divisor=2, cost=2, endurance=20),
]


@pytest.mark.parametrize("defender", DEFENDERS, ids=lambda d: d.name if d else "none")
@pytest.mark.parametrize("objective", [Objective.KO, Objective.DAMAGE])
def test_vector_stop_table_equals_scalar_best_option(defender, objective) -> None:  # type: ignore[no-untyped-def]
    attacker = fighter(power=4, ability=ability(AbilityKind.NO_DEFENCE_DICE))
    v = AttackValuer(attacker, defender, 4, CARDS, objective=objective)
    t = tables(TOURNAMENT_DIE, 4)
    for m in range(4):
        table = v.stop_table(t, m)
        for i, c in enumerate(t.states):
            scalar = v.best_option(c, table.speed)
            chosen = v.stop_option(table, i)
            assert v.key(chosen) == pytest.approx(v.key(scalar), abs=1e-12)
            assert (table.values.primary[i], table.values.secondary[i]) == pytest.approx(
                v.key(scalar)
            )
            assert chosen.option in v.scorer.score_counts(c).options
            # the same option, not only an equal value: among options of equal value the
            # one not reflected, then the most raw damage (a Mirror's all-sphere throw: the
            # doubled sum 40, not the Blast Card 24, both coming back)
            assert chosen.option == scalar.option


def test_lightning_damage_matches_the_rules_engine() -> None:
    """Stopping at once: the damage the advisor counts is what resolve_attack deals."""
    attacker = fighter(power=3)
    for defender in DEFENDERS[1:]:
        assert defender is not None
        v = AttackValuer(attacker, defender, 0, CARDS)
        t = tables(TOURNAMENT_DIE, 3)
        table = v.stop_table(t, 0)
        for i, c in enumerate(t.states):
            ov = v.stop_option(table, i)
            res = resolve_attack(
                attacker, 0, defender, 0, 30, Attack((dice_of(c),), choice=ov.option.name), CARDS
            )
            assert ov.damage == res.damage_dealt
            assert ov.reflected == res.reflected and ov.shielded == res.shielded
            assert ov.p_land == 1.0  # lightning: no defence


def test_shield_reflect_divisor_and_invulnerable() -> None:
    attacker = fighter(
        power=3, combos=(Combo("Ball", (SP, SP), 19), Combo("Big Ball", (SP, SP, SP), 25))
    )
    sphere = dice_of((0, 0, 2, 0, 0, 1))  # sphere sphere teleport
    three = dice_of((0, 0, 3, 0, 0, 0))

    def stop(
        defender: Fighter, dice: tuple[Symbol, ...], cards: tuple[CardCombo, ...] = ()
    ) -> tuple[OptionValue, float]:
        """The option cashed in by stopping now, and its expected damage."""
        adv = Advisor(attacker, 0, defender, 0, cards, objective=Objective.DAMAGE)
        choice = next(c for c in adv.advise(dice, 0).choices if c.action is DiceAction.STOP)
        assert choice.option is not None
        return choice.option, choice.expected_damage

    shielded = fighter("S", ability=ability(AbilityKind.SHIELD))
    # 19 < 20: the Shield stops Ball; the sum (10) then beats it.
    assert stop(shielded, sphere)[0].option.name == "sum"
    # 20 or more passes the Shield: the doubled sphere sum (3 x 5 x 2 = 30) beats Big Ball (25).
    best, damage = stop(shielded, three)
    assert best.option.name == "sum" and damage == 30
    assert not best.shielded
    # An invulnerable card's sphere passes the Shield.
    holy = (CardCombo("Holy", (SP, SP), 12, invulnerable=True),)
    best, damage = stop(shielded, sphere, holy)
    assert best.option.name == "Holy" and damage == 12
    mirror = fighter("M", ability=ability(AbilityKind.REFLECT_SPHERE))
    best, damage = stop(mirror, three)  # every option holds a sphere: nothing lands
    assert damage == 0 and best.reflected
    giant = fighter("G", divisor=2)
    assert stop(giant, three)[1] == 15  # doubled sum 30 / 2


def test_solar_flare_below_ten_means_nothing_lands() -> None:
    attacker = fighter(power=3)
    gohan = fighter("Gohan", endurance=30, ability=ability(AbilityKind.SOLAR_FLARE))
    adv = Advisor(attacker, 0, gohan, 21)  # 9 left: it flees
    assert adv.start_value() == (0.0, 0.0)
    adv = Advisor(attacker, 0, gohan, 20)  # 10 left: it stays
    assert adv.start_value()[0] > 0


def test_no_defence_dice_denies_the_dodge() -> None:
    defender = fighter("D", dodge=1, endurance=99)
    plain = AttackValuer(fighter(power=3), defender)
    denier = AttackValuer(fighter(power=3, ability=ability(AbilityKind.NO_DEFENCE_DICE)), defender)
    t = tables(TOURNAMENT_DIE, 3)
    i = t.state_index[(2, 0, 0, 0, 0, 1)]  # kick kick teleport: Double Kick 12
    normal_plain = plain.stop_option(plain.stop_table(t, 2), i)
    normal_denied = denier.stop_option(denier.stop_table(t, 2), i)
    assert normal_plain.speed is AttackSpeed.NORMAL
    assert normal_plain.p_land == pytest.approx(1 - plain.dodge)
    assert normal_denied.p_land == 1.0
    # A card that allows no defence also lands at normal speed.
    v = AttackValuer(fighter(power=3), defender, 0, CARDS)
    ii = t.state_index[(1, 1, 0, 1, 0, 0)]
    ov = v.stop_option(v.stop_table(t, 2), ii)
    assert ov.option.name == "Unstoppable" and ov.p_land == 1.0


def test_elimination_counts_form_cost_and_the_variant() -> None:
    attacker = fighter(power=3)
    kk = (K, K, T)  # Double Kick 12
    # Endurance 20, 8 taken: 12 reaches 20 -> eliminated by default, not with the variant.
    d = fighter("D", endurance=20)
    base = Advisor(attacker, 0, d, 8).advise(kk, 0)
    strict = Advisor(
        attacker, 0, d, 8, variants=Variants(eliminate_only_when_exceeded=True)
    ).advise(kk, 0)
    stop_b = next(c for c in base.choices if c.action is DiceAction.STOP)
    stop_s = next(c for c in strict.choices if c.action is DiceAction.STOP)
    assert stop_b.p_eliminate == 1.0 and stop_s.p_eliminate == 0.0
    # A form's cost is charged at the end of the combat: 6 damage (12 / 2) + 7 taken + 2 cost >= 15.
    g = fighter("G", endurance=15, divisor=2, cost=2)
    stop_g = next(
        c for c in Advisor(attacker, 0, g, 7).advise(kk, 0).choices if c.action is DiceAction.STOP
    )
    assert stop_g.p_eliminate == 1.0 and stop_g.expected_damage == 6.0


def test_among_equal_options_the_one_not_reflected_is_cashed_in() -> None:
    """Against a Mirror, a sphere combo made of stars is worth nothing, nor is a sum without
    an attack symbol: the scalar path cashes in the sum, as the table does, not the sphere
    that comes back."""
    attacker = fighter(combos=(Combo("Ball", (SP, SP), 19),))
    mirror = fighter("Mirror", ability=ability(AbilityKind.REFLECT_SPHERE))
    stars = (0, 0, 0, 0, 2, 1)  # star star teleport: Ball (stars wild) or a sum of 0
    t = tables(TOURNAMENT_DIE, 3)
    for objective in (Objective.KO, Objective.DAMAGE):
        v = AttackValuer(attacker, mirror, 0, objective=objective)
        for m in range(3):
            table = v.stop_table(t, m)
            chosen = v.stop_option(table, t.state_index[stars])
            scalar = v.best_option(stars, table.speed)
            assert {o.name for o in v.scorer.score_counts(stars).options} == {"Ball", "sum"}
            assert (scalar.option.name, scalar.reflected) == ("sum", False)
            assert scalar.option == chosen.option


def test_a_form_cost_that_eliminates_counts_even_if_the_attack_is_dodged() -> None:
    """The defender pays its form's cost at the end of the combat whatever the attack does
    (docs/rules.md §6, §7): 13 taken + 2 cost on 15 endurance is out, dodge or not, with
    the attacker's risk left out (``advise --no-risk``) as with it."""
    attacker = fighter(power=3)
    g = fighter("G", endurance=15, divisor=2, cost=2, dodge=1)
    kk = (K, K, T)  # Double Kick 12
    for (damage_taken, p_out), risk in product(((13, 1.0), (12, None)), (False, True)):
        advice = Advisor(attacker, 0, g, damage_taken, risk=risk).advise(kk, 2)  # a dodge
        stop = next(c for c in advice.choices if c.action is DiceAction.STOP)
        assert stop.option is not None and stop.option.p_land < 1.0
        if p_out is None:  # 12 + 2 < 15: out only when the 6 lands
            assert stop.p_eliminate == pytest.approx(stop.option.p_land)
        else:
            assert stop.p_eliminate == p_out


def test_options_of_equal_value_are_cashed_in_alike_on_both_paths() -> None:
    """Two combos of the same damage made by one throw: the table picks the one the scalar
    path picks (the first the scorer lists), whatever the objective and the speed."""
    attacker = fighter(
        power=4, combos=(Combo("Kick Kick", (K, K), 15), Combo("Punch Punch", (P, P), 15))
    )
    t = tables(TOURNAMENT_DIE, 4)
    i = t.state_index[(2, 2, 0, 0, 0, 0)]  # kick kick punch punch: both combos (the sum: 14)
    for defender in (None, fighter("Tank", endurance=99)):
        v = AttackValuer(attacker, defender, 0, objective=Objective.KO)
        for m in range(3):
            table = v.stop_table(t, m)
            scalar = v.best_option(t.states[i], table.speed)
            assert scalar.option.name == "Kick Kick"
            assert v.stop_option(table, i).option == scalar.option


def test_an_invulnerable_cards_sphere_is_not_reflected() -> None:
    """A Mirror reflects a sphere combo, not an invulnerable card's (docs/rules.md §8): the
    card lands in full, as the rules engine resolves it."""
    mirror = fighter("Mirror", ability=ability(AbilityKind.REFLECT_SPHERE), endurance=40)
    holy = CARDS[2]  # Holy Sphere: sphere + star, 18, invulnerable
    v = AttackValuer(fighter(power=3), mirror, 0, (holy,))
    throw = (SP, STAR, K)
    ov = v.best_option(counts_of(throw), AttackSpeed.LIGHTNING)
    res = resolve_attack(fighter(power=3), 0, mirror, 0, 40, Attack((throw,), "Holy Sphere"),
                         (holy,))  # fmt: skip
    assert not res.reflected and res.damage_dealt == 18
    assert ov.option.name == "Holy Sphere" and not ov.reflected
    assert (ov.damage, ov.expected) == (18, 18.0)


def test_at_normal_speed_the_defender_takes_the_better_of_a_card_and_its_dodge() -> None:
    """With cards assumed to stop the attack 90% of the time, a dodge (about 1 in 3 here)
    is not what the defender answers with: the attack lands 10% of the time."""
    defender = fighter("D", dodge=2, endurance=99)
    likely = AttackValuer(fighter(power=3), defender, 0, card_defence=CardStopOdds(0.9))
    unlikely = AttackValuer(fighter(power=3), defender, 0, card_defence=CardStopOdds(0.1))
    kk = Option(OptionKind.COMBO, "Double Kick", 12, False, False)
    assert 0.1 < likely.dodge < 0.9
    assert likely.value(kk, AttackSpeed.NORMAL).p_land == pytest.approx(0.1)
    assert unlikely.value(kk, AttackSpeed.NORMAL).p_land == pytest.approx(1 - unlikely.dodge)


def test_without_the_sum_only_what_the_engine_offers_is_cashed_in() -> None:
    """``sum_allowed`` False: a throw making a combo cashes in a combo (rules.scoring.cashable),
    even when that combo is worth less than nothing (a sphere a Mirror sends back, that may
    knock the attacker out) and the no-combo option would be worth more."""
    attacker = fighter(endurance=20, combos=(Combo("Ball", (SP, SP), 19),))
    mirror = fighter("Mirror", ability=ability(AbilityKind.REFLECT_SPHERE))
    v = AttackValuer(attacker, mirror, 0, sum_allowed=False, risk=True, attacker_damage=10)
    t = tables(TOURNAMENT_DIE, 3)
    ball = t.state_index[(0, 0, 2, 0, 0, 1)]  # sphere sphere teleport
    for m in range(3):
        table = v.stop_table(t, m)
        assert v.stop_option(table, ball).option.name == "Ball"
        for i, c in enumerate(t.states):
            offered = cashable(v.scorer.score_counts(c).options, sum_allowed=False)
            assert v.stop_option(table, i).option in offered
