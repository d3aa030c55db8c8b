"""A write-ahead log left without its database is never replayed into a new game."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from controller.game.events import FirstPlayerChosen
from controller.game.journal import Journal, JournalIOError


def _dead_game_wal(tmp_path: Path) -> Path:
    """A journal whose process died with rows only in its write-ahead log; its database
    then deleted (as the demo once did), the ``-wal`` and ``-shm`` left behind."""
    path = tmp_path / "j.sqlite"
    saved = tmp_path / "saved"
    saved.mkdir()
    journal = Journal.create(path, {"mode": "tournament"})
    for seat in (0, 1, 0):
        journal.append(FirstPlayerChosen(seat=seat))
    for suffix in ("-wal", "-shm"):  # as a SIGKILL leaves them: not checkpointed
        shutil.copy(f"{path}{suffix}", saved / f"j.sqlite{suffix}")
    journal.close()
    path.unlink()
    for suffix in ("-wal", "-shm"):
        shutil.copy(saved / f"j.sqlite{suffix}", f"{path}{suffix}")
    assert Path(f"{path}-wal").stat().st_size > 0
    return path


def test_a_new_journal_is_refused_beside_a_dead_games_write_ahead_log(tmp_path: Path) -> None:
    path = _dead_game_wal(tmp_path)
    wal = Path(f"{path}-wal").read_bytes()
    with pytest.raises(JournalIOError) as caught:
        Journal.create(path, {"mode": "tournament"})
    message = str(caught.value)
    assert f"{path}-wal" in message and "move j.sqlite-wal and j.sqlite-shm away" in message
    assert not path.exists() and Path(f"{path}-wal").read_bytes() == wal  # nothing touched


def test_once_the_log_is_moved_away_a_new_game_starts_empty(tmp_path: Path) -> None:
    path = _dead_game_wal(tmp_path)
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").rename(tmp_path / f"moved{suffix}")
    with Journal.create(path, {"mode": "tournament"}) as journal:
        assert len(journal) == 0
        assert journal.append(FirstPlayerChosen(seat=1)) == 1


def test_an_empty_leftover_index_is_not_a_game(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    Path(f"{path}-shm").write_bytes(b"\0" * 32768)  # shared memory only: no rows anywhere
    with Journal.create(path, {"mode": "tournament"}) as journal:
        assert journal.append(FirstPlayerChosen(seat=1)) == 1
