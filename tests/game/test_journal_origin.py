"""A dice-game journal knows its own game: set-up, seed and data set come from it on resume."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from controller.core.errors import DataError
from controller.core.kinds import GameKind
from controller.game.session import TableGame, run_journaled
from controller.game.simulate import play_game
from controller.game.state import GameConfig, Length
from controller.gamedata import DEMO_DIR
from controller.gamedata.datadir import check_data_dir
from controller.gamedata.sources import data_files
from controller.storage.origin import ContradictionError, data_fingerprint
from tests.cli_runner import cli_runner
from tests.game.helpers import demo_data


def test_a_new_journal_records_the_seed_and_the_data_set(tmp_path: Path) -> None:
    path = tmp_path / "g.sqlite"
    with TableGame.start(path, GameConfig(("A", "B"), Length.ROUNDS5), demo_data(), None, 12):
        pass
    with TableGame.resume(path) as game:
        assert game.origin.seed == 12
        assert game.origin.data_fingerprint == data_fingerprint(DEMO_DIR)
        assert game.origin.data_files == data_files(DEMO_DIR, story=False)  # a Tournament game
        assert game.data_dir == DEMO_DIR.resolve()


def test_play_after_an_undo_needs_nothing_but_the_journal(tmp_path: Path) -> None:
    expected = play_game(GameConfig(("P1", "P2", "P3"), Length.ROUNDS5), demo_data(), 5)
    path = tmp_path / "g.sqlite"
    first = run_journaled(path, 3, Length.ROUNDS5, 5)
    with TableGame.resume(path) as game:
        game.undo()
    again = run_journaled(path)  # no seed, players, length: the journal's
    assert again.state.summary() == expected.state.summary() == first.state.summary()


def test_a_resume_with_another_seed_or_set_up_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "g.sqlite"
    run_journaled(path, 2, Length.ROUNDS5, 5)
    rows = path.stat().st_size
    for kwargs, named in (
        ({"seed": 6}, "--seed 6 contradicts the journal's 5"),
        ({"players": 4}, "--players 4 contradicts the journal's 2"),
        ({"length": Length.ROUNDS10}, "--length rounds10 contradicts the journal's rounds5"),
        ({"kind": GameKind.STORY}, "story contradicts the journal's tournament"),
    ):
        with pytest.raises(ContradictionError, match=named):
            run_journaled(path, **kwargs)
    assert path.stat().st_size == rows  # nothing written


def test_a_resume_with_another_data_set_is_refused(tmp_path: Path) -> None:
    shutil.copytree(DEMO_DIR.parent, tmp_path / "data")  # the demo set names ../rulebook
    other = tmp_path / "data" / DEMO_DIR.name
    path = tmp_path / "g.sqlite"
    run_journaled(path, 2, Length.ROUNDS5, 5, other)
    run_journaled(path, data_dir=DEMO_DIR)  # the same data set, another folder: accepted
    cards = other / "cards.toml"
    cards.write_text(cards.read_text(encoding="utf-8") + "\n# changed\n", encoding="utf-8")
    run_journaled(path)  # a comment: the same data
    text = cards.read_text(encoding="utf-8")
    cards.write_text(text.replace("amount = 22", "amount = 23", 1), encoding="utf-8")
    with pytest.raises(ContradictionError, match=f"its data directory {other} is not the data "
                       "the game was played with: cards.toml changed"):  # fmt: skip
        run_journaled(path)  # the journal's own folder changed under it
    with pytest.raises(ContradictionError, match=f"--data {other} is not the data"):
        run_journaled(path, data_dir=other)


def test_cli_play_undo_play_with_only_the_journal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    run = cli_runner(monkeypatch, capsys, "controller.cli.game")
    path = str(tmp_path / "g.sqlite")
    code, out, _ = run("game", "play", path, "--players", "2", "--length", "rounds5",
                       "--seed", "3", "--json")  # fmt: skip
    assert code == 0
    finished = json.loads(out)
    assert run("game", "undo", path)[0] == 0
    code, out, err = run("game", "play", path, "--json")
    assert (code, err) == (0, "")
    assert json.loads(out) == finished
    code, out, err = run("game", "play", path, "--seed", "4")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "--seed 4" in err and "journal's 3" in err


def test_a_journal_whose_data_folder_is_gone_names_itself(tmp_path: Path) -> None:
    shutil.copytree(DEMO_DIR.parent, tmp_path / "data")
    mine = tmp_path / "data" / DEMO_DIR.name
    path = tmp_path / "g.sqlite"
    run_journaled(path, 2, Length.ROUNDS5, 5, mine)
    shutil.rmtree(mine)
    with pytest.raises(DataError) as err:
        TableGame.resume(path)
    assert str(err.value) == (
        f"{path}: field 'data_dir': the game was played with the data in {mine}, which is not "
        "there any more: put it back, or name where it is now with --data (game play, check, "
        "export, undo), checked against the journal's"
    )
    with TableGame.resume(path, demo_data()) as game:  # the same set from elsewhere: plays on
        assert len(game.journal) > 0


def test_a_folder_where_a_data_file_should_be_is_named_so(tmp_path: Path) -> None:
    shutil.copytree(DEMO_DIR.parent, tmp_path / "data")
    mine = tmp_path / "data" / DEMO_DIR.name
    (mine / "warriors.toml").unlink()
    (mine / "warriors.toml").mkdir()
    check = check_data_dir(mine)
    assert [str(p) for p in check.problems] == [
        f"{mine / 'warriors.toml'}: is not a file: a data directory needs warriors.toml"
    ]


def test_cli_play_takes_a_new_game_s_variants_and_refuses_others_on_resume(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """docs/rules.md: the engine plays the default and can switch; `game play` could not."""
    run = cli_runner(monkeypatch, capsys, "controller.cli.game")
    path = tmp_path / "g.sqlite"
    code, _, err = run("game", "play", str(path), "--players", "2", "--length", "rounds5",
                       "--variant", "eliminate_only_when_exceeded")  # fmt: skip
    assert (code, err) == (0, "")
    with TableGame.resume(path) as game:
        assert game.config.variants.enabled() == ("eliminate_only_when_exceeded",)
    rows = path.stat().st_size
    code, out, err = run("game", "play", str(path), "--variant", "green_reward_one")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "--variant green_reward_one contradicts the journal's eliminate_only" in err
    assert run("game", "play", str(path), "--variant", "eliminate_only_when_exceeded")[0] == 0
    assert path.stat().st_size == rows  # nothing written
    code, _, err = run("game", "play", str(tmp_path / "new.sqlite"), "--variant", "nope")
    assert code == 2 and "unknown rule variant 'nope'" in err
    assert not (tmp_path / "new.sqlite").exists()
