"""A tool's mark beside a journal names the game it started there, and no other."""

from __future__ import annotations

from pathlib import Path

from controller.game.journal import Journal
from controller.storage.marks import marked_here, write_mark

SUFFIX = ".demo"


def test_two_journals_of_one_stem_keep_a_mark_each(tmp_path: Path) -> None:
    """``table.sqlite`` and ``table.journal`` side by side: marking the one leaves the
    other's mark as it was (the mark is the journal's whole name and the suffix)."""
    ids = {}
    for name in ("table.sqlite", "table.journal"):
        path = tmp_path / name
        with Journal.create(path, {"mode": "tournament"}) as journal:
            ids[name] = journal.game_id
        write_mark(path, SUFFIX, journal.game_id)
    assert marked_here(tmp_path / "table.sqlite", SUFFIX)
    assert marked_here(tmp_path / "table.journal", SUFFIX)
    mark = (tmp_path / "table.sqlite.demo").read_text(encoding="utf-8")
    assert mark == f"{ids['table.sqlite']}\n"
