"""A journal records the data its game is played with file by file (each file as loaded:
the data folder's, a ``base`` outside it, the board layout a table's config names), and a
resume compares it before anything is replayed: a file that changed, appeared or went
missing is named; a comment, a note beside the data, a folder moved are not a change."""

from __future__ import annotations

import contextlib
import json
import re
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from controller.config import Config, parse_config
from controller.core.kinds import GameKind
from controller.daemon.journals import game_data_for, open_game
from controller.game import engine
from controller.game.events import GameEvent
from controller.game.session import TableGame
from controller.game.simulate import play_game
from controller.game.state import GameConfig, GameState, Length
from controller.gamedata import DEMO_DIR
from controller.gamedata.bundle import load_game_data
from controller.gamedata.datadir import init_data_dir
from controller.gamedata.sources import data_files
from controller.storage.origin import ContradictionError, data_fingerprint
from tests.cli_runner import cli_runner

EVENTS = 59  # a game well under way: drafted, placed, fighting; a move last


def _play_on(game: TableGame, events: int = EVENTS, seed: int = 5) -> None:
    """Play ``events`` more events of the bots' game in ``game``, then close it."""

    class _StopError(Exception):
        pass

    count = 0

    def submit(event: GameEvent) -> GameState:
        nonlocal count
        if count >= events:
            raise _StopError
        count += 1
        return game.submit(event)

    with game, contextlib.suppress(_StopError):
        play_game(game.config, game.data, seed, None, submit, game.events())


def _half_played(journal: Path, data: Path | None = None) -> None:
    config = GameConfig(("P1", "P2", "P3", "P4"), Length.ROUNDS10)
    _play_on(TableGame.start(journal, config, load_game_data(data), data, 5))


def _own_data(tmp_path: Path) -> Path:
    folder = tmp_path / "data"
    init_data_dir(folder)
    return folder


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _table(journal: Path, data: Path | None = None, layout: Path | None = None) -> Config:
    table: dict[str, object] = {"journal": str(journal), "players": 4}
    if data is not None:
        table["data_dir"] = str(data)
    board = {"layout": str(layout)} if layout is not None else {}
    return parse_config({"table": table, "board": board})


def _below_30(match: re.Match[str]) -> str:
    near = [n for n in match[1].split(", ") if n and int(n) < 30]
    return f"neighbours = [{', '.join(near)}]"


@pytest.fixture
def no_replay(monkeypatch: pytest.MonkeyPatch) -> None:
    """A replay fails the test: the data must be refused before any."""

    def replay(*args: object, **kwargs: object) -> GameState:
        raise AssertionError("the journal was replayed before its data was compared")

    monkeypatch.setattr(engine, "replay", replay)


def test_an_outside_board_layout_edited_mid_game_is_refused_naming_it(tmp_path: Path) -> None:
    layout = tmp_path / "etc" / "board.toml"
    layout.parent.mkdir()
    shutil.copy(DEMO_DIR / "board.toml", layout)
    journal = tmp_path / "t.sqlite"
    config = _table(journal, layout=layout)
    _play_on(open_game(config, game_data_for(config), ("P1", "P2", "P3", "P4"), seed=5))
    open_game(config, game_data_for(config)).close()  # untouched: resumed
    with TableGame.resume(journal, writable=False) as game:  # game check: the same layout
        assert len(game.journal) == EVENTS
    _edit(layout, 'colour = "red"', 'colour = "blue"')
    before = journal.read_bytes()
    named = f"board layout {layout.resolve()} changed"
    openers: list[Callable[[], object]] = [
        lambda: open_game(config, game_data_for(config)),  # toptable run
        lambda: TableGame.resume(journal, writable=False),  # game check, export
    ]
    for opened in openers:
        with pytest.raises(ContradictionError) as caught:
            opened()
        assert named in str(caught.value) and "\n" not in str(caught.value)
        assert "resume with the data the game was played with" in str(caught.value)
    assert journal.read_bytes() == before


def test_an_outside_layout_swapped_for_a_smaller_board_is_not_called_a_damaged_journal(
    tmp_path: Path, no_replay: None
) -> None:
    layout = tmp_path / "board.toml"
    shutil.copy(DEMO_DIR / "board.toml", layout)
    journal = tmp_path / "t.sqlite"
    config = _table(journal, layout=layout)
    open_game(config, game_data_for(config), seed=5).close()
    head, *spaces = layout.read_text(encoding="utf-8").split("[[space]]")
    kept = [s for s in spaces if int(re.search(r"id = (\d+)", s)[1]) < 30]  # type: ignore[index]
    kept = [re.sub(r"neighbours = \[([^\]]*)\]", _below_30, s) for s in kept]
    layout.write_text(head + "".join(f"[[space]]{s}" for s in kept), encoding="utf-8")
    game_data_for(config)  # a board that loads: 30 spaces
    with pytest.raises(ContradictionError) as caught:
        open_game(config, game_data_for(config))
    message = str(caught.value)
    assert f"board layout {layout.resolve()} changed" in message
    assert "[board] layout" in message and "does not replay" not in message


def test_a_base_outside_the_data_folder_edited_is_refused_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    data = _own_data(tmp_path)
    base = tmp_path / "base" / "rw.toml"
    base.parent.mkdir()
    (data / "rulebook-warriors.toml").rename(base)
    _edit(data / "warriors.toml", 'base = "rulebook-warriors.toml"', 'base = "../base/rw.toml"')
    journal = tmp_path / "j.sqlite"
    _half_played(journal, data)
    _edit(base, 'name = "Jiren"\naliases = []\nendurance = 42', 'name = "Jiren"\n'
          'aliases = []\nendurance = 30')  # fmt: skip
    named = f"base of warriors.toml {base.resolve()} changed"
    with pytest.raises(ContradictionError, match=named):
        TableGame.resume(journal)
    run = cli_runner(monkeypatch, capsys, "controller.cli.game")
    for argv in (("check",), ("play", "--data", str(data)), ("export", "--text")):
        code, out, err = run("game", argv[0], str(journal), *argv[1:])
        assert (code, out) == (2, "") and named in err, err
    with pytest.raises(ContradictionError, match=named):
        open_game(_table(journal, data), load_game_data(data))


def test_a_comment_a_new_layout_of_a_file_or_a_note_beside_the_data_resumes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    data = _own_data(tmp_path)
    journal = tmp_path / "j.sqlite"
    _half_played(journal, data)
    cards = data / "cards.toml"
    cards.write_text(cards.read_text(encoding="utf-8") + "\n# checked against my cards\n")
    _edit(data / "warriors.toml", "invented = true", "invented   =   true # so far")
    (data / "notes.json").write_text(json.dumps({"who": "Ann"}), encoding="utf-8")
    (data / "scenarios" / "mine.json").write_text("{}", encoding="utf-8")
    run = cli_runner(monkeypatch, capsys, "controller.cli.game")
    for argv in (("check",), ("export", "--text"), ("check", "--data", str(data))):
        code, out, err = run("game", argv[0], str(journal), *argv[1:])
        assert (code, err) == (0, "") and out
    with open_game(_table(journal, data), load_game_data(data)) as game:  # toptable run
        assert len(game.journal) == EVENTS
    code, out, err = run("game", "play", str(journal), "--data", str(data))
    assert (code, err) == (0, "") and "winners" in out


def test_a_changed_card_file_is_refused_naming_it_before_any_replay(
    tmp_path: Path, no_replay: None
) -> None:
    data = _own_data(tmp_path)
    journal = tmp_path / "j.sqlite"
    config = GameConfig(("P1", "P2"), Length.ROUNDS5)
    TableGame.start(journal, config, load_game_data(data), data, 5).close()
    _edit(data / "cards.toml", "amount = 22", "amount = 30")
    openers: list[Callable[[], object]] = [
        lambda: TableGame.resume(journal),  # game check, export, undo, play
        lambda: TableGame.resume(journal, data_dir=data),  # ... --data
        lambda: open_game(_table(journal, data), load_game_data(data)),  # toptable run
    ]
    for opened in openers:
        with pytest.raises(ContradictionError) as caught:
            opened()
        message = str(caught.value)
        assert f"{data} is not the data the game was played with: cards.toml changed " in message
        assert "does not replay" not in message


def test_a_journal_from_before_the_record_is_compared_by_its_fingerprint_before_replaying(
    tmp_path: Path, no_replay: None
) -> None:
    data = _own_data(tmp_path)
    journal = tmp_path / "j.sqlite"
    config = GameConfig(("P1", "P2"), Length.ROUNDS5)
    TableGame.start(journal, config, load_game_data(data), data, 5).close()
    with sqlite3.connect(journal) as conn:  # an older journal: the fingerprint only
        conn.execute(
            "UPDATE meta SET value = json_remove(value, '$.data_files') WHERE key = 'setup'"
        )
    conn.close()
    kept = data_fingerprint(data)
    cards = data / "cards.toml"
    cards.write_text(cards.read_text(encoding="utf-8") + "\n# a comment\n", encoding="utf-8")
    openers: list[tuple[Callable[[], object], str]] = [
        (lambda: open_game(_table(journal, data), load_game_data(data)), "[table] data_dir"),
        (lambda: TableGame.resume(journal), "its data directory"),
        (lambda: TableGame.resume(journal, data_dir=data), "--data"),
    ]
    for opened, flag in openers:
        with pytest.raises(ContradictionError) as caught:
            opened()
        assert str(caught.value) == (
            f"{journal}: {flag} {data} (data set {data_fingerprint(data)}) contradicts the "
            f"journal's data set {kept} (resume with the data the game was played with)"
        )


def test_check_export_and_undo_name_a_moved_data_folder_with_data(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    data = _own_data(tmp_path)
    journal = tmp_path / "j.sqlite"
    _half_played(journal, data)
    moved = data.rename(tmp_path / "toptable-data")
    run = cli_runner(monkeypatch, capsys, "controller.cli.game")
    code, out, err = run("game", "check", str(journal), "--data", str(moved))
    assert (code, err) == (0, "") and f"{EVENTS} rows" in out
    code, out, err = run("game", "check", str(journal))
    assert (code, out) == (2, "") and "name where it is now with --data" in err
    code, out, err = run("game", "export", str(journal), "--data", str(moved))
    assert (code, err) == (0, "") and json.loads(out)["game_id"]
    code, out, err = run("game", "undo", str(journal), "--data", str(moved))
    assert (code, err) == (0, "") and out.startswith("undone: ")
    _edit(moved / "cards.toml", "amount = 22", "amount = 30")
    code, out, err = run("game", "export", str(journal), "--data", str(moved), "--text")
    assert (code, out) == (2, "") and f"--data {moved} is not the data" in err
    assert "cards.toml changed" in err


def test_the_record_names_each_file_a_game_loads_by_its_content(tmp_path: Path) -> None:
    data = _own_data(tmp_path)
    files = data_files(data)
    assert sorted(files) == [
        "base of warriors.toml", "board layout", "cards.toml", "story.toml", "warriors.toml"
    ]  # fmt: skip
    assert files["base of warriors.toml"]["path"] == "rulebook-warriors.toml"
    assert files["board layout"]["path"] == "board.toml"
    demo = data_files(DEMO_DIR)  # the same content, its base outside the folder
    assert {n: f["sha"] for n, f in demo.items()} == {n: f["sha"] for n, f in files.items()}
    assert demo["base of warriors.toml"]["path"] == str((DEMO_DIR / "../rulebook").resolve()
                                                         / "warriors.toml")  # fmt: skip
    (data / "story.toml").unlink()
    assert "story.toml" not in data_files(data)


def test_an_outside_layout_moved_is_named_with_board(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    layout = tmp_path / "etc" / "board.toml"
    layout.parent.mkdir()
    shutil.copy(DEMO_DIR / "board.toml", layout)
    journal = tmp_path / "t.sqlite"
    config = _table(journal, layout=layout)
    _play_on(open_game(config, game_data_for(config), ("P1", "P2", "P3", "P4"), seed=5))
    moved = layout.rename(tmp_path / "board-copied-off-the-pi.toml")
    run = cli_runner(monkeypatch, capsys, "controller.cli.game")
    code, out, err = run("game", "check", str(journal))
    assert (code, out) == (2, "") and "went missing" in err and "with --data and --board" in err
    for argv in (("check",), ("export", "--text"), ("undo",)):
        code, out, err = run("game", argv[0], str(journal), "--board", str(moved), *argv[1:])
        assert (code, err) == (0, ""), err


def test_a_data_file_that_no_longer_reads_is_named_with_its_own_problem(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    data = _own_data(tmp_path)
    journal = tmp_path / "j.sqlite"
    _half_played(journal, data)
    warriors = data / "warriors.toml"
    warriors.write_text(warriors.read_text(encoding="utf-8") + "\n[[warrior\n", encoding="utf-8")
    run = cli_runner(monkeypatch, capsys, "controller.cli.game")
    code, out, err = run("game", "check", str(journal))
    assert (code, out) == (2, "") and "warriors.toml" in err
    assert "went missing" not in err and "line" in err  # the parser's place, not a lost base


@pytest.mark.parametrize(
    ("kind", "refused"), [(GameKind.TOURNAMENT, False), (GameKind.STORY, True)]
)
def test_the_story_squares_count_only_in_a_story_game(
    tmp_path: Path, kind: GameKind, refused: bool
) -> None:
    data = _own_data(tmp_path)
    journal = tmp_path / "j.sqlite"
    config = GameConfig(("P1", "P2"), Length.ROUNDS5, kind=kind)
    TableGame.start(journal, config, load_game_data(data), data, 5).close()
    _edit(data / "story.toml", "damage = 19", "damage = 21")
    if not refused:  # a Tournament game never plays them
        TableGame.resume(journal, writable=False).close()
        return
    with pytest.raises(ContradictionError, match=r"story\.toml changed"):
        TableGame.resume(journal, writable=False)
