"""A companion table whose journal cannot be written stops: nothing is taken unrecorded,
and its screens say the table stopped instead of offering what cannot be kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.core.errors import TableHaltedError
from controller.table.companion import CompanionTable
from controller.table.entry import HALTED_FAULT
from hardware.controls.events import ButtonName, ButtonPressed

pytestmark = pytest.mark.timeout(60)


def test_a_full_journal_stops_the_companion_table_and_its_screens_say_so(
    tmp_path: Path,
) -> None:
    table = CompanionTable.new("dbs-tournament", ("Ann", "Bob", "Cid"), tmp_path / "c.sqlite")
    conn = table.journal.conn
    pages = int(conn.execute("PRAGMA page_count").fetchone()[0])
    # SQLite's own limit on the file's size: a write past it fails as on a full disk
    conn.execute(f"PRAGMA max_page_count = {pages}")
    with pytest.raises(TableHaltedError):
        for _ in range(2000):  # confirm on: actions are taken until one is not written
            table.handle(ButtonPressed(ButtonName.CONFIRM))
    view = table.view()
    assert view.paused and view.last == HALTED_FAULT
    assert table.history == len(table.journal.actions())  # nothing taken unrecorded
    assert view.action == ""  # nor left half-entered
    table.close()
