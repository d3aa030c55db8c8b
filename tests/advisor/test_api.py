"""The Python API the table loop calls: Advisor, Advice, the one-line summary, parsing."""

from __future__ import annotations

import re
from itertools import pairwise

import pytest

from controller.advisor import (
    Advice,
    Advisor,
    AdvisorInputError,
    CardDefenceSpecError,
    CardSpecError,
    CardStopOdds,
    Choice,
    DiceAction,
    Objective,
    odds,
    parse_card_spec,
    parse_card_specs,
    summary_line,
)
from controller.advisor.advisor import _chance
from controller.advisor.odds import planner_row
from controller.core.errors import InvalidThrowError
from controller.rules.scoring import CardDefence
from tests.advisor.helpers import SP, ST, STAR, K, P, T, fighter


def test_advice_lists_stop_and_every_proper_keep_best_first() -> None:
    adv = Advisor(fighter(power=3, technique=2), 0, fighter("D", endurance=20), 0)
    advice = adv.advise((K, P, STAR), 0)
    assert advice.choices[0] is advice.best
    # K P STAR: 2^3 - 1 = 7 proper keeps, plus stop.
    assert len(advice.choices) == 8
    assert sum(c.action is DiceAction.STOP for c in advice.choices) == 1
    keeps = {c.keep for c in advice.choices if c.action is DiceAction.REROLL}
    assert () in keeps and (K, P) in keeps
    for c in advice.choices:
        assert sorted([*c.keep, *c.reroll]) == sorted((K, P, STAR))
    assert advice.rerolls_left == 2
    # No rerolls left: stopping is the only choice.
    last = adv.advise((K, P, STAR), 2)
    assert [c.action for c in last.choices] == [DiceAction.STOP]


def test_solution_is_reused_within_an_attack() -> None:
    adv = Advisor(fighter(power=4), 0, fighter("D"), 0)
    adv.advise((K, K, P, T), 0)
    sol = adv.solution()
    adv.advise((SP, SP, P, T), 1)
    assert adv.solution() is sol


def test_bad_throws_raise_invalid_throw() -> None:
    adv = Advisor(fighter(power=3, technique=2))
    with pytest.raises(InvalidThrowError, match="throws 3 dice"):
        adv.advise((K, P), 0)
    with pytest.raises(InvalidThrowError, match=r"0\.\.2"):
        adv.advise((K, P, T), 3)
    with pytest.raises(InvalidThrowError):
        adv.advise((K, P, T), -1)
    with pytest.raises(AdvisorInputError):
        Advisor(fighter(), -1)
    with pytest.raises(AdvisorInputError):
        Advisor(fighter(), pool=7)
    with pytest.raises(AdvisorInputError):
        Advisor(fighter(), 0, fighter("D"), attacker_damage=-1)


def test_summary_line_and_structured_summary() -> None:
    adv = Advisor(fighter(power=3, technique=2), 0, fighter("D", endurance=20), 0)
    advice = adv.advise((K, STAR, T), 0)
    line = summary_line(advice)
    s = advice.summary()
    assert s.action is advice.best.action and s.keep == advice.best.keep
    assert re.fullmatch(r"(keep \S+|reroll all|stop: .+ \d+) · P\(KO\) \d+% · E \d+", line), line
    if s.action is DiceAction.REROLL and s.keep:
        assert line.startswith("keep ")
    named = summary_line(advice, None)
    assert "star" in named or "kick" in named or "reroll all" in named or "stop" in named
    # Keep-icons: a throw the advisor keeps, drawn with the icons given.
    icons = {sym: sym.value[0].upper() for sym in (K, P, SP, STAR, T)}
    # 12 endurance left: Double Kick kills at surprise speed too, so keep K K and try for more.
    kk = Advisor(fighter(power=3, technique=2), 0, fighter("D", endurance=12), 0).advise(
        (K, K, T), 0
    )
    assert kk.best.action is DiceAction.REROLL and kk.best.keep == (K, K)
    assert summary_line(kk, icons).startswith("keep KK · P(KO) ")
    # No defender: no P(KO) part.
    raw = Advisor(fighter(power=3, technique=0)).advise((K, K, T), 0)
    assert summary_line(raw) == "stop: Double Kick 12 · E 12"


def test_auto_objective_falls_back_to_damage_when_no_ko_is_possible() -> None:
    attacker = fighter(power=3, technique=2)
    tank = fighter("Tank", endurance=500)
    ko = Advisor(attacker, 0, tank, 0)
    dmg = Advisor(attacker, 0, tank, 0, objective=Objective.DAMAGE)
    assert ko.objective is Objective.KO
    assert ko.start_value()[1] == 0.0
    assert ko.start_value()[0] == pytest.approx(dmg.start_value()[0], abs=1e-9)


def test_ko_objective_trades_expected_damage_for_the_kill() -> None:
    """Against 20 endurance left the KO policy may give up expected damage for P(KO)."""
    attacker = fighter(power=3, technique=2)
    d = fighter("D", endurance=20, dodge=3)
    ko = Advisor(attacker, 0, d, 0, objective=Objective.KO).start_value()
    dmg = Advisor(attacker, 0, d, 0, objective=Objective.DAMAGE).start_value()
    assert ko[1] is not None and dmg[1] is not None
    assert ko[1] >= dmg[1] - 1e-12
    assert dmg[0] >= ko[0] - 1e-12


def test_parse_card() -> None:
    c = parse_card_spec("Final Flash:sphere+sphere+punch:35:none:invulnerable")
    assert c.name == "Final Flash" and c.symbols == (SP, SP, P) and c.damage == 35
    assert c.defence is CardDefence.NONE and c.invulnerable
    assert parse_card_spec("Rush:kick+kick:10").defence is CardDefence.ANY
    for bad in ("Rush", "Rush:kick", ":kick:3", "Rush:kick:x", "Rush:kick:3:maybe", "Rush:kick:-1"):
        with pytest.raises(CardSpecError):
            parse_card_spec(bad)
    with pytest.raises(InvalidThrowError, match=r"^card 'Rush:kik:3': unknown symbol 'kik'"):
        parse_card_spec("Rush:kik:3")
    # held to the data files' rules for a card (controller/gamedata/combo_symbols.py)
    for bad, why in (("Rush:kick+star:3", "a combo cannot ask for a star"),
                     ("Rush:" + "+".join(["kick"] * 7) + ":3", "7 symbols, but a pool never"),
                     ("Rush:kick:201", "damage must be within 0..200"),
                     ("Rush:kick:" + "9" * 30, "damage must be within 0..200")):  # fmt: skip
        with pytest.raises(CardSpecError, match=why):
            parse_card_spec(bad)
    with pytest.raises(CardSpecError, match=r"^card 'rush :punch:2': a card of that name is"):
        parse_card_specs(["Rush:kick:3", "rush :punch:2"])


def test_card_defence_parse() -> None:
    assert CardStopOdds.parse("none").p == 0.0
    assert CardStopOdds.parse("p=0.3").p == pytest.approx(0.3)
    assert str(CardStopOdds.parse("0.25")) == "p=0.25"
    assert CardStopOdds.parse("p=1").p == 1.0  # cards always stop: both ends are chances
    for bad in ("p=x", "p=1.5", "-0.1"):
        with pytest.raises(CardDefenceSpecError):
            CardStopOdds.parse(bad)


def test_odds_forward_distribution_matches_the_dp() -> None:
    o = odds(fighter(power=4, technique=2))
    assert sum(p for _, _, p in o.cash_in) == pytest.approx(1.0)
    chances = [p for _, _, p in o.cash_in]  # the likeliest first (review tests2 a08)
    assert len(chances) > 1 and chances == sorted(chances, reverse=True)
    assert sum(p for _, p in o.damage) == pytest.approx(1.0)
    assert sum(d * p for d, p in o.damage) == pytest.approx(o.expected_damage)
    assert len(o.rerolls_used) == 3 and sum(o.rerolls_used) == pytest.approx(1.0)
    assert [d for d, _ in o.damage] == sorted({d for d, _ in o.damage})  # by damage
    # More dice never lower the expected damage.
    assert odds(fighter(power=4, technique=2), pool=5).expected_damage > o.expected_damage


def test_a_chance_never_passes_one_by_a_rounding() -> None:
    # a demo game's throw (Hit against Ganos, the bundled data): P(KO) summed to
    # 1.0000000000000002, which the screens' state file refuses as no chance (on another
    # machine, 0.9999999999999999: the sum's last bit differs from machine to machine)
    from tests.game.helpers import demo_data

    data = demo_data()
    adv = Advisor(
        data.fighter("Hit", None), defender=data.fighter("Ganos", None), pool=6, rerolls=3,
        die=data.die,
    )  # fmt: skip
    advice = adv.advise((STAR, SP, P, ST, STAR, STAR), 0)
    assert advice.best.p_eliminate == pytest.approx(1.0, abs=1e-12)  # a sure KO
    for c in advice.choices:
        assert c.p_eliminate is not None and 0 <= c.p_eliminate <= 1
        assert c.p_attacker_eliminated is not None and 0 <= c.p_attacker_eliminated <= 1


def test_choices_after_the_best_are_ranked_by_the_objective() -> None:
    """Best first, then every other choice from the best value to the worst (P(KO), then
    expected damage); ``rerolls_left`` counts down with the rerolls made."""
    adv = Advisor(fighter(power=4, technique=2), 0, fighter("D", endurance=20, dodge=2), 0)
    for made in (0, 1):
        advice = adv.advise((K, K, SP, T), made)
        assert advice.rerolls_left == 2 - made
        keys = [adv.valuer.key_pair(c.expected_damage, c.p_eliminate) for c in advice.choices]
        assert len(keys) > 3 and len(set(keys)) > 3
        for a, b in pairwise(keys[1:]):
            assert a[0] >= b[0] - 1e-9


def test_a_divided_attack_shows_the_options_damage_and_what_lands() -> None:
    """Against a form of divisor 2: Double Kick is 12 on the screen and in ``cash_in.damage``,
    6 is what lands (``damage_if_landed``, the expected damage)."""
    giant = fighter("Giant", endurance=40, divisor=2)
    advice = Advisor(fighter(power=3, technique=0), 0, giant, 0).advise((K, K, T), 0)
    assert advice.best.action is DiceAction.STOP
    s = advice.summary()
    assert (s.option, s.option_damage, s.expected_damage) == ("Double Kick", 12, 6.0)
    assert summary_line(advice).startswith("stop: Double Kick 12 · P(KO) 0% · E 6")
    cash = advice.to_json()["best"]["cash_in"]  # type: ignore[index]
    assert (cash["damage"], cash["damage_if_landed"]) == (12, 6)


def _advice(taken: float, own_ko: float | None) -> Advice:
    c = Choice(DiceAction.REROLL, (), (K, K, K), 10.0, 0.5, None, taken, own_ko)
    return Advice((c,), c, Objective.KO, 3, 0, 2)


def test_the_summary_line_shows_what_comes_back_when_it_shows_a_number() -> None:
    """``back N`` when the expected damage taken rounds to 1 or more (0.5 rounds to 0 on the
    screen: no "back 0"), ``own KO X%`` from 0.5%."""
    assert summary_line(_advice(0.0, 0.0)) == "reroll all · P(KO) 50% · E 10"
    assert summary_line(_advice(0.5, 0.004)) == "reroll all · P(KO) 50% · E 10"
    assert summary_line(_advice(0.51, 0.006)) == (
        "reroll all · P(KO) 50% · E 10 · back 1 · own KO 1%"
    )
    assert summary_line(_advice(3.2, 0.04)).endswith(" · back 3 · own KO 4%")
    assert summary_line(_advice(3.2, None)).endswith(" · back 3")


def test_a_chance_is_kept_within_zero_and_one() -> None:
    for x, want in ((1.0000000000000002, 1.0), (-1e-17, 0.0), (0.25, 0.25)):
        assert _chance(x) == want


def test_the_planner_row_is_the_cards_pool_and_rerolls() -> None:
    """No support die, no defender: power dice (3) and technique rerolls (2); the same
    technique rerolls for its dodge."""
    row = planner_row(fighter(power=3, technique=2))
    assert (row.pool, row.rerolls, row.dodge_pool, row.dodge_rerolls) == (3, 2, 3, 2)
    assert row.expected_damage == pytest.approx(odds(fighter(power=3, technique=2)).expected_damage)
