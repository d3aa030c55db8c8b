"""A look at a journal before anything decides (``toptable config check``, the demo's
scratch mark) writes nothing to it or beside it, and still sees a running game's rows."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.game.events import FirstPlayerChosen
from controller.game.journal import Journal
from controller.storage.sqlite_file import read_only

pytestmark = pytest.mark.timeout(30)


def _folder(path: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(path.iterdir())}


def test_a_look_at_a_closed_journal_leaves_no_file_beside_it(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    with Journal.create(path, {"mode": "tournament"}) as journal:
        journal.append(FirstPlayerChosen(seat=1))
    before = _folder(tmp_path)
    assert list(before) == ["j.sqlite"]  # WAL mode, closed: no -wal, no -shm
    with read_only(path) as conn:
        assert conn.execute("SELECT count(*) FROM events").fetchone() == (1,)
    assert _folder(tmp_path) == before  # SQLite made no -wal and -shm for the look


def test_a_look_at_an_open_journal_sees_its_last_row(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    with Journal.create(path, {"mode": "tournament"}) as journal:
        journal.append(FirstPlayerChosen(seat=1))  # in the write-ahead log, not checkpointed
        assert Path(f"{path}-wal").stat().st_size > 0
        with read_only(path) as conn:
            assert conn.execute("SELECT count(*) FROM events").fetchone() == (1,)
