"""A journal's header read as damage, and the read-only commands (``game check``,
``game export``) leaving the journal they read exactly as it was."""

from __future__ import annotations

import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from controller.cli.main import main
from controller.game.journal import Journal, JournalCorruptError
from controller.game.journal_schema import APPLICATION_ID, JOURNAL_VERSION, read_stamp
from controller.game.session import run_journaled
from controller.game.state import Length
from controller.storage.sqlite_file import sidecars


def _header(path: Path) -> tuple[int, int, str]:
    with closing(sqlite3.connect(path, isolation_level=None)) as conn:
        stamp = read_stamp(conn)
        mode = str(conn.execute("PRAGMA journal_mode").fetchone()[0])
    return stamp.application_id, stamp.user_version, mode


def _files(path: Path) -> dict[str, bytes | None]:
    """The file and its write-ahead log (the -shm is SQLite's shared memory, not data)."""
    return {p.name: p.read_bytes() if p.exists() else None for p in sidecars(path)[:2]}


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished two-player dice game's journal (current format, WAL)."""
    path = tmp_path_factory.mktemp("played") / "g.journal"
    run_journaled(path, 2, Length.ROUNDS5, 9)
    return path


def _older(played: Path, tmp_path: Path) -> Path:
    """``played`` as the first release wrote it: neither header field, no WAL."""
    path = tmp_path / "old.journal"
    shutil.copyfile(played, path)
    with closing(sqlite3.connect(path, isolation_level=None)) as conn:
        conn.execute("PRAGMA journal_mode=DELETE")
        conn.execute("PRAGMA application_id = 0")
        conn.execute("PRAGMA user_version = 0")
    assert _header(path) == (0, 0, "delete")
    return path


def test_a_negative_format_version_is_refused_as_damaged(
    played: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "neg.journal"
    shutil.copyfile(played, path)
    with closing(sqlite3.connect(path, isolation_level=None)) as conn:
        conn.execute("PRAGMA user_version = -1")
    before = _files(path)
    with pytest.raises(JournalCorruptError) as info:
        Journal.open(path)
    assert str(info.value) == (
        f"{path}: damaged: its format version (SQLite user_version) is -1; "
        f"expected 0 to {JOURNAL_VERSION}"
    )
    for argv in (["game", "check"], ["game", "export", "--text"], ["game", "undo"]):
        assert main([*argv, str(path)]) == 2
        out, err = capsys.readouterr()
        assert out == "" and err.count("\n") == 1 and f"{path}: damaged" in err
    assert _files(path) == before  # neither migrated nor switched to WAL


def test_check_and_export_leave_an_older_journal_as_it_was(
    played: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _older(played, tmp_path)
    before = _files(path)
    assert main(["game", "check", str(path)]) == 0
    assert "phase over" in capsys.readouterr().out
    assert main(["game", "export", "--text", str(path)]) == 0
    assert "result: over" in capsys.readouterr().out
    assert _files(path) == before and not sidecars(path)[2].exists()  # no upgrade, no WAL
    # the command that writes still upgrades it
    assert main(["game", "undo", str(path)]) == 0
    assert _header(path) == (APPLICATION_ID, JOURNAL_VERSION, "wal")


def test_check_leaves_a_crashed_journals_write_ahead_log_beside_it(
    played: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A journal whose last commits are still in its -wal (the table was switched off):
    a look reads them and neither folds them into the file nor removes the -wal."""
    src = tmp_path / "src.journal"
    shutil.copyfile(played, src)
    conn = sqlite3.connect(src, isolation_level=None)
    try:
        conn.execute("PRAGMA wal_autocheckpoint = 0")
        conn.execute("INSERT INTO meta VALUES ('zz', '1')")
        conn.execute("DELETE FROM meta WHERE key = 'zz'")
        path = tmp_path / "crashed.journal"
        for mine, theirs in zip(sidecars(src)[:2], sidecars(path)[:2], strict=True):
            shutil.copyfile(mine, theirs)
    finally:
        conn.close()
    before = _files(path)
    assert before[f"{path.name}-wal"]
    assert main(["game", "check", str(path)]) == 0
    assert "phase over" in capsys.readouterr().out
    assert _files(path) == before


def test_a_journal_the_bots_do_not_play_says_where_it_goes_on(tmp_path: Path) -> None:
    """A game begun at the table or by the demo given to ``game play``: its first player is
    not the bots' (one of the two seats is not), and the refusal says where it goes on
    (it said only ``FirstPlayerChosen(seat=1) != FirstPlayerChosen(seat=0)``)."""
    from controller.game.events import FirstPlayerChosen
    from controller.game.session import TableGame
    from controller.game.simulate import load_game_data
    from controller.game.state import GameConfig

    refused = []
    for seat in (0, 1):
        path = tmp_path / f"table{seat}.sqlite"
        config = GameConfig(("P1", "P2"), Length.ROUNDS5)
        with TableGame.start(path, config, load_game_data(), None, 9) as game:
            game.submit(FirstPlayerChosen(seat=seat))
        try:
            run_journaled(path)
        except JournalCorruptError as exc:
            refused.append(str(exc))
    [message] = refused
    assert "the bots do not replay it" in message and "\n" not in message
    assert "--resume" in message and "toptable demo" in message
