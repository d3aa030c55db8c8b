"""``toptable demo`` never lands a new game on an old one, and resumes from the journal alone."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest

from controller.cli.main import main
from controller.core.errors import TableHaltedError
from controller.demo.companion import run_companion_demo
from controller.demo.runner import DemoError, DemoOptions, make_room, run_demo
from controller.demo.scratch import mark_as_scratch
from controller.game.session import TableGame, run_journaled
from controller.game.state import GameConfig, Length
from controller.gamedata.datadir import init_data_dir
from controller.storage.chained_log import ChainedLog
from controller.storage.journal import Row
from controller.storage.marks import stored_game_id
from controller.storage.origin import ContradictionError
from controller.table.companion import CompanionTable
from controller.table.entry import HALTED_FAULT
from hardware.controls.events import ButtonName, ButtonPressed
from tests.cli_runner import cli_runner
from tests.game.helpers import demo_data

pytestmark = pytest.mark.timeout(120)


def _journal(path: Path, seed: int = 5) -> bytes:
    with TableGame.start(path, GameConfig(("A", "B"), Length.ROUNDS5), demo_data(), None, seed):
        pass
    return path.read_bytes()


@pytest.mark.parametrize("finished", [False, True])
def test_a_demo_on_a_named_journal_is_refused_with_a_hint(tmp_path: Path, finished: bool) -> None:
    journal = tmp_path / "mine.sqlite"
    if finished:
        run_journaled(journal, 2, Length.ROUNDS5, 5)
    before = journal.read_bytes() if finished else _journal(journal)
    with TableGame.resume(journal) as game:
        assert game.state.over is finished
    with pytest.raises(DemoError) as caught:
        run_demo(DemoOptions(journal=journal, out=tmp_path / "out", fast=True))
    message = str(caught.value)
    assert "--resume" in message and "another path" in message and str(journal) in message
    assert journal.read_bytes() == before


def test_a_companion_demo_on_a_named_journal_is_refused(tmp_path: Path) -> None:
    journal = tmp_path / "c.sqlite"
    first = run_companion_demo("dbz-tcg", seed=3, out=tmp_path, journal=journal, fast=True)
    assert first.finished
    before = journal.read_bytes()
    with pytest.raises(DemoError, match="add --resume to continue it"):
        run_companion_demo("dbz-tcg", seed=3, out=tmp_path, journal=journal, fast=True)
    assert journal.read_bytes() == before


def test_what_is_left_of_a_killed_game_is_refused_too(tmp_path: Path) -> None:
    journal = tmp_path / "mine.sqlite"
    Path(f"{journal}-wal").write_bytes(b"rows of a dead game")
    with pytest.raises(DemoError, match=r"what is left of a game \(mine.sqlite-wal\)"):
        make_room(journal, chosen=True)


def test_the_demos_own_scratch_journal_goes_with_its_sqlite_files(tmp_path: Path) -> None:
    journal = tmp_path / "journal.sqlite"
    _journal(journal)
    mark_as_scratch(journal)  # as the demo does once it has started its game there
    for suffix in ("-wal", "-shm"):
        Path(f"{journal}{suffix}").write_bytes(b"stale")
    make_room(journal, chosen=False)
    assert list(tmp_path.iterdir()) == []


def test_a_game_the_demo_did_not_start_at_its_scratch_journal_is_kept(tmp_path: Path) -> None:
    # the daemon's journal is journal.sqlite too: `toptable demo --out /var/lib/toptable`
    journal = tmp_path / "journal.sqlite"
    before = _journal(journal)
    with pytest.raises(DemoError, match=r"a game the demo did not start is journalled there"):
        make_room(journal, chosen=False)
    mark_as_scratch(journal)
    other = tmp_path / "other.sqlite"
    _journal(other, seed=6)
    other.replace(journal)  # another game copied over the demo's: its game id differs
    with pytest.raises(DemoError, match=r"a game the demo did not start"):
        make_room(journal, chosen=False)
    journal.write_bytes(before)
    make_room(journal, chosen=False)  # the demo's own game again: replaced
    assert not journal.exists()


@pytest.mark.slow  # three whole demo games
@pytest.mark.timeout(300)
def test_a_demo_replaces_its_own_game_and_not_the_daemons(tmp_path: Path) -> None:
    out = tmp_path / "out"
    first = run_demo(DemoOptions(out=out, fast=True))
    assert run_demo(DemoOptions(out=out, fast=True)).throws == first.throws
    daemons = _journal(tmp_path / "daemon.sqlite")
    (out / "journal.sqlite").write_bytes(daemons)
    with pytest.raises(DemoError, match="did not start"):
        run_demo(DemoOptions(out=out, fast=True))
    assert (out / "journal.sqlite").read_bytes() == daemons


def test_a_companion_demo_resumes_with_its_journals_seed(tmp_path: Path) -> None:
    whole = run_companion_demo("challengers", seed=7, players=3, out=tmp_path / "a", fast=True)
    journal = tmp_path / "b.sqlite"
    half = run_companion_demo(
        "challengers", seed=7, players=3, out=tmp_path, journal=journal, fast=True, stop_after=10
    )
    assert not half.finished
    with pytest.raises(ContradictionError, match="--seed 8 contradicts the journal's 7"):
        run_companion_demo("challengers", seed=8, journal=journal, resume=True, fast=True)
    rest = run_companion_demo("challengers", journal=journal, resume=True, fast=True)
    assert rest.seed == 7 and rest.finished
    assert (rest.winner, rest.actions) == (whole.winner, whole.actions)


def test_cli_demo_resume_with_another_seed_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    run = cli_runner(monkeypatch, capsys, "controller.cli.daemon")
    journal = tmp_path / "mine.sqlite"
    before = _journal(journal, seed=5)
    code, out, err = run("demo", "--journal", str(journal), "--resume", "--seed", "6",
                         "--out", str(tmp_path / "out"), "--fast")  # fmt: skip
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and "--seed 6 contradicts the journal's 5" in err
    code, _, err = run("demo", "--journal", str(journal), "--out", str(tmp_path / "o"), "--fast")
    assert code == 2 and err.count("\n") == 1 and "add --resume" in err
    assert journal.read_bytes() == before


@pytest.mark.parametrize("mode", ["tournament", "dbz-tcg"])
def test_a_named_journal_in_a_missing_folder_is_refused_as_game_play_refuses_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], mode: str
) -> None:
    run = cli_runner(monkeypatch, capsys, "controller.cli.daemon", "controller.cli.game")
    journal = tmp_path / "no" / "such" / "j.sqlite"
    expected = (
        f"toptable: error: cannot create the journal: {journal.parent}: no such folder for "
        "the journal: create it, or choose another path\n"
    )
    assert run("game", "play", str(journal)) == (2, "", expected)
    code, out, err = run("demo", "--mode", mode, "--journal", str(journal),
                         "--out", str(tmp_path / "out"), "--fast")  # fmt: skip
    assert (code, out, err) == (2, "", expected)
    assert not (tmp_path / "no").exists()


def _small_disk(monkeypatch: pytest.MonkeyPatch, pages: int) -> None:
    """Every journal opened from now on may grow to ``pages`` pages: a write past them fails
    with SQLite's SQLITE_FULL, "database or disk is full", as on a full disk."""
    connect = ChainedLog._connect.__func__  # type: ignore[attr-defined]

    def limited(
        cls: type[ChainedLog[Row]], path: Path, check: bool = False, writable: bool = True
    ) -> sqlite3.Connection:
        conn: sqlite3.Connection = connect(cls, path, check, writable)
        conn.execute(f"PRAGMA max_page_count = {pages}")
        return conn

    monkeypatch.setattr(ChainedLog, "_connect", classmethod(limited))


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_a_demo_whose_journal_fills_up_stops_with_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    run = cli_runner(monkeypatch, capsys, "controller.cli.daemon")
    _small_disk(monkeypatch, 6)
    journal = tmp_path / "full.sqlite"
    code, out, err = run("demo", "--journal", str(journal), "--out", str(tmp_path), "--fast")
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and "the disk is full" in err and "table stops" in err
    with TableGame.resume(journal) as game:  # what was journalled is whole
        assert len(game.journal) > 0 and not game.state.over


def test_a_companion_table_whose_journal_fills_up_stops(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _small_disk(monkeypatch, 5)
    table = CompanionTable.new("dbz-tcg", ["A", "B"], tmp_path / "c.sqlite")
    with pytest.raises(TableHaltedError, match=r"the disk is full: free space on it.*table stops"):
        for _ in range(5000):
            table.handle(ButtonPressed(ButtonName.CONFIRM))
    assert table.paused and table.view().last == HALTED_FAULT
    table.close()


@pytest.mark.parametrize(
    ("flags", "said"),
    [(["--players", "4"], "--players 4 contradicts the journal's 2"),
     (["--length", "minutes45"], "--length minutes45 contradicts the journal's rounds5"),
     (["--variant", "shield_any_sphere"],
      "--variant shield_any_sphere contradicts the journal's (none)"),
     (["--variant", "no_such_rule"], "unknown rule variant 'no_such_rule'"),
     (["--names", "Ann,Bob"], "--names Ann, Bob contradicts the journal's A, B")],
)  # fmt: skip
def test_cli_demo_resume_with_other_players_or_length_is_one_line(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    flags: list[str],
    said: str,
) -> None:
    # they were ignored: the journal's game went on as if they had not been given
    run = cli_runner(monkeypatch, capsys, "controller.cli.daemon")
    journal = tmp_path / "mine.sqlite"
    before = _journal(journal)
    code, out, err = run("demo", "--journal", str(journal), "--resume", *flags,
                         "--out", str(tmp_path / "out"), "--fast")  # fmt: skip
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and said in err
    assert journal.read_bytes() == before


def test_a_companion_demo_resumed_with_other_players_is_refused(tmp_path: Path) -> None:
    journal = tmp_path / "c.sqlite"
    run_companion_demo("challengers", seed=7, players=3, out=tmp_path, journal=journal,
                       fast=True, stop_after=5)  # fmt: skip
    with pytest.raises(ContradictionError, match="--players 4 contradicts the journal's 3"):
        run_companion_demo("challengers", players=4, journal=journal, resume=True, fast=True)


def test_a_board_with_unwired_spaces_is_refused_before_the_demo_plays(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Review 94: a board.toml without sensors gave "the demo's devices did not open:
    {'board': ...}", one space without a sensor stopped the demo after the placements."""
    data = tmp_path / "data"
    init_data_dir(data)
    board = data / "board.toml"
    board.write_text(
        re.sub(r"(?m)^sensor = (5|9)\n", "", board.read_text(encoding="utf-8")), encoding="utf-8"
    )
    out = tmp_path / "out"
    code = main(["demo", "--fast", "--data", str(data), "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2
    assert err.strip().splitlines()[-1] == (
        f"toptable: error: {board}: 2 of 42 spaces have no sensor (5, 9): the board sees a "
        "token by its space's hall sensor; give each [[space]] a sensor"
    )
    assert not (out / "journal.sqlite").exists()  # nothing was played or made room for


def test_a_demo_on_a_file_that_is_no_journal_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Review 95: a --journal naming the owner's own SQLite file was refused as "a game is
    journalled there already; add --resume"."""
    mine = tmp_path / "mine.sqlite"
    with sqlite3.connect(mine) as db:
        db.execute("CREATE TABLE notes (text)")
    db.close()
    before = mine.read_bytes()
    code = main(["demo", "--fast", "--journal", str(mine), "--out", str(tmp_path / "out")])
    assert code == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        f"toptable: error: {mine}: a file is there that is no toptable journal (it is never "
        "written over): give --journal another path"
    )
    assert mine.read_bytes() == before


def test_a_failed_start_marks_no_game_another_command_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another command started on the same folder makes its game right after the demo's
    make_room looked: the demo's failed start marked that game as its own scratch game,
    and the next demo deleted it (review 111)."""
    import controller.demo.runner as runner

    out = tmp_path / "club"
    journal = out / "journal.sqlite"
    held: list[TableGame] = []

    def racing(path: Path, chosen: bool) -> None:
        make_room(path, chosen)
        held.append(TableGame.start(path, GameConfig(("Ann", "Bob"), Length.ROUNDS5), demo_data()))

    monkeypatch.setattr(runner, "make_room", racing)
    with pytest.raises(Exception, match="in use by another toptable"):
        run_demo(DemoOptions(fast=True, out=out))
    monkeypatch.undo()
    theirs = stored_game_id(journal)
    held[0].close()
    with pytest.raises(DemoError, match="a game the demo did not start is journalled there"):
        run_demo(DemoOptions(fast=True, out=out))
    assert stored_game_id(journal) == theirs is not None
