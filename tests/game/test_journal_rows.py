"""A journal row whose checksum holds but whose content is not a journal's (a NULL, a
number or a blob where text belongs, a payload that is no object, a kind column that
disagrees with its payload) is refused in one line naming the file and the row, and
the file is left as it was."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from controller.cli.main import main
from controller.game.session import run_journaled
from controller.game.state import Length
from controller.storage.rows import chain_hash

pytestmark = pytest.mark.timeout(60)


def _journal(path: Path) -> None:
    """A whole bot game's journal: row 1 chooses the first player, row 2 drafts."""
    run_journaled(path, 2, Length.ROUNDS5, 5)


def _untyped(conn: sqlite3.Connection) -> None:
    """The events table rebuilt without column types or NOT NULL: a row may hold anything."""
    conn.execute("CREATE TABLE old AS SELECT * FROM events")
    conn.execute("DROP TABLE events")
    conn.execute("CREATE TABLE events (seq INTEGER PRIMARY KEY, kind, payload, undoes, chain)")
    conn.execute("INSERT INTO events SELECT * FROM old")
    conn.execute("DROP TABLE old")


def _rechain(conn: sqlite3.Connection) -> None:
    """Every row's checksum computed again, as a forger would."""
    (prev,) = conn.execute("SELECT value FROM meta WHERE key = 'game_id'").fetchone()
    rows = conn.execute("SELECT seq, kind, payload, undoes FROM events ORDER BY seq").fetchall()
    for seq, kind, payload, undoes in rows:
        prev = chain_hash(prev, seq, kind, payload, undoes)
        conn.execute("UPDATE events SET chain = ? WHERE seq = ?", (prev, seq))


def _refused(path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    before = path.read_bytes()
    assert main(["game", "check", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert path.read_bytes() == before
    return err


@pytest.mark.parametrize(
    "column, value",
    [("payload", None), ("payload", 5), ("payload", b"{}"), ("kind", 3), ("undoes", "x")],
)
def test_a_row_holding_what_no_journal_stores_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], column: str, value: object
) -> None:
    path = tmp_path / "g.sqlite"
    _journal(path)
    with sqlite3.connect(path) as conn:
        _untyped(conn)
        conn.execute(f"UPDATE events SET {column} = ? WHERE seq = 2", (value,))
        _rechain(conn)
    err = _refused(path, capsys)
    assert err == (
        f"toptable: error: {path}: row 2: its {column} is not what a journal stores "
        "(changed rows)\n"
    )


@pytest.mark.parametrize("payload", ["[1]", "3", '"draft"', "null"])
def test_a_payload_that_is_no_object_names_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], payload: str
) -> None:
    path = tmp_path / "g.sqlite"
    _journal(path)
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE events SET payload = ? WHERE seq = 2", (payload,))
        _rechain(conn)
    assert _refused(path, capsys) == f"toptable: error: {path}: row 2: not a JSON object\n"


def test_a_row_whose_kind_disagrees_with_its_payload_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "g.sqlite"
    _journal(path)
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE events SET kind = 'pass' WHERE seq = 2")
        _rechain(conn)
    assert _refused(path, capsys) == (
        f"toptable: error: {path}: row 2 is stored as 'pass' but holds a 'draft' event\n"
    )


@pytest.mark.parametrize(
    "where, value, named",
    [
        ("$.option", "5", "field 'option': expected text, got 5"),
        ("$.option", "null", "field 'option': expected text, got None"),
        ("$.seat", "true", "field 'seat': expected a whole number, got True"),
        ("$.seat", '"0"', "field 'seat': expected a whole number, got '0'"),
    ],
)
def test_an_event_field_of_the_wrong_type_is_named_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], where: str, value: str, named: str
) -> None:
    path = tmp_path / "g.sqlite"
    _journal(path)
    with sqlite3.connect(path) as conn:
        (seq,) = conn.execute("SELECT min(seq) FROM events WHERE kind = 'attack'").fetchone()
        conn.execute(
            "UPDATE events SET payload = json_set(payload, ?, json(?)) WHERE seq = ?",
            (where, value, seq),
        )
        conn.execute("DELETE FROM events WHERE seq > ?", (seq,))
        _rechain(conn)
    err = _refused(path, capsys)
    assert err.startswith(f"toptable: error: {path}: row {seq}: bad attack event ")
    assert err.endswith(f": {named}\n")


def test_a_defence_answered_by_no_seat_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "g.sqlite"
    _journal(path)
    with sqlite3.connect(path) as conn:
        (seq,) = conn.execute("SELECT min(seq) FROM events WHERE kind = 'defend'").fetchone()
        conn.execute(
            "UPDATE events SET payload = json_set(payload, '$.seat', json('true')) WHERE seq = ?",
            (seq,),
        )
        conn.execute("DELETE FROM events WHERE seq > ?", (seq,))
        _rechain(conn)
    err = _refused(path, capsys)
    assert err.startswith(f"toptable: error: {path}: row {seq}: bad defend event ")
    assert err.endswith(": field 'seat': expected a whole number, got True\n")
