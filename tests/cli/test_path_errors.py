"""A path no file can have (too long, a loop of links), read from a file: one line naming
it, exit 2, where Python 3.11's ``Path.exists`` and ``is_dir`` raise (review of bad
inputs); an error of the disk keeps its traceback."""

from __future__ import annotations

import errno
import json
import sqlite3
from pathlib import Path

import pytest

from controller.cli import main as cli
from controller.core.errors import DataError
from controller.game.session import run_journaled
from controller.game.state import Length
from tests.cli_runner import cli_runner, failing_parser
from vision.learning.dataset import load_dataset

TOO_LONG = "y" * 300


def test_a_path_no_file_can_have_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    error = OSError(errno.ENAMETOOLONG, "File name too long", f"/data/{TOO_LONG}")
    monkeypatch.setattr(cli, "build_parser", lambda: failing_parser(error))
    assert cli.main([]) == 2
    assert capsys.readouterr().err == f"toptable: error: /data/{TOO_LONG}: File name too long\n"
    disk = OSError(errno.EIO, "Input/output error", "/data/cards.toml")
    monkeypatch.setattr(cli, "build_parser", lambda: failing_parser(disk))
    with pytest.raises(OSError, match="Input/output error"):
        cli.main([])


def test_a_journal_whose_data_folder_no_folder_can_have_names_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "g.sqlite"
    run_journaled(path, 2, Length.ROUNDS5, 1)
    with sqlite3.connect(path) as conn:  # the set-up row is not in the chain of events
        (text,) = conn.execute("SELECT value FROM meta WHERE key = 'setup'").fetchone()
        conn.execute(
            "UPDATE meta SET value = ? WHERE key = 'setup'",
            (json.dumps({**json.loads(text), "data_dir": f"/tmp/{TOO_LONG}"}),),
        )
    conn.close()
    run = cli_runner(monkeypatch, capsys, "controller.cli.game")
    code, out, err = run("game", "check", str(path))
    assert (code, out) == (2, "") and err.count("\n") == 1
    assert f"{path}: field 'data_dir': the game was played with the data in /tmp/yyy" in err


def test_a_photo_set_naming_a_folder_no_folder_can_have_names_it(tmp_path: Path) -> None:
    text = f"train: {TOO_LONG}\nval: {TOO_LONG}\nnames: [kick]\n"
    (tmp_path / "data.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(DataError) as raised:
        load_dataset(tmp_path)
    assert f"data.yaml: field 'train': {tmp_path}/{TOO_LONG}: File name too long" in str(
        raised.value
    )
