"""A Pi's plug is pulled within seconds of the last command: every file a command makes is
on the disk when it returns, synced before its rename and its folder after (review 107).

``os.fsync`` is watched (the real one still runs): a writer is durable when the file's
final inode was synced and then its folder. A 0-byte file, what a power cut leaves of a
file being written, is refused by name as empty.
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterator
from pathlib import Path
from typing import cast

import pytest

from controller.board.sensor_map import save_sensor_map
from controller.cli.dice import _save_whole
from controller.core.errors import DataError
from controller.core.jsonfile import read_json
from controller.core.tomlfile import read_toml
from controller.game.journal import Journal
from controller.gamedata.datadir import init_data_dir
from controller.system.install_steps import carry_out, mkdir_step, write_step
from vision.errors import ModelError
from vision.reading.model import FaceModel, load_model


@pytest.fixture
def synced(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """The inodes ``os.fsync`` flushed, in order."""
    done: list[int] = []
    real = os.fsync

    def watched(fd: int) -> None:
        done.append(os.fstat(fd).st_ino)
        real(fd)

    monkeypatch.setattr(os, "fsync", watched)
    yield done


def _on_disk(path: Path, synced: list[int]) -> bool:
    """Whether ``path`` was synced, and its folder after it."""
    file, folder = path.stat().st_ino, path.parent.stat().st_ino
    return file in synced and folder in synced[synced.index(file) :]


def test_a_sensor_map_is_on_the_disk(tmp_path: Path, synced: list[int]) -> None:
    path = save_sensor_map(tmp_path / "board" / "sensors.toml", "tournament", {1: 1, 2: 2})
    assert _on_disk(path, synced)


def test_a_model_is_on_the_disk(tmp_path: Path, synced: list[int]) -> None:
    class Written:
        def save(self, path: Path) -> None:
            path.write_bytes(b"a model's bytes")

    path = _save_whole(cast(FaceModel, Written()), tmp_path / "faces")
    assert _on_disk(path, synced)


def test_installed_files_are_on_the_disk(tmp_path: Path, synced: list[int]) -> None:
    unit = tmp_path / "etc" / "systemd" / "system" / "toptable.service"
    steps = [mkdir_step(unit.parent), write_step(unit, "[Unit]\n")]
    carry_out(steps, io.StringIO())
    assert _on_disk(unit, synced)
    assert unit.parent.parent.stat().st_ino in synced  # the folder made, in its own


def test_a_new_journal_is_on_the_disk(tmp_path: Path, synced: list[int]) -> None:
    with Journal.create(tmp_path / "journal.sqlite", {"mode": "tournament"}):
        pass
    assert _on_disk(tmp_path / "journal.sqlite", synced)


def test_a_new_data_folder_is_on_the_disk(tmp_path: Path, synced: list[int]) -> None:
    dest = tmp_path / "data"
    made = init_data_dir(dest)
    files = [dest / p for p in made.copied]
    assert files and all(p.stat().st_ino in synced for p in files)
    assert _on_disk(dest, synced)


@pytest.mark.parametrize("name", ["warriors.toml", "scenario.json"])
def test_an_empty_data_file_is_said_to_be_empty(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_bytes(b"")
    with pytest.raises(DataError) as caught:
        (read_json if name.endswith(".json") else read_toml)(path)
    assert str(caught.value).startswith(f"{path}: empty (0 bytes): a file being written when")


def test_an_empty_model_is_said_to_be_empty(tmp_path: Path) -> None:
    path = tmp_path / "faces.npz"
    path.write_bytes(b"")
    with pytest.raises(ModelError, match=r"faces.npz: empty \(0 bytes\): a file being written"):
        load_model(path)
