"""What comes back to the attacker: reflected spheres and counter-attacks.

The exact values are checked against whole combats played through the rules' combat
sequence (:func:`controller.advisor.simulate.simulate_combat` calls
:func:`controller.rules.combat.resolve_combat`): 10^5 combats per case here, a tolerance
of 5 standard errors (the bench runs 10^6).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from itertools import combinations_with_replacement

import numpy as np
import pytest

from controller.advisor.advisor import Advisor, Choice, DiceAction, summary_line
from controller.advisor.counter import CounterModel
from controller.advisor.dp import evaluate
from controller.advisor.multisets import tables
from controller.advisor.simulate import simulate_combat
from controller.advisor.values import AttackValuer, Objective
from controller.core.symbols import AttackSpeed, Symbol
from controller.rules.attack import resolve_attack
from controller.rules.combat import resolve_combat
from controller.rules.combat_types import Attack, CombatInput, Side
from controller.rules.dice import TOURNAMENT_DIE, Die, dice_of
from controller.rules.scoring import Option, OptionKind, symbol_sum
from controller.rules.variants import Variants
from controller.rules.warriors import AbilityKind, Combo, Fighter
from tests.advisor.helpers import SP, K, P, T, ability, fighter

ATTEMPTS = 100_000
# a die heavy in spheres: all-sphere throws (a doubled sum holding spheres) are common,
# so reflected spheres happen under optimal play too
SPHERES = Die("spheres", (SP, SP, SP, SP, K, T))


def _check(adv: Advisor, seed: int, attempts: int = ATTEMPTS) -> None:
    sample = simulate_combat(adv, attempts, seed)
    exact = adv.start_values()
    rows = (
        (exact.expected_damage, sample.dealt),
        (exact.p_eliminate, sample.defender_out.astype(np.float64)),
        (exact.expected_taken, sample.taken),
        (exact.p_attacker_eliminated, sample.attacker_out.astype(np.float64)),
    )
    for x, sim in rows:
        assert x is not None
        se = sim.std() / np.sqrt(attempts)
        assert abs(sim.mean() - x) < 5 * se + 1e-9, (sim.mean(), x, se)


def counter_case(**kw: object) -> Advisor:
    """An attacker low on endurance against a defender that counter-attacks."""
    return Advisor(
        fighter("Striker", power=4, technique=2, endurance=30),
        0,
        fighter("Hitback", power=4, technique=2, endurance=30, ability=ability(
            AbilityKind.COUNTER_ATTACK)),
        8,
        attacker_damage=18,
        **kw,  # type: ignore[arg-type]
    )  # fmt: skip


@pytest.mark.timeout(120)
def test_counter_attack_matches_the_combat_sequence() -> None:
    adv = counter_case()
    exact = adv.start_values()
    assert exact.expected_taken > 0.5 and (exact.p_attacker_eliminated or 0.0) > 0.02
    _check(adv, seed=3)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("variant", ["dodge_needs_every_die", "support_for_attack_only"])
def test_a_combat_under_a_variant_matches_the_combat_sequence(variant: str) -> None:
    """Review diff19 f01: the check threw its dodges under the default rules whatever the
    game's variants (every die a teleport: no dodge was ever made, z 127; support for
    attacks only: a throw of more dice than the pool, refused by the rules)."""
    _check(counter_case(variants=Variants.from_names([variant]), defender_support=1), seed=5,
           attempts=40_000)  # fmt: skip


@pytest.mark.timeout(120)
def test_reflected_sphere_matches_the_combat_sequence() -> None:
    adv = Advisor(
        fighter("Sphere Man", power=3, technique=1, endurance=20, combos=(
            Combo("Sphere Punch", (SP, P), 14),)),
        0,
        fighter("Mirror", power=2, technique=1, endurance=40,
                ability=ability(AbilityKind.REFLECT_SPHERE)),
        0,
        attacker_damage=5,
        die=SPHERES,
    )  # fmt: skip
    exact = adv.start_values()
    assert exact.expected_taken > 1.0 and (exact.p_attacker_eliminated or 0.0) > 0.01
    _check(adv, seed=4)


@pytest.mark.timeout(120)
def test_counter_reflected_back_and_forms_match_the_combat_sequence() -> None:
    """The attacker reflects the counter's spheres; both sides in forms (divisor, cost)."""
    a = fighter("Mirror Striker", power=3, technique=2, endurance=30, divisor=2, cost=1,
                combos=(Combo("Kick Kick", (K, K), 12),),
                ability=ability(AbilityKind.REFLECT_SPHERE))  # fmt: skip
    d = fighter("Hitback", power=3, technique=2, endurance=24, divisor=2, cost=2,
                ability=ability(AbilityKind.COUNTER_ATTACK))  # fmt: skip
    adv = Advisor(a, 0, d, 10, attacker_damage=12, die=SPHERES)
    assert adv.counter is not None and adv.counter.reflects
    _check(adv, seed=5)


@pytest.mark.timeout(120)
def test_a_reflected_counter_under_every_die_a_teleport_matches_the_combat_sequence() -> None:
    """The attacker reflects the counter's spheres, and the counter-attacker dodges them
    under B's "as many teleports as dice": that dodge is the variant's (all 3 dice), not
    the card's number (one die: a dodge ten times likelier than the game allows)."""
    a = fighter("Mirror Striker", power=3, technique=2, endurance=30,
                combos=(Combo("Kick Kick", (K, K), 12),),
                ability=ability(AbilityKind.REFLECT_SPHERE))  # fmt: skip
    d = fighter("Hitback", power=3, technique=2, endurance=24, dodge=1,
                ability=ability(AbilityKind.COUNTER_ATTACK))  # fmt: skip
    every = Variants(dodge_needs_every_die=True)
    adv = Advisor(a, 0, d, 10, attacker_damage=12, die=SPHERES, variants=every)
    assert adv.counter is not None and adv.counter.reflects
    _check(adv, seed=6)


def test_without_anything_coming_back_the_values_are_the_old_ones() -> None:
    attacker = fighter(power=4, technique=2)
    for d in (
        fighter("Plain", endurance=25),
        fighter("Shielded", ability=ability(AbilityKind.SHIELD)),
        fighter("Giant", divisor=2, cost=2, endurance=20),
    ):
        on = Advisor(attacker, 0, d, 5)
        off = Advisor(attacker, 0, d, 5, risk=False)
        assert on.start_values() == pytest.approx(off.start_values())
        throw = (K, K, P, SP)
        for a, b in zip(on.advise(throw, 0).choices, off.advise(throw, 0).choices, strict=True):
            assert (a.keep, a.action) == (b.keep, b.action)
            assert a.expected_damage == pytest.approx(b.expected_damage)
            assert a.p_eliminate == pytest.approx(b.p_eliminate)
            assert a.expected_taken == 0.0 and a.p_attacker_eliminated == 0.0


def test_the_switch_off_leaves_risk_out() -> None:
    adv = counter_case(risk=False)
    assert adv.counter is None and not adv.risky
    s = adv.start_values()
    assert s.expected_taken == 0.0 and s.p_attacker_eliminated == 0.0
    assert adv.start_values().expected_damage == pytest.approx(
        counter_case().start_values().expected_damage, abs=2.0
    )


def test_reflected_option_value_follows_the_rules() -> None:
    """A reflected sphere: nothing to the defender; the attacker takes the rules' damage
    unless its exact dodge succeeds."""
    a = fighter("Sphere Man", power=3, technique=1, endurance=20, divisor=2)
    d = fighter("Mirror", ability=ability(AbilityKind.REFLECT_SPHERE))
    v = AttackValuer(a, d, 0, risk=True, attacker_damage=10)
    opt = Option(OptionKind.COMBO, "Sphere Punch", 20, False, True)
    ov = v.value(opt, AttackSpeed.NORMAL)
    throws = ((SP, P, P),)
    r = resolve_attack(a, 0, d, 0, 30, Attack(throws, "Sphere Punch"))
    assert ov.reflected and ov.expected == 0.0 and r.damage_reflected == 10
    assert ov.taken == pytest.approx((1.0 - v.reflect_dodge) * r.damage_reflected)
    assert ov.p_attacker_ko == pytest.approx(1.0 - v.reflect_dodge)  # 10 + 10 >= 20
    assert 0.0 < v.reflect_dodge < 1.0


def test_no_counter_once_the_defender_is_down_or_flees() -> None:
    adv = counter_case()
    v = adv.valuer
    big = Option(OptionKind.COMBO, "Big", 40, False, False)
    small = Option(OptionKind.COMBO, "Small", 2, False, False)
    ko = v.value(big, AttackSpeed.LIGHTNING)  # lands, the defender is down: nothing comes back
    assert ko.p_eliminate == 1.0 and ko.taken == 0.0 and ko.p_attacker_ko == 0.0
    hit = v.value(small, AttackSpeed.LIGHTNING)  # lands, the defender strikes back
    assert hit.taken > 0.0 and hit.p_attacker_ko > 0.0
    assert adv.counter is not None
    e, p, _, _ = adv.counter.outcome(18, 10)
    assert (hit.taken, hit.p_attacker_ko) == pytest.approx((e, p))
    flee = Advisor(
        fighter("Striker", power=4), 0,
        fighter("Flare", endurance=12, ability=ability(AbilityKind.SOLAR_FLARE)), 5,
        attacker_damage=10,
    )  # fmt: skip
    assert flee.start_values().expected_taken == 0.0


def test_risk_changes_the_advice() -> None:
    """Maximising expected damage against a counter-attacker: the risk-aware policy's expected
    net damage beats that of the policy ignoring the counter (valued with the counter).

    (Under the KO objective a counter-attack changes the numbers but hardly the ranking: it
    comes exactly when the defender still stands, so P(KO) - P(own KO) grows with P(KO).)
    """

    def build(risk: bool) -> Advisor:
        return Advisor(
            fighter("Striker", power=4, technique=2, endurance=30), 0,
            fighter("Hitback", power=4, technique=2, endurance=30,
                    ability=ability(AbilityKind.COUNTER_ATTACK)), 12,
            attacker_damage=18, objective=Objective.DAMAGE, risk=risk,
        )  # fmt: skip

    on, off = build(True), build(False)
    t = on.tables

    def off_stop(m: int) -> np.ndarray:  # type: ignore[type-arg]
        table = off.valuer.stop_table(t, m)
        out = np.zeros((t.n_states, 1))
        for s in range(t.n_states):
            ov = off.valuer.stop_option(table, s)
            v = on.valuer.value(ov.option, ov.speed)
            out[s, 0] = v.expected - v.taken
        return out

    values, _ = evaluate(off.solution(), off_stop)
    off_net = float(t.first_throw @ values[0][:, 0])
    s = on.start_values()
    on_net = s.expected_damage - s.expected_taken
    assert on_net > off_net + 0.1, (on_net, off_net)


@pytest.mark.parametrize("star_double", [False, True])
def test_vector_symbol_sum_equals_the_rules(star_double: bool) -> None:
    variants = Variants(star_counts_for_double=star_double)
    a = fighter(power=4)
    v = AttackValuer(a, None, 0, (), variants)
    for pool in (1, 3, 5):
        t = tables(TOURNAMENT_DIE, pool)
        cols = v._columns(t)
        for i, c in enumerate(t.states):
            total, doubled = symbol_sum(c, a.value_vector(), variants)
            o = cols.sum_options[int(cols.sum_code[i])]
            assert (o.damage, o.doubled) == (total, doubled), dice_of(c)
            assert o.holds_sphere == (doubled and c[list(Symbol).index(SP)] > 0)


def test_choice_json_and_summary_line_show_the_risk() -> None:
    adv = counter_case()
    advice = adv.advise((K, K, P, T), 1)
    j = advice.to_json()
    best = j["best"]
    assert isinstance(best, dict)
    for key in ("expected_taken", "expected_net", "p_attacker_eliminated"):
        assert key in best
    assert json.dumps(j)
    risky = [c for c in advice.choices if (c.p_attacker_eliminated or 0) >= 0.005]
    assert risky
    line = summary_line(advice, None)
    b = advice.best
    if (b.p_attacker_eliminated or 0) >= 0.005:
        assert "own KO" in line
    assert b.expected_net == pytest.approx(b.expected_damage - b.expected_taken)
    assert advice.summary().expected_taken == b.expected_taken
    assert any(c.action is DiceAction.STOP for c in advice.choices)


def test_objective_damage_maximises_net_damage() -> None:
    adv = counter_case(objective=Objective.DAMAGE)
    advice = adv.advise((K, K, P, T), 0)
    nets = [c.expected_net for c in advice.choices]
    assert advice.best.expected_net == pytest.approx(max(nets))


def test_a_counter_attacker_its_form_cost_eliminates_is_counted_out() -> None:
    """A defender in a form strikes back while it stands, then pays its form's cost at the
    end of the combat (docs/rules.md §6, §8): 28 taken + 2 cost on 30 endurance is out."""
    adv = Advisor(
        fighter("Striker", power=4, technique=2, endurance=30), 0,
        fighter("Hitback", power=4, technique=2, endurance=30, divisor=2, cost=2,
                ability=ability(AbilityKind.COUNTER_ATTACK)), 27,
    )  # fmt: skip
    small = Option(OptionKind.COMBO, "Small", 2, False, False)  # 1 after the divisor: 28
    hit = adv.valuer.value(small, AttackSpeed.LIGHTNING)
    assert hit.taken > 0.0  # it struck back
    assert hit.p_eliminate == 1.0


def mirror_case(**kw: object) -> Advisor:
    """An attacker whose reflected spheres knock it out, against a Mirror it may knock out."""
    return Advisor(
        fighter("Sphere Man", power=3, technique=2, endurance=20, combos=(
            Combo("Sphere Punch", (SP, P), 14),)),
        0,
        fighter("Mirror", power=2, technique=1, endurance=40,
                ability=ability(AbilityKind.REFLECT_SPHERE)),
        25,
        attacker_damage=15,
        die=SPHERES,
        **kw,  # type: ignore[arg-type]
    )  # fmt: skip


@pytest.mark.parametrize("case", [counter_case, mirror_case])
def test_objective_ko_maximises_ko_minus_own_ko(case: Callable[..., Advisor]) -> None:
    """Under ``ko`` with something coming back the best choice has the greatest
    P(KO) - P(own KO), ties broken by expected net damage (the README's objective): against
    the Mirror a reroll that may knock it out, or end on spheres that come back and knock
    the attacker out, is not worth more than a sure stop of no knock-out at all."""
    adv = case(objective=Objective.KO)

    def ko(c: Choice) -> float:
        return (c.p_eliminate or 0.0) - (c.p_attacker_eliminated or 0.0)

    faces = sorted(set(adv.die.faces), key=list(Symbol).index)
    for throw in combinations_with_replacement(faces, adv.pool):
        for made in (0, 1):
            advice = adv.advise(throw, made)
            best = advice.best
            for c in advice.choices:
                assert ko(c) <= ko(best) + 1e-9, (throw, made, c)
                if ko(c) >= ko(best) - 1e-9:
                    assert c.expected_net <= best.expected_net + 1e-9


def test_the_attackers_own_form_cost_counts_at_the_end_of_the_combat() -> None:
    """An attacker in a form with 28 of 30 taken pays its cost 2 after the combat
    (docs/rules.md §6, §7): it is out whatever it throws, as the rules' combat says."""
    a = fighter("Striker", power=3, technique=1, endurance=30, divisor=2, cost=2)
    d = fighter("Plain", endurance=40)
    adv = Advisor(a, 0, d, 0, attacker_damage=28)
    assert adv.start_values().p_attacker_eliminated == pytest.approx(1.0)
    res = resolve_combat(CombatInput(
        Side(a.warrior, 28, form=a.form), Side(d.warrior, 0), Attack(((K, K, T),), "Double Kick")
    ))  # fmt: skip
    assert res.attacker.eliminated and not res.defender.eliminated
    assert Advisor(a, 0, d, 0, attacker_damage=27).start_values().p_attacker_eliminated == 0.0


def test_a_flight_still_charges_both_form_costs() -> None:
    """The defender flees with Solar Flare (5 left): nothing lands, no counter, but both
    warriors pay their forms' costs at the end of the combat and both are out here
    (27 + 3 >= 30, 28 + 2 >= 30), as the rules' combat sequence has it."""
    a = fighter("Striker", power=3, technique=1, endurance=30, divisor=2, cost=2)
    d = fighter("Flare", endurance=30, divisor=2, cost=3,
                ability=ability(AbilityKind.SOLAR_FLARE))  # fmt: skip
    adv = Advisor(a, 0, d, 27, attacker_damage=28)
    s = adv.start_values()
    assert (s.expected_damage, s.expected_taken) == (0.0, 0.0)
    assert (s.p_eliminate, s.p_attacker_eliminated) == (1.0, 1.0)
    res = resolve_combat(CombatInput(
        Side(a.warrior, 28, form=a.form), Side(d.warrior, 27, form=d.form),
        Attack(((K, K, T),), "Double Kick", flee=True),
    ))  # fmt: skip
    assert res.attacker.eliminated and res.defender.eliminated
    calm = Advisor(a, 0, d, 26, attacker_damage=27).start_values()  # 26 + 3, 27 + 2: both stay
    assert (calm.p_eliminate, calm.p_attacker_eliminated) == (0.0, 0.0)


ORBS = Die("orbs", (SP,) * 6)  # every die a sphere: every throw the same, nothing dodged


@pytest.mark.parametrize("variant", [False, True])
def test_a_counter_reflected_back_by_the_rules_numbers(variant: bool) -> None:
    """A counter of three spheres (Orb, 35, the most raw damage of the options that all come
    back) reflected by the attacker: the counter-attacker, in a form of divisor 2, takes
    35 / 2 rounded up = 18 unless it dodges: never with no teleport on the die (dodge 1),
    always when it needs none (dodge 0). With 10 taken and its cost 2, 10 + 2 + 18 = 30
    reaches its 30 endurance: out, but not when it must be exceeded."""
    variants = Variants(eliminate_only_when_exceeded=variant)
    target = fighter("Mirror", power=3, endurance=30, ability=ability(AbilityKind.REFLECT_SPHERE))

    def striker(dodge: int) -> Fighter:
        return fighter("Hitback", power=3, technique=1, endurance=30, divisor=2, cost=2,
                       dodge=dodge, combos=(Combo("Orb", (SP, SP, SP), 35),),
                       ability=ability(AbilityKind.COUNTER_ATTACK))  # fmt: skip

    never = CounterModel(striker(1), 0, target, 0, variants, die=ORBS)
    assert never.back_dodge == 0.0
    e_target, p_target, e_back, p_out = never.outcome(0, 10)
    assert (e_target, p_target) == (0.0, 0.0)  # all of it came back
    assert e_back == pytest.approx(18.0)
    assert p_out == (0.0 if variant else 1.0)
    assert never.outcome(0, 9)[3] == 0.0  # 29 < 30
    always = CounterModel(striker(0), 0, target, 0, variants, die=ORBS)
    assert always.back_dodge == 1.0
    assert always.outcome(0, 10)[2:] == (0.0, 0.0)  # dodged: 10 + 2 < 30


def test_the_counter_has_the_rerolls_the_attackers_ability_leaves_it() -> None:
    """The attacker's *attacker has fewer rerolls* (1) holds against the counter-attack too:
    technique 2 leaves 1 reroll."""
    target = fighter("Slower", ability=ability(AbilityKind.ATTACKER_FEWER_REROLLS, 1))
    striker = fighter("Hitback", technique=2, ability=ability(AbilityKind.COUNTER_ATTACK))
    adv = Advisor(target, 0, striker, 0)
    assert adv.counter is not None and adv.counter.rerolls == 1
    assert adv.counter.solved(0)[1].last == 1


def test_a_reflecting_defender_is_risky() -> None:
    mirror = fighter("Mirror", ability=ability(AbilityKind.REFLECT_SPHERE))
    assert Advisor(fighter(), 0, mirror).risky
    assert not Advisor(fighter(), 0, mirror, risk=False).risky
    assert not Advisor(fighter(), 0, fighter("Plain")).risky
