"""What a journal records of its game's making: the seed, the data set's fingerprint."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from controller.companion.journal import CompanionJournal
from controller.core.kinds import GameKind
from controller.game.journal import Journal
from controller.game.session import run_journaled
from controller.game.state import Length
from controller.gamedata import DEMO_DIR
from controller.storage.errors import JournalCorruptError
from controller.storage.origin import (
    ContradictionError,
    Origin,
    data_fingerprint,
    refuse_changed_files,
    refuse_contradiction,
    refuse_other_data,
)
from tests.cli_runner import cli_runner


def _copy_of_demo(tmp_path: Path) -> Path:
    folder = tmp_path / "data"
    shutil.copytree(DEMO_DIR, folder)
    return folder


def test_the_fingerprint_follows_the_data_files_and_not_the_tables_config(tmp_path: Path) -> None:
    folder = _copy_of_demo(tmp_path)
    before = data_fingerprint(folder)
    assert before == data_fingerprint(DEMO_DIR)  # the content, not the folder's name
    (folder / "config.toml").write_text("# the table's own settings\n", encoding="utf-8")
    assert data_fingerprint(folder) == before
    cards = folder / "cards.toml"
    cards.write_text(cards.read_text(encoding="utf-8") + "\n# one more line\n", encoding="utf-8")
    assert data_fingerprint(folder) != before


def test_the_fingerprint_follows_the_data_files_names_and_json_files(tmp_path: Path) -> None:
    """A file renamed is another data set (the game loads it by its name), and so is a JSON
    data file added."""
    folder = _copy_of_demo(tmp_path)
    before = data_fingerprint(folder)
    (folder / "story.toml").rename(folder / "story-old.toml")
    renamed = data_fingerprint(folder)
    assert renamed != before
    (folder / "scenarios" / "extra.json").write_text("{}\n", encoding="utf-8")
    assert data_fingerprint(folder) != renamed  # JSON data counts as TOML does


def test_an_origin_round_trips_through_a_setup_and_an_old_setup_has_none() -> None:
    origin = Origin(7, "abc")
    assert Origin.from_setup({"mode": "tournament", **origin.to_setup()}) == origin
    files = {"cards.toml": {"sha": "01"}, "board layout": {"sha": "02", "path": "/etc/b.toml"}}
    origin = Origin(7, "abc", files)
    assert Origin.from_setup(json.loads(json.dumps(origin.to_setup()))) == origin
    assert Origin.from_setup({"mode": "tournament"}) == Origin(None, None)
    assert Origin.from_setup({"seed": None, "data_fingerprint": None}) == Origin(None, None)


@pytest.mark.parametrize(
    ("setup", "named"),
    [
        ({"seed": "one"}, "field 'seed': expected a whole number, got 'one'"),
        ({"seed": True}, "field 'seed': expected a whole number, got True"),
        ({"seed": 1.5}, "field 'seed': expected a whole number, got 1.5"),
        ({"seed": 1, "data_fingerprint": 3}, "field 'data_fingerprint': expected text, got 3"),
        (
            {"data_files": ["cards.toml"]},
            "field 'data_files': expected a JSON object of file "
            'names, each {"sha": text} (and a "path"), got [\'cards.toml\']',
        ),
        (
            {"data_files": {"cards.toml": {"sha": 1}}},
            "field 'data_files': expected a JSON "
            'object of file names, each {"sha": text} (and a "path"), got {\'cards.toml\': '
            "{'sha': 1}}",
        ),
        (  # a misspelt "path": the file would be looked for in the data folder
            {"data_files": {"board layout": {"sha": "02", "Path": "/etc/b.toml"}}},
            "field 'data_files': expected a JSON "
            'object of file names, each {"sha": text} (and a "path"), got {\'board layout\': '
            "{'sha': '02', 'Path': '/etc/b.toml'}}",
        ),
    ],
)
def test_a_wrongly_typed_origin_is_a_damaged_set_up_not_an_absent_one(
    setup: dict[str, Any], named: str
) -> None:
    with pytest.raises(JournalCorruptError) as caught:
        Origin.from_setup(setup, "g.sqlite")
    assert str(caught.value) == f"g.sqlite: the journal's set-up: {named}"


def _set_seed(path: Path, seed: object) -> None:
    """Write ``seed`` into the journal's stored set-up (None: leave the key out)."""
    with sqlite3.connect(path) as conn:
        if seed is None:
            conn.execute("UPDATE meta SET value = json_remove(value, '$.seed') WHERE key = 'setup'")
        else:
            conn.execute(
                "UPDATE meta SET value = json_set(value, '$.seed', ?) WHERE key = 'setup'", (seed,)
            )
    conn.close()


def test_a_journal_whose_seed_is_not_a_number_is_refused_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    run = cli_runner(monkeypatch, capsys, "controller.cli.game")
    path = tmp_path / "g.sqlite"
    run_journaled(path, 2, Length.ROUNDS5, 5)
    _set_seed(path, "one")
    before = path.read_bytes()
    for argv in (("game", "play", str(path)), ("game", "play", str(path), "--seed", "5")):
        code, out, err = run(*argv)
        assert (code, out) == (2, "")
        assert err == (
            f"toptable: error: {path}: the journal's set-up: field 'seed': "
            "expected a whole number, got 'one'\n"
        )
    assert path.read_bytes() == before  # left as it was
    with pytest.raises(JournalCorruptError, match=r"field 'seed'"):
        Journal.open(path)
    companion = tmp_path / "c.sqlite"
    CompanionJournal.start(companion, GameKind.CHALLENGERS, ["Ann", "Bob"], seed=3).close()
    _set_seed(companion, "three")
    with pytest.raises(JournalCorruptError, match=rf"^{companion}: .*field 'seed'"):
        CompanionJournal.open(companion)


def test_an_unknown_variant_is_quoted_in_part(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "g.sqlite"
    run_journaled(path, 2, Length.ROUNDS5, 5)
    with sqlite3.connect(path) as conn:
        conn.execute(
            "UPDATE meta SET value = json_set(value, '$.config.variants', json(?)) "
            "WHERE key = 'setup'",
            (json.dumps(["v" * 100_000]),),
        )
    conn.close()
    code, out, err = cli_runner(monkeypatch, capsys, "controller.cli.game")(
        "game", "check", str(path)
    )
    assert (code, out) == (2, "")
    assert "field 'config.variants': unknown rule variant '" + "v" * 40 + "...' (100000 " in err
    assert len(err) < 1000


def test_a_damaged_seed_is_quoted_in_part(tmp_path: Path) -> None:
    path = tmp_path / "g.sqlite"
    run_journaled(path, 2, Length.ROUNDS5, 5)
    _set_seed(path, "9" * 100_000)
    with pytest.raises(JournalCorruptError) as caught:
        Journal.open(path)
    assert str(caught.value).endswith(
        "field 'seed': expected a whole number, got '" + "9" * 40 + "...' (100000 characters)"
    )


@pytest.mark.parametrize(
    ("players", "got"),
    [
        ('"AB"', "field 'players': expected names, got 'AB'"),
        ("[1, 2]", "field 'players': expected names, got [1, 2]"),
        ("null", "field 'players': expected names, got None"),
        ('["Ann", "B\\u0000b"]', "field 'players[1]': expected a name without a NUL "
         "character (\\u0000), got 'B\\x00b'"),
        (json.dumps(list(range(5000))), "field 'players': expected names, got [0, 1, 2, 3, 4, "
         "5, 6, 7, 8, 9, 10, 11, 12, ... (5000 items)]"),
    ],
)  # fmt: skip
def test_companion_players_that_are_not_names_are_a_damaged_set_up(
    tmp_path: Path, players: str, got: str
) -> None:
    # "AB" was read as the players A and B, [1, 2] as "1" and "2"
    path = tmp_path / "c.sqlite"
    CompanionJournal.start(path, GameKind.DBZ_TCG, ["Ann", "Bob"], seed=3).close()
    with sqlite3.connect(path) as conn:
        conn.execute(
            "UPDATE meta SET value = json_set(value, '$.players', json(?)) WHERE key = 'setup'",
            (players,),
        )
    conn.close()
    with CompanionJournal.open(path) as journal, pytest.raises(JournalCorruptError) as caught:
        journal.players  # noqa: B018
    assert str(caught.value) == (f"{path}: the journal's set-up: {got}")


def test_a_journal_that_records_no_seed_still_resumes_with_seed_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    run = cli_runner(monkeypatch, capsys, "controller.cli.game")
    path = tmp_path / "g.sqlite"
    run_journaled(path, 2, Length.ROUNDS5, 5)
    _set_seed(path, None)  # an older journal
    code, _, err = run("game", "play", str(path))
    assert code == 2 and "records no seed" in err and "give --seed" in err
    code, out, err = run("game", "play", str(path), "--seed", "5")
    assert (code, err) == (0, "") and "winners" in out


def test_a_contradiction_names_the_flag_and_both_values(tmp_path: Path) -> None:
    journal = tmp_path / "j.sqlite"
    refuse_contradiction(journal, "--seed", None, 3)  # not given: the journal's
    refuse_contradiction(journal, "--seed", 3, None)  # an old journal: nothing to contradict
    refuse_contradiction(journal, "--seed", 3, 3)
    with pytest.raises(ContradictionError) as caught:
        refuse_contradiction(journal, "--seed", 4, 3)
    message = str(caught.value)
    assert "\n" not in message
    assert str(journal) in message and "--seed 4" in message and "journal's 3" in message


def test_another_data_set_is_refused_naming_both_fingerprints(tmp_path: Path) -> None:
    folder = _copy_of_demo(tmp_path)
    kept = data_fingerprint(DEMO_DIR)
    refuse_other_data(tmp_path / "j.sqlite", "--data", folder, kept)  # the same data set
    (folder / "board.toml").write_text("# another board\n", encoding="utf-8")
    with pytest.raises(ContradictionError) as caught:
        refuse_other_data(tmp_path / "j.sqlite", "--data", folder, kept)
    message = str(caught.value)
    assert kept in message and data_fingerprint(folder) in message and str(folder) in message


@pytest.mark.parametrize(
    ("where", "value", "named"),
    [
        ("$.config", '"rounds5"', "field 'config': expected a JSON object, got 'rounds5'"),
        ("$.config.length", '"rounds7"', "field 'config.length': expected one of rounds10, "
                                         "rounds5, minutes45, got 'rounds7'"),
        ("$.config.players", '"AB"', "field 'config.players': expected a list of names, got 'AB'"),
        ("$.config.players", '["Ann", "B\\u0000b"]', "field 'config.players[1]': expected a "
         "name without a NUL character (\\u0000), got 'B\\x00b'"),
        ("$.config.variants", "[3]", "field 'config.variants': expected a list of names, got [3]"),
        ("$.data_dir", "5", "field 'data_dir': expected a folder's path, got 5"),
        ("$.config.colours", '"red"', "field 'config.colours': expected a list of names, "
                                      "got 'red'"),
        ("$.config.colours", "[1, 2]", "field 'config.colours': expected a list of names, "
                                       "got [1, 2]"),
        ("$.config.game_id", "[]", "field 'config.game_id': expected text, got []"),
        # a damaged value is quoted in part, so the error stays one line a person can read
        ("$.config.players", json.dumps(list(range(5000))), "field 'config.players': expected "
         "a list of names, got [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, ... (5000 items)]"),
        ("$.config.length", json.dumps("x" * 100_000), "field 'config.length': expected one of "
         "rounds10, rounds5, minutes45, got '" + "x" * 40 + "...' (100000 characters)"),
    ],
)  # fmt: skip
def test_a_dice_journal_whose_game_does_not_read_is_named_not_a_traceback(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    where: str,
    value: str,
    named: str,
) -> None:
    path = tmp_path / "g.sqlite"
    run_journaled(path, 2, Length.ROUNDS5, 5)
    with sqlite3.connect(path) as conn:
        conn.execute(
            "UPDATE meta SET value = json_set(value, ?, json(?)) WHERE key = 'setup'",
            (where, value),
        )
    conn.close()
    before = path.read_bytes()
    run = cli_runner(monkeypatch, capsys, "controller.cli.game")
    for argv in (("game", "check", str(path)), ("game", "play", str(path))):
        code, out, err = run(*argv)
        assert (code, out) == (2, ""), err
        assert err == f"toptable: error: {path}: the journal's set-up: {named}\n"
    assert path.read_bytes() == before


def test_changed_files_are_named_each_by_what_became_of_it(tmp_path: Path) -> None:
    journal, folder = tmp_path / "j.sqlite", tmp_path / "data"
    kept = {
        "warriors.toml": {"sha": "1"},
        "cards.toml": {"sha": "2"},
        "story.toml": {"sha": "3"},
        "board layout": {"sha": "4", "path": "/etc/toptable/board.toml"},
    }
    refuse_changed_files(journal, "--data", folder, kept, dict(kept))  # the same files
    given = {**kept, "cards.toml": {"sha": "9"}, "board layout": {"sha": "8", "path": "b.toml"}}
    del given["story.toml"]
    given["extra.toml"] = {"sha": "7"}
    with pytest.raises(ContradictionError) as caught:
        refuse_changed_files(journal, "--data", folder, kept, given)
    assert str(caught.value) == (
        f"{journal}: --data {folder} is not the data the game was played with: cards.toml "
        "changed, b.toml changed, story.toml went missing, extra.toml appeared (resume with "
        "the data the game was played with: restore them as they were when the game began, "
        "or name that data with --data and --board)"
    )
