"""The SQLite journal: durability settings, checksums, versions, game ids, undo, failed writes."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from controller.cli.main import main
from controller.core.symbols import Symbol
from controller.game.events import (
    DiceThrown,
    DieRolled,
    FirstPlayerChosen,
    Move,
    Pass,
    Shuffled,
    TimeUp,
)
from controller.game.journal import (
    SCHEMA_VERSION,
    Journal,
    JournalCorruptError,
    JournalError,
    JournalForeignError,
    JournalIOError,
    JournalVersionError,
    WrongGameError,
)
from controller.game.journal_schema import (
    APPLICATION_ID,
    JOURNAL_VERSION,
    MIGRATIONS,
    create_layout,
    migrate,
    read_stamp,
)
from controller.game.state import WarriorDeck
from tests.paths import DATA

# A journal written by the first release (before application_id / user_version):
# game "game-v0", SETUP, EVENTS, then an undo of the final Pass.
UNVERSIONED = DATA / "journal" / "unversioned-v0.sqlite"

SETUP = {"mode": "test", "config": {"players": ["A", "B"]}}
EVENTS = [
    FirstPlayerChosen(1),
    Move(1, "Jiren", 12),
    DieRolled((3,)),
    DiceThrown((Symbol.KICK, Symbol.STAR), evidence="frames/0001.png"),
    Pass(0),
]


def _journal(path: Path) -> Journal:
    j = Journal.create(path, SETUP, game_id="game-1")
    for e in EVENTS:
        j.append(e)
    return j


def test_round_trip_and_durability_settings(tmp_path: Path) -> None:
    path = tmp_path / "g.journal"
    with _journal(path) as j:
        assert j.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert j.conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    with Journal.open(path, "game-1") as j:
        assert j.events() == EVENTS
        assert j.setup == SETUP and j.game_id == "game-1" and len(j) == len(EVENTS)
    assert not path.with_name(path.name + ".creating").exists()


@pytest.mark.parametrize("target", ["usb/g.journal", "g.journal"], ids=["dangling", "loop"])
def test_create_refuses_a_link_to_no_journal(tmp_path: Path, target: str) -> None:
    """A new journal was built and renamed over the link itself: the owner's link to the
    USB stick became a plain file, the stick left empty (review of bad inputs)."""
    (tmp_path / "usb").mkdir()
    path = tmp_path / "g.journal"
    path.symlink_to(target)
    with pytest.raises(JournalIOError, match=f"a symbolic link to {target}, where no journal is"):
        _journal(path)
    assert path.is_symlink() and not any((tmp_path / "usb").iterdir())


def test_create_refuses_an_existing_journal(tmp_path: Path) -> None:
    path = tmp_path / "g.journal"
    _journal(path).close()
    with pytest.raises(JournalIOError, match="already exists"):
        Journal.create(path, SETUP)
    with pytest.raises(JournalIOError, match="no journal there"):
        Journal.open(tmp_path / "none.journal")


def test_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "g.journal"
    _journal(path).close()
    with sqlite3.connect(path) as conn:
        conn.execute(
            "UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(SCHEMA_VERSION + 1),)
        )
    with pytest.raises(JournalVersionError, match="newer than this toptable"):
        Journal.open(path)


def test_another_games_journal_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "g.journal"
    _journal(path).close()
    with pytest.raises(WrongGameError, match="this journal is game game-1, not game game-2"):
        Journal.open(path, "game-2")


@pytest.mark.parametrize(
    "damage",
    [
        "UPDATE events SET payload = replace(payload, 'Jiren', 'Hit') WHERE seq = 2",
        "DELETE FROM events WHERE seq = 3",
        "UPDATE events SET seq = 99 WHERE seq = 2",
        "UPDATE events SET kind = 'pass' WHERE seq = 1",
    ],
)
def test_corruption_is_detected(tmp_path: Path, damage: str) -> None:
    path = tmp_path / "g.journal"
    _journal(path).close()
    with sqlite3.connect(path) as conn:
        conn.execute(damage)
    with pytest.raises(JournalCorruptError, match="fails its checksum"):
        Journal.open(path)


def test_not_a_journal(tmp_path: Path) -> None:
    path = tmp_path / "junk.journal"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(JournalCorruptError, match="not a toptable journal"):
        Journal.open(path)
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE x (y)")
    with pytest.raises(JournalCorruptError, match="not a toptable journal"):
        Journal.open(other)


def test_undo_cancels_the_last_action_only(tmp_path: Path) -> None:
    path = tmp_path / "g.journal"
    with _journal(path) as j:
        assert j.undo() == Pass(0)
        assert j.events() == EVENTS[:-1]
        with pytest.raises(
            JournalError, match=rf"^{path}: the last event is a .* not a player action"
        ):
            j.undo()  # the last effective event is a throw
    with Journal.open(path) as j:
        assert j.events() == EVENTS[:-1]
        assert [r.kind for r in j.rows()][-1] == "undo"
    empty = tmp_path / "empty.journal"
    with (
        Journal.create(empty, {"mode": "tournament"}) as j,
        pytest.raises(JournalError, match=rf"^{empty}: nothing to undo$"),
    ):
        j.undo()


def test_shuffles_alone_are_nothing_to_undo(tmp_path: Path) -> None:
    """Undo with the shuffles that follow an action: a journal of shuffles alone has no
    action to take back; it says nothing to undo (and writes nothing)."""
    path = tmp_path / "g.journal"
    with Journal.create(path, {"mode": "tournament"}) as j:
        j.append(Shuffled(WarriorDeck.WARRIORS, ("Jiren", "Goku")))
        j.append(Shuffled(WarriorDeck.WARRIORS, ("Goku", "Jiren")))
        rows = len(j)
        with pytest.raises(JournalError, match=rf"^{path}: nothing to undo$"):
            j.undo(with_inputs=(Shuffled.kind,))
        assert len(j) == rows


def test_a_failed_write_leaves_nothing_half_written(tmp_path: Path) -> None:
    path = tmp_path / "g.journal"
    with _journal(path) as j:
        j.conn.execute(
            "CREATE TEMP TRIGGER fail BEFORE INSERT ON events WHEN NEW.kind = 'time_up' "
            "BEGIN SELECT RAISE(ABORT, 'disk full'); END"
        )
        with pytest.raises(JournalIOError, match="disk full"):
            j.append(TimeUp())
        assert len(j) == len(EVENTS)
        j.conn.execute("DROP TRIGGER fail")
        j.append(Pass(1))
    with Journal.open(path) as j:
        assert j.events() == [*EVENTS, Pass(1)]


def test_closed_journal(tmp_path: Path) -> None:
    j = _journal(tmp_path / "g.journal")
    j.close()
    j.close()  # idempotent
    with pytest.raises(JournalError, match="closed"):
        j.append(Pass(0))


# ----------------------------------------------------------- the file's identity and version
def _header(path: Path) -> tuple[int, int]:
    with sqlite3.connect(path) as conn:
        stamp = read_stamp(conn)
    return stamp.application_id, stamp.user_version


def _raw_rows(path: Path) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
    conn = sqlite3.connect(path)
    try:
        meta = conn.execute("SELECT key, value FROM meta ORDER BY key").fetchall()
        events = conn.execute("SELECT * FROM events ORDER BY seq").fetchall()
    finally:
        conn.close()
    return meta, events


def _tables_sql(path: Path) -> list[str]:
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute("SELECT sql FROM sqlite_master WHERE type = 'table' ORDER BY name")
        return [str(sql) for (sql,) in rows.fetchall()]
    finally:
        conn.close()


def test_migrations_are_numbered_in_order() -> None:
    assert [m.version for m in MIGRATIONS] == list(range(1, len(MIGRATIONS) + 1))
    assert JOURNAL_VERSION == len(MIGRATIONS) >= 1
    assert 0 < APPLICATION_ID < 2**31  # SQLite stores a signed 32-bit value


def test_a_new_journal_is_stamped_and_keeps_the_first_release_row_format(tmp_path: Path) -> None:
    path = tmp_path / "g.journal"
    _journal(path).close()
    assert _header(path) == (APPLICATION_ID, JOURNAL_VERSION)
    # Same tables, same meta keys, same schema_version: a first-release reader reads it.
    assert _tables_sql(path) == _tables_sql(UNVERSIONED)
    meta, _ = _raw_rows(path)
    assert [k for k, _v in meta] == ["game_id", "schema_version", "setup"]
    assert dict((str(k), str(v)) for k, v in meta)["schema_version"] == str(SCHEMA_VERSION) == "1"


def test_migration_1_stamps_a_first_release_journal(tmp_path: Path) -> None:
    path = tmp_path / "old.journal"
    shutil.copyfile(UNVERSIONED, path)
    assert _header(path) == (0, 0)
    before = _raw_rows(path)
    with Journal.open(path, "game-v0") as j:
        assert j.events() == EVENTS[:-1]
        assert [r.kind for r in j.rows()][-1] == "undo"
        j.append(Pass(1))
    assert _header(path) == (APPLICATION_ID, 1)
    meta, events = _raw_rows(path)
    assert (meta, events[:-1]) == before  # the old rows are untouched
    with Journal.open(path) as j:
        assert j.events() == [*EVENTS[:-1], Pass(1)]


def test_migrating_step_by_step_matches_a_new_journal(tmp_path: Path) -> None:
    for step in MIGRATIONS:
        conn = sqlite3.connect(tmp_path / f"m{step.version}.db", isolation_level=None)
        conn.execute("BEGIN")
        create_layout(conn)
        assert migrate(conn, 0) == JOURNAL_VERSION
        conn.execute("COMMIT")
        conn.close()
        assert _header(tmp_path / f"m{step.version}.db") == (APPLICATION_ID, JOURNAL_VERSION)


def test_a_journal_from_a_newer_toptable_is_refused_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "future.journal"
    _journal(path).close()
    with sqlite3.connect(path) as conn:
        conn.execute(f"PRAGMA user_version = {JOURNAL_VERSION + 1}")
    with pytest.raises(JournalVersionError) as info:
        Journal.open(path)
    message = str(info.value)
    assert "\n" not in message
    assert message == (
        f"{path}: journal format version {JOURNAL_VERSION + 1} is newer than this toptable's "
        f"({JOURNAL_VERSION}); upgrade toptable to resume this game"
    )
    assert _header(path) == (APPLICATION_ID, JOURNAL_VERSION + 1)  # left as it was


def test_another_programs_sqlite_file_is_refused_and_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as conn:
        conn.execute(f"PRAGMA application_id = {0x464F5343}")  # "FOSC": some other program
        create_layout(conn)  # even with tables that look like ours
    with pytest.raises(JournalForeignError) as info:
        Journal.open(path)
    assert str(info.value) == (
        f"{path}: not a toptable journal: its SQLite application_id 0x464F5343 is another "
        f"program's; expected a toptable journal (SQLite application_id 0x{APPLICATION_ID:08X})"
    )
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"  # not switched to WAL


def test_a_bad_journal_exits_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "future.journal"
    _journal(path).close()
    with sqlite3.connect(path) as conn:
        conn.execute(f"PRAGMA user_version = {JOURNAL_VERSION + 1}")
    assert main(["game", "check", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(path) in err and "newer than this toptable" in err


def test_an_older_journal_that_cannot_be_upgraded_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "old.journal"
    shutil.copyfile(UNVERSIONED, path)

    def failing(conn: sqlite3.Connection, version: int) -> int:
        raise sqlite3.OperationalError("attempt to write a readonly database")

    monkeypatch.setattr("controller.game.journal.migrate", failing)
    with pytest.raises(JournalIOError) as info:
        Journal.open(path)
    assert str(info.value) == (
        f"{path}: cannot upgrade the journal from format version 0 to {JOURNAL_VERSION}: "
        "attempt to write a readonly database"
    )
    assert _header(path) == (0, 0)
