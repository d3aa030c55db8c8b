"""Which game a journal holds, asked when the daemon resumes it: a file that is no journal,
or a damaged one, is named as what it is, not as "not a companion journal" (review 96)."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.companion.journal import CompanionJournal
from controller.core.errors import TopTableError
from controller.core.kinds import GameKind
from controller.daemon.journals import held_kind
from controller.game.journal import Journal

PAGE = 4096


def _damaged(path: Path) -> Path:
    """``path`` with every page after its first zeroed (its header says whose it is)."""
    data = path.read_bytes()
    assert len(data) > PAGE
    path.write_bytes(data[:PAGE] + bytes(len(data) - PAGE))
    return path


def _refusal(path: Path) -> str:
    with pytest.raises(TopTableError) as info:
        held_kind(path)
    return str(info.value)


def test_a_file_that_is_no_journal_is_not_called_a_companion_journal(tmp_path: Path) -> None:
    text = tmp_path / "notes.sqlite"
    text.write_text("what we played last week\n" * 100)
    assert _refusal(text) == f"{text}: not a toptable journal (file is not a database)"


def test_a_damaged_dice_journal_is_not_called_a_companion_journal(tmp_path: Path) -> None:
    path = tmp_path / "dice.sqlite"
    with Journal.create(path, {"mode": "tournament", "pad": "x" * 20_000}):
        pass
    said = _refusal(_damaged(path))
    assert said.startswith(f"{path}: ") and "companion" not in said


def test_a_damaged_companion_journal_is_said_as_one(tmp_path: Path) -> None:
    path = tmp_path / "tcg.sqlite"
    with CompanionJournal.start(path, GameKind.DBZ_TCG, ["A", "B"], {"pad": "x" * 20_000}):
        pass
    assert "damaged on disk" in _refusal(_damaged(path))  # the companion journal's own word
