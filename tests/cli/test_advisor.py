"""``toptable advise`` and ``toptable odds``: output, JSON shape, errors (exit 2, one line)."""

from __future__ import annotations

import json

import pytest

from tests.cli_runner import Run, cli_runner


@pytest.fixture
def run(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Run:
    """``toptable`` with only the advisor's commands registered."""
    return cli_runner(monkeypatch, capsys, "controller.cli.advisor")


ADVISE = ("advise", "--warrior", "Anilaza", "--support", "1", "--rerolls-made", "0")
DICE = ("--dice", "kick,kick,sphere,star,punch,teleport")


def test_advise_json_shape(run) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run(
        *ADVISE, *DICE, "--defender", "Son Goku", "--defender-damage", "5",
        "--cards", "Kamehameha:sphere+sphere+punch:30", "Rush:kick+kick+kick+punch:28", "--json",
    )  # fmt: skip
    assert code == 0
    data = json.loads(out)
    assert set(data) >= {"choices", "best"}
    assert data["best"] == data["choices"][0]
    actions = [c["action"] for c in data["choices"]]
    assert actions.count("stop") == 1
    # 6 distinct-ish dice (kick x2): (3 * 2^4) - 1 proper keeps, plus stop.
    assert len(data["choices"]) == 3 * 2**4 - 1 + 1
    for c in data["choices"]:
        assert set(c) >= {"action", "keep", "expected_damage", "p_eliminate"}
        assert isinstance(c["expected_damage"], float) and 0 <= c["p_eliminate"] <= 1
    best = data["best"]
    assert all(
        (best["p_eliminate"], best["expected_damage"])
        >= (c["p_eliminate"], c["expected_damage"] - 1e-9)
        for c in data["choices"]
    )


def test_advise_without_defender_has_null_p_eliminate(run) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run(*ADVISE, *DICE, "--json")
    assert code == 0
    data = json.loads(out)
    assert all(c["p_eliminate"] is None for c in data["choices"])
    assert data["objective"] == "damage"


def test_advise_text_marks_the_best(run) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run(*ADVISE, "--dice", "kick", "kick", "sphere", "star", "punch", "teleport",
                       "--defender", "Cabba")  # fmt: skip
    assert code == 0
    lines = out.splitlines()
    # Anilaza's technique 4, minus 1 for Cabba's "attacker has 1 fewer reroll".
    assert lines[0].startswith("Anilaza: 6 dice, 3 rerolls left")
    assert any(line.startswith("  * ") for line in lines)
    assert "P(KO)" in out and "best:" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("advise", "--warrior", "Nobody", "--dice", "kick", "--rerolls-made", "0"), "unknown warrior"),
        (("advise", "--warrior", "Kefla", "--dice", "kick,kik,punch,star,star", "--rerolls-made", "0"),
         "unknown symbol 'kik'"),
        (("advise", "--warrior", "Kefla", "--dice", "kick,punch", "--rerolls-made", "0"),
         "Kefla throws 5 dice"),
        (("advise", "--warrior", "Kefla", "--dice", "kick,punch,star,star,star", "--rerolls-made", "5"),
         "5 rerolls made"),
        (("advise", "--warrior", "Kefla", "--dice", "kick,punch,star,star,star", "--rerolls-made", "1",
          "--cards", "bad:kick"), "expected NAME:SYM"),
        (("advise", "--warrior", "Kefla", "--dice", "kick,punch,star,star,star", "--rerolls-made", "1",
          "--card-defence", "p=2"), "0..1"),
        (("advise", "--warrior", "Kefla", "--dice", "kick,punch,star,star,star", "--rerolls-made", "1",
          "--defender", "Nobody"), "unknown warrior"),
        (("advise", "--warrior", "Kefla", "--dice", "kick,punch,star,star,star", "--rerolls-made", "1",
          "--defender", "Cabba", "--defender-damage", "21"),
         "--defender-damage: 21, but Cabba has 21 endurance: a warrior with that much damage is out"),
        (("advise", "--warrior", "Kefla", "--dice", "kick,punch,star,star,star", "--rerolls-made", "1",
          "--attacker-damage", "40"), "--attacker-damage: 40, but Kefla has 32 endurance"),
        (("odds", "Nobody"), "unknown warrior"),
        (("odds",), "name a warrior"),
        (("odds", "Kefla", "--pool", "7"), "1..6"),
    ],
)  # fmt: skip
def test_bad_input_exits_2_with_one_line(run, args, message) -> None:  # type: ignore[no-untyped-def]
    code, out, err = run(*args)
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1 and message in err


def test_odds_json_is_a_distribution(run) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run("odds", "Kefla", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["pool"] == 5 and data["rerolls"] == 3  # technique 3 (B l.143)
    assert sum(d["p"] for d in data["damage"]) == pytest.approx(1.0, abs=1e-5)
    assert sum(c["p"] for c in data["cash_in"]) == pytest.approx(1.0, abs=1e-5)
    mean = sum(d["damage"] * d["p"] for d in data["damage"])
    assert mean == pytest.approx(data["expected_damage"], abs=1e-4)
    assert sum(data["rerolls_used"]) == pytest.approx(1.0, abs=1e-5)


def test_odds_pool_and_text(run) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run("odds", "Kefla", "--pool", "3")
    assert code == 0
    assert out.startswith("Kefla: 3 dice")
    assert "damage distribution" in out


def test_odds_all_is_the_team_planner(run) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run("odds", "--all", "--json")
    assert code == 0
    rows = json.loads(out)
    names = {r["form"] or r["warrior"] for r in rows}
    assert {"Kefla", "Jiren", "Full Power Jiren"} <= names
    for r in rows:
        assert r["complete"]
        assert r["expected_damage"] > 0 and 0 <= r["p_dodge"] <= 1
    code, out, _ = run("odds", "--all")
    assert code == 0 and "P(dodge)" in out.splitlines()[1]


def test_the_team_planner_dodges_with_the_defence_pool(run) -> None:  # type: ignore[no-untyped-def]
    """The planner's dodge dice are the defence pool: Krillin's extra defence die counts,
    Toppo's extra attack die does not (docs/rules.md §4, §8)."""
    code, out, _ = run("odds", "--all", "--json")
    assert code == 0
    rows = {r["form"] or r["warrior"]: r for r in json.loads(out)}
    assert (rows["Krillin"]["pool"], rows["Krillin"]["dodge_pool"]) == (3, 4)
    assert (rows["Toppo"]["pool"], rows["Toppo"]["dodge_pool"]) == (6, 5)


def test_advise_damage_equal_to_endurance_under_the_variant(run) -> None:  # type: ignore[no-untyped-def]
    # eliminate_only_when_exceeded: 21 damage on Cabba's 21 endurance leaves him standing
    args = ("advise", "--warrior", "Kefla", "--dice", "kick,punch,star,star,star",
            "--rerolls-made", "1", "--defender", "Cabba", "--defender-damage", "21")  # fmt: skip
    code, _, err = run(*args, "--variant", "eliminate_only_when_exceeded")
    assert code == 0, err
    code, _, err = run(*args[:-1], "22", "--variant", "eliminate_only_when_exceeded")
    assert code == 2 and "expected 0..21" in err
