"""The journal's file alone holds its game, and a journal taken away from its writer is
said at the next append: a copy without its ``-wal`` is no empty game, and a game played
on into a deleted file is no game lost in silence."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from controller.game.events import FirstPlayerChosen
from controller.game.journal import Journal, JournalIOError


def test_a_copy_of_the_file_alone_taken_while_the_game_is_written_holds_every_row(
    tmp_path: Path,
) -> None:
    path = tmp_path / "j.sqlite"
    with Journal.create(path, {"mode": "tournament"}) as journal:
        for seat in (0, 1, 0, 1):
            journal.append(FirstPlayerChosen(seat=seat))
        copy = tmp_path / "copy.sqlite"
        shutil.copy(path, copy)  # the file alone, as a copy while the table plays takes it
    with Journal.open(copy, writable=False) as copied:
        assert len(copied) == 4  # it was 0: every row waited in the -wal


@pytest.mark.parametrize("how", ["deleted", "replaced"])
def test_a_journal_deleted_or_replaced_under_its_writer_is_said_at_the_next_append(
    tmp_path: Path, how: str
) -> None:
    path = tmp_path / "j.sqlite"
    with Journal.create(path, {"mode": "tournament"}) as journal:
        journal.append(FirstPlayerChosen(seat=0))
        path.unlink()
        if how == "replaced":
            path.write_bytes(b"another file")
        with pytest.raises(JournalIOError) as caught:
            journal.append(FirstPlayerChosen(seat=1))
        message = str(caught.value)
        word = "deleted or moved away" if how == "deleted" else "replaced by another file"
        assert str(path) in message and word in message and "\n" not in message
        assert len(journal) == 1


def test_a_journal_opened_by_a_relative_path_is_found_after_a_change_of_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with Journal.create(Path("j.sqlite"), {"mode": "tournament"}) as journal:
        journal.append(FirstPlayerChosen(seat=0))
        monkeypatch.chdir("/")
        journal.append(FirstPlayerChosen(seat=1))  # no false alarm: the same file
        assert len(journal) == 2


def test_a_journal_of_two_names_is_not_written(tmp_path: Path) -> None:
    """A hard link is a second name the one-writer lock (by name) and SQLite's WAL (by
    name) do not see: two writers wrote one game apart. It is refused at the open."""
    path = tmp_path / "j.sqlite"
    with Journal.create(path, {"mode": "tournament"}) as journal:
        journal.append(FirstPlayerChosen(seat=0))
    other = tmp_path / "also.sqlite"
    os.link(path, other)
    for name in (path, other):
        with pytest.raises(JournalIOError) as caught:
            Journal.open(name)
        assert "2 names (hard links)" in str(caught.value)
    with Journal.open(other, writable=False) as reader:  # a look is no write
        assert len(reader) == 1
    other.unlink()
    with Journal.open(path) as journal:
        journal.append(FirstPlayerChosen(seat=1))
