"""Throws' photos on a card that fills over a season (review "growth" f01): the earlier
games' photos make room, oldest first; past that a photo is not kept and the game plays
on (the card filled, then the journal could not be written: the table stopped)."""

from __future__ import annotations

import errno
import os
import queue
import shutil
from collections import namedtuple
from pathlib import Path
from typing import Any

import pytest

from controller.core.events import Event
from controller.core.symbols import Symbol
from vision.events import ThrowSettled
from vision.reading import photo_room
from vision.reading.model import FaceModel
from vision.reading.photo_room import room_for_photo
from vision.reading.reader import DiceReader
from vision.synth.scenes import Renderer, Settings
from vision.synth.throws import Throw, render_throws

Usage = namedtuple("Usage", "total used free")
MB = 1024 * 1024


def _game(frames: Path, name: str, photos: int, age: int) -> Path:
    game = frames / name
    game.mkdir(parents=True)
    for n in range(1, photos + 1):
        (game / f"throw_{n:05d}.jpg").write_bytes(b"\xff\xd8")
        (game / f"throw_{n:05d}.boxes.json").write_text("{}")
    os.utime(game, (age, age))
    return game


def test_earlier_games_photos_make_room_oldest_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    frames = tmp_path / "journal.frames"
    oldest = _game(frames, "g1", 3, age=1_000)
    newer = _game(frames, "g2", 3, age=2_000)
    (newer / "notes.txt").write_text("the owner's own")  # never a photo: stays
    now = _game(frames, "g3", 2, age=3_000)
    free = {"bytes": 10 * MB}

    def usage(path: Any) -> Usage:  # each photo file deleted frees 100 MB
        left = sum(1 for p in frames.rglob("throw_*") if p.parent != now)
        return Usage(0, 0, free["bytes"] + (9 - left) * 100 * MB)

    monkeypatch.setattr(shutil, "disk_usage", usage)
    # a folder of photos not the table's (`dice watch --evidence`): its neighbours stay
    assert not room_for_photo(now, MB) and oldest.exists()
    assert room_for_photo(now, MB, prune=True)  # g1's six files went: 310 MB free
    assert not oldest.exists() and len(list(newer.glob("throw_*"))) == 6
    assert len(list(now.glob("throw_*"))) == 4  # the game's own are never deleted
    free["bytes"] = -2_000 * MB  # nothing left to delete makes room enough
    assert not room_for_photo(now, MB, prune=True)
    assert sorted(p.name for p in newer.iterdir()) == ["notes.txt"]
    assert len(list(now.glob("throw_*"))) == 4


def test_a_photo_an_export_links_is_not_deleted_for_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`dice table-photos` hard-links the frames it exports: deleting such a frame frees
    no byte, yet the earlier game's throws were deleted and "room" was logged (review
    diff15 f09); its photo and boxes stay together, the others make room."""
    frames = tmp_path / "journal.frames"
    earlier = _game(frames, "g1", 2, age=1_000)
    now = _game(frames, "g2", 1, age=2_000)
    exported = tmp_path / "table-photos" / "images"
    exported.mkdir(parents=True)
    os.link(earlier / "throw_00001.jpg", exported / "g1_throw_00001.jpg")
    monkeypatch.setattr(shutil, "disk_usage", lambda path: Usage(0, 0, 0))
    assert not room_for_photo(now, MB, prune=True)
    assert sorted(p.name for p in earlier.iterdir()) == [
        "throw_00001.boxes.json", "throw_00001.jpg"
    ]  # fmt: skip
    assert (exported / "g1_throw_00001.jpg").read_bytes() == b"\xff\xd8"


@pytest.mark.timeout(60)
def test_a_full_card_keeps_no_photo_and_the_throw_is_read(
    model: FaceModel,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    frames = render_throws(
        [Throw((Symbol.KICK, Symbol.STAR))], Renderer(Settings(width=640, height=480), seed=4)
    )
    q: queue.Queue[Event] = queue.Queue()
    folder = tmp_path / "journal.frames" / "g1"
    reader = DiceReader(model, q, expect=2, evidence_dir=folder)
    monkeypatch.setattr(photo_room, "_free", lambda folder: 0)
    for _ in range(2):
        reader.new_attack()
        for f in frames:
            reader.feed(f.image, f.t)
    events = [e for e in list(q.queue) if isinstance(e, ThrowSettled)]
    assert len(events) == 2 and all(e.evidence_path is None for e in events)
    said = [r for r in caplog.records if "too little room" in r.getMessage()]
    assert len(said) == 1 and not list(folder.glob("*"))


@pytest.mark.timeout(60)
def test_a_photo_cut_short_by_a_full_card_is_not_left_empty(
    model: FaceModel, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The card filled as a photo was written: an empty throw_NNNNN.jpg was left."""
    frames = render_throws(
        [Throw((Symbol.KICK, Symbol.STAR))], Renderer(Settings(width=640, height=480), seed=4)
    )
    q: queue.Queue[Event] = queue.Queue()
    folder = tmp_path / "evidence"
    reader = DiceReader(model, q, expect=2, evidence_dir=folder)
    real_open = Path.open

    def full(self: Path, mode: str = "r", *args: Any, **kw: Any) -> Any:
        handle = real_open(self, mode, *args, **kw)
        if self.suffix == ".jpg" and "x" in mode:

            def no_room(data: bytes) -> int:
                raise OSError(errno.ENOSPC, "No space left on device")

            handle.write = no_room  # type: ignore[method-assign,assignment]
        return handle

    monkeypatch.setattr(Path, "open", full)
    for f in frames:
        reader.feed(f.image, f.t)
    (event,) = [e for e in list(q.queue) if isinstance(e, ThrowSettled)]
    assert event.evidence_path is None and not list(folder.glob("*.jpg"))
