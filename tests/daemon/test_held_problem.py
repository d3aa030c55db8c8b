"""``config check`` reads the game the config's journal holds (without writing) and says,
in one line naming ``[table] journal``, when ``toptable run`` would refuse it."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.config import parse_config
from controller.core.kinds import GameKind
from controller.daemon.held_problem import held_game_problem
from controller.daemon.journals import resume_or_start
from controller.storage.journal import JournalError
from controller.table.companion import CompanionTable

pytestmark = pytest.mark.timeout(60)


def test_a_companion_game_where_the_dice_game_is_kept_is_said_and_refused(
    tmp_path: Path,
) -> None:
    """A Challengers game at the dice game's journal: check says so, as run refuses it."""
    journal = tmp_path / "j.sqlite"
    CompanionTable.new(GameKind.CHALLENGERS, ("Ann", "Bob"), journal, seed=1).close()
    before = journal.read_bytes()
    cfg = parse_config({"table": {"journal": str(journal)}}, "cfg.toml", tmp_path)
    assert held_game_problem(cfg) == (
        f"names {journal}, which holds a challengers game, but cfg.toml sets [table] mode = "
        '"tournament": move the journal away to start a new game, or set [table] mode to match'
    )
    with pytest.raises(JournalError):
        resume_or_start(cfg)
    assert journal.read_bytes() == before


def test_a_journal_in_folders_not_made_yet_is_started_there(tmp_path: Path) -> None:
    """journal = /var/lib/toptable/season/2026/j.sqlite on a fresh card: every folder on
    the way is made, and the game starts there."""
    journal = tmp_path / "season" / "2026" / "j.sqlite"
    cfg = parse_config({"table": {"journal": str(journal)}}, "cfg.toml", tmp_path)
    with resume_or_start(cfg, seed=1) as held:
        assert held.journal.path == journal
    assert journal.is_file()
