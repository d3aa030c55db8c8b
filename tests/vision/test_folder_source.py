"""The folder source (``[camera] source = "folder"``): a folder of photos shown the way a
still camera would show each, for a while, at most the configured width."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from vision.settings import CameraSource
from vision.sources.source import CameraConfig, FolderSource


def _photo(path: Path, width: int, height: int, level: int) -> None:
    cv2.imwrite(str(path), np.full((height, width, 3), level, np.uint8))


def test_each_photo_is_held_for_hold_frames_then_the_folder_ends(tmp_path: Path) -> None:
    """Two photos held three frames each: six frames, in name order, then the end."""
    _photo(tmp_path / "b.png", 320, 240, 200)
    _photo(tmp_path / "a.png", 320, 240, 100)
    config = CameraConfig(
        kind=CameraSource.FOLDER, path=str(tmp_path), hold_frames=3, width=320, height=240
    )
    source = FolderSource(config)
    frames = [source.read() for _ in range(7)]
    levels = [None if f is None else int(f[0, 0, 0]) for f in frames]
    assert levels == [100, 100, 100, 200, 200, 200, None]


def test_a_photo_wider_than_the_width_is_shrunk_to_it_a_smaller_one_kept(tmp_path: Path) -> None:
    """A phone's photo is shrunk to the configured width (the aspect kept); a photo smaller
    than it is given as it is, not blown up."""
    _photo(tmp_path / "a_large.png", 1280, 960, 100)
    _photo(tmp_path / "b_small.png", 320, 240, 200)
    config = CameraConfig(
        kind=CameraSource.FOLDER, path=str(tmp_path), hold_frames=1, width=640, height=480
    )
    source = FolderSource(config)
    large, small = source.read(), source.read()
    assert large is not None and large.shape == (480, 640, 3)
    assert small is not None and small.shape == (240, 320, 3)


def test_hidden_files_and_folders_named_like_photos_are_no_frames(tmp_path: Path) -> None:
    """A folder copied from a Mac holds ``._a.png`` beside ``a.png`` (no image: its decode
    failed each time round); a folder ``b.png`` holds no frame."""
    _photo(tmp_path / "a.png", 320, 240, 100)
    (tmp_path / "._a.png").write_bytes(b"\x00\x05\x16\x07 Mac OS X resource fork")
    (tmp_path / "b.png").mkdir()
    config = CameraConfig(
        kind=CameraSource.FOLDER, path=str(tmp_path), hold_frames=1, width=320, height=240
    )
    source = FolderSource(config)
    assert source.files == [tmp_path / "a.png"]
    first, end = source.read(), source.read()
    assert first is not None and int(first[0, 0, 0]) == 100 and end is None
