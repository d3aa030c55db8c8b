"""``toptable advise`` with what comes back: --attacker-damage, --no-risk, the risk columns."""

from __future__ import annotations

import json

import pytest

from tests.cli_runner import Run, cli_runner


@pytest.fixture
def run(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Run:
    """``toptable`` with only the advisor's commands registered."""
    return cli_runner(monkeypatch, capsys, "controller.cli.advisor")


ADVISE = (
    "advise", "--warrior", "Anilaza", "--support", "1", "--rerolls-made", "0",
    "--dice", "kick,kick,sphere,star,punch,teleport", "--defender", "Pirina",
    "--attacker-damage", "25",
)  # fmt: skip


def test_text_shows_the_risk_columns(run) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run(*ADVISE)
    assert code == 0
    assert "risk: Pirina counter-attacks; Anilaza has" in out
    assert "E back" in out and "own KO" in out
    assert "P(KO) - P(own KO)" in out


def test_json_has_both_sides(run) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run(*ADVISE, "--json")
    assert code == 0
    data = json.loads(out)
    assert data["risk"] is True and data["attacker_damage"] == 25
    assert any(c["p_attacker_eliminated"] > 0 for c in data["choices"])
    for c in data["choices"]:
        assert c["expected_net"] == pytest.approx(
            c["expected_damage"] - c["expected_taken"], abs=1e-5
        )


def test_no_risk_switch(run) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run(*ADVISE, "--no-risk", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["risk"] is False
    assert all(
        c["expected_taken"] == 0 and c["p_attacker_eliminated"] == 0 for c in data["choices"]
    )
    code, out, _ = run(*ADVISE, "--no-risk")
    assert "E back" not in out


def test_negative_attacker_damage_exits_2(run) -> None:  # type: ignore[no-untyped-def]
    code, out, err = run(*ADVISE[:-1], "-3")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
