"""A journal at a path SQLite cannot open is refused, saying so, wherever it is named.

SQLite's unix VFS opens a database at a full path (absolute, links followed) of at most
512 bytes (``MAX_PATHNAME``, os_unix.c) less the 8 of ``-journal`` (``sqlite3PagerOpen``):
504 bytes, measured (505: "unable to open database file"). A new journal is built as its
name and ``.creating`` first, so a new one takes at most 495. ``config check`` took any
path up to 4,095 bytes, and the table stopped at its first open.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from controller.cli import main as cli
from controller.companion.journal import CompanionJournal
from controller.core.kinds import GameKind
from controller.storage.journal import JournalIOError

pytestmark = pytest.mark.timeout(60)

SIMULATED = (
    '[camera]\nsource = "synthetic"\n[board]\nbackend = "simulated"\n[controls]\nbackend = "mock"\n'
)
SQLITE_PATH_MAX = 504  # SQLite 3.40.1, measured (test_sqlite_opens_at_504_bytes_and_not_at_505)
NEW_MAX = SQLITE_PATH_MAX - len(".creating")


def _path_of(size: int, start: Path, last: str = "j") -> Path:
    """A path of ``size`` bytes under ``start`` (its folders made), ending in a name of
    ``last`` repeated (the name at least 20 bytes long)."""
    path = str(start)
    while len(path) + 1 + 200 + 21 < size:
        path += "/" + "y" * 200
    os.makedirs(path, exist_ok=True)
    name = last * (size - len(path) - 1)
    assert len(name) >= 20
    return Path(path) / name


def _folder_of(size: int, start: Path) -> Path:
    """A folder (made) at a path of ``size`` bytes under ``start``."""
    path = _path_of(size, start, last="f")
    path.mkdir()
    return path


def _journal_at(size: int, start: Path) -> Path:
    """An existing companion journal at a path of ``size`` bytes (made short, moved there)."""
    target = _path_of(size, start)
    short = start / "short.sqlite"
    CompanionJournal.start(short, GameKind.CHALLENGERS, ["Ann", "Bob"]).close()
    short.rename(target)
    return target


def test_sqlite_opens_at_504_bytes_and_not_at_505(tmp_path: Path) -> None:
    """The limit is SQLite's own, and the one the code holds to."""
    from controller.storage import sqlite_file

    assert sqlite_file.SQLITE_PATH_MAX == SQLITE_PATH_MAX
    for size, opens in ((SQLITE_PATH_MAX, True), (SQLITE_PATH_MAX + 1, False)):
        path = _path_of(size, tmp_path, last=str(size)[-1])
        try:
            sqlite3.connect(path).execute("CREATE TABLE t (x)").connection.close()
        except sqlite3.OperationalError as exc:
            assert not opens and str(exc) == "unable to open database file"
        else:
            assert opens


def test_a_new_journal_is_made_at_495_bytes_and_refused_at_496(tmp_path: Path) -> None:
    path = _path_of(NEW_MAX, tmp_path)
    CompanionJournal.start(path, GameKind.CHALLENGERS, ["Ann", "Bob"]).close()
    longer = _path_of(NEW_MAX + 1, tmp_path, last="k")
    with pytest.raises(JournalIOError) as err:
        CompanionJournal.start(longer, GameKind.CHALLENGERS, ["Ann", "Bob"])
    assert str(err.value) == (
        f"cannot create the journal: {longer}: a path of 496 bytes in full (absolute, links "
        "followed); a new journal's path takes at most 495 bytes (SQLite opens a database at "
        f"a path of at most 504, and toptable builds a new journal as {longer.name}.creating "
        "first): choose a shorter path"
    )
    assert not longer.exists() and not Path(f"{longer}.creating").exists()


def test_a_journal_opens_at_504_bytes_and_is_refused_at_505(tmp_path: Path) -> None:
    CompanionJournal.open(_journal_at(SQLITE_PATH_MAX, tmp_path / "a")).close()
    path = _journal_at(SQLITE_PATH_MAX + 1, tmp_path / "b")
    with pytest.raises(JournalIOError) as err:
        CompanionJournal.open(path)
    assert str(err.value) == (
        f"{path}: a path of 505 bytes in full (absolute, links followed); SQLite opens a "
        "database at a path of at most 504 bytes: choose a shorter path"
    )


def test_links_are_followed_to_measure(tmp_path: Path) -> None:
    path = _path_of(NEW_MAX + 1, tmp_path)
    (tmp_path / "l").symlink_to(path.parent)
    with pytest.raises(JournalIOError, match="a path of 496 bytes in full"):
        CompanionJournal.start(tmp_path / "l" / path.name, GameKind.CHALLENGERS, ["Ann", "Bob"])


def _check(tmp_path: Path, journal: Path, mode: str = "topdice") -> tuple[int, Path]:
    """``toptable config check`` of a config naming ``journal``: its exit code and the config."""
    config = tmp_path / "config.toml"
    config.write_text(f'[table]\nmode = "{mode}"\njournal = "{journal}"\n' + SIMULATED)
    return cli.main(["config", "check", str(config)]), config


@pytest.fixture
def config_commands(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cli, "COMMAND_MODULES", ("controller.cli.config",))


@pytest.mark.usefixtures("config_commands")
def test_config_check_takes_a_new_journal_of_495_bytes_and_refuses_496(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _check(tmp_path, _path_of(NEW_MAX, tmp_path))[0] == 0
    capsys.readouterr()
    journal = _path_of(NEW_MAX + 1, tmp_path, last="k")
    code, config = _check(tmp_path, journal)
    assert code == 2
    assert capsys.readouterr().err == (
        f"toptable: error: {config}: Option 'journal' in section 'table' is a path of 496 "
        "bytes in full (absolute, links followed); a new journal's path takes at most 495 "
        "bytes (SQLite opens a database at a path of at most 504, and toptable builds a new "
        f"journal as {journal.name}.creating first): choose a shorter path\n"
    )


@pytest.mark.usefixtures("config_commands")
def test_config_check_takes_a_companion_journal_of_504_bytes_and_refuses_505(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The journal a companion mode keeps is ``companion-MODE.sqlite`` beside [table] journal."""
    name = "companion-challengers.sqlite"
    folder = _folder_of(SQLITE_PATH_MAX - len(name) - 1, tmp_path / "a")
    _journal_at(SQLITE_PATH_MAX, tmp_path / "s").rename(folder / name)
    assert len(str(folder / name)) == SQLITE_PATH_MAX
    code, _ = _check(tmp_path, folder / "j.sqlite", mode="challengers")
    assert code == 0, capsys.readouterr().err
    capsys.readouterr()
    folder = _folder_of(SQLITE_PATH_MAX - len(name), tmp_path / "b")
    _journal_at(SQLITE_PATH_MAX, tmp_path / "c").rename(folder / name)
    code, config = _check(tmp_path, folder / "j.sqlite", mode="challengers")
    assert code == 2
    assert capsys.readouterr().err == (
        f"toptable: error: {config}: Option 'journal' in section 'table' keeps the challengers "
        f"game in {name}, a path of 505 bytes in full (absolute, links followed); SQLite opens "
        "a database at a path of at most 504 bytes: choose a shorter path\n"
    )


def test_demo_journal_flag_takes_495_bytes_and_refuses_496(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from controller.cli.flags import JournalFile

    assert JournalFile()(str(_path_of(NEW_MAX, tmp_path))) == _path_of(NEW_MAX, tmp_path)
    monkeypatch.setattr(cli, "COMMAND_MODULES", ("controller.cli.daemon",))
    journal = _path_of(NEW_MAX + 1, tmp_path, last="k")
    assert cli.main(["demo", "--journal", str(journal), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.splitlines()[-1]
    assert err.startswith(f"toptable demo: error: argument --journal: {journal}: a path of 496 ")
    assert err.endswith(": choose a shorter path")


def test_demo_out_takes_a_journal_of_495_bytes_and_refuses_496(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without --journal the demo keeps OUT/journal.sqlite: an --out deep enough that it
    cannot be opened is refused before the demo starts."""
    monkeypatch.setattr(cli, "COMMAND_MODULES", ("controller.cli.daemon",))
    out = _folder_of(NEW_MAX + 1 - len("/journal.sqlite"), tmp_path)
    assert cli.main(["demo", "--out", str(out), "--fast", "--seed", "1"]) == 2
    err = capsys.readouterr().err.splitlines()[-1]
    assert err.startswith(
        f"toptable: error: argument --out: the demo's journal {out / 'journal.sqlite'}: "
        "a path of 496 "
    )
    assert list(out.iterdir()) == []  # nothing made there
