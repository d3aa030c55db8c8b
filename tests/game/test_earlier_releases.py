"""A game journalled by an earlier release replays as it was played (review 110).

``tests/data/journal/release-5f35d20-minutes45.sqlite`` is a 45-minute game of four bots
that ``toptable game play --seed 13 --length minutes45`` journalled under commit 5f35d20
(2026-11-26, before journals recorded their rules revision: revision 1); beside it, that
release's own ``game export --json`` of it. Its attack of Hit (6 dice) on Jimenez (*the
attacker has fewer dice*) was thrown with the die taken from the uncapped sum, as the
rules were played until 2026-11-30: the whole journal was refused at event 72.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from controller.cli.main import main
from controller.core.errors import InvalidThrowError
from controller.game import engine
from tests.paths import REPO

DATA = REPO / "tests" / "data" / "journal"


def test_a_revision_1_journal_exports_as_its_release_exported_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    journal = tmp_path / "journal.sqlite"
    shutil.copy(DATA / "release-5f35d20-minutes45.sqlite", journal)
    then: dict[str, Any] = json.loads(
        (DATA / "release-5f35d20-minutes45.export.json").read_text(encoding="utf-8")
    )
    assert main(["game", "export", "--json", str(journal)]) == 0
    now = json.loads(capsys.readouterr().out)
    assert {k: now[k] for k in then if k != "events"} == {
        k: v for k, v in then.items() if k != "events"
    }
    assert len(now["events"]) == len(then["events"]) == 349
    for old, new in zip(then["events"], now["events"], strict=True):
        assert {k: new[k] for k in old} == old  # the new export only adds fields


def test_a_journal_that_does_not_replay_says_which_and_what_to_do(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A throw of the wrong size met in a replay printed the engine's words alone (no
    journal named); a game begun under an earlier release's rules says what to do."""
    journal = tmp_path / "journal.sqlite"
    shutil.copy(DATA / "release-5f35d20-minutes45.sqlite", journal)

    def wrong_size(*_: object) -> None:
        raise InvalidThrowError("Hit throws 5 dice, the throw shows 6")

    monkeypatch.setattr(engine, "replay", wrong_size)
    assert main(["game", "check", str(journal)]) == 2
    assert capsys.readouterr().err == (
        f"toptable: error: {journal}: the journal does not replay: Hit throws 5 dice, the "
        "throw shows 6 (the game began under an earlier toptable's rules, revision 1; this "
        "one plays them otherwise: finish it with that release, or move the journal aside "
        "to start a new game)\n"
    )
