"""The demo's GIF of the screens: written frame by frame, it shows every picture recorded."""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw, ImageSequence

from controller.demo.record import GIF_FRAME_MS, ScreenRecorder
from hardware.displays.display_board import DisplayBoard


def _pictures(n: int) -> list[Image.Image]:
    out = []
    for i in range(n):
        im = Image.new("1", (60, 20))
        ImageDraw.Draw(im).rectangle((i * 5, 2, i * 5 + 4, 6 + i), fill=1)
        out.append(im)
    return out


def _recorder(frames: list[Image.Image], limit: int = 600) -> ScreenRecorder:
    recorder = ScreenRecorder(DisplayBoard([]), limit)
    for frame in frames:
        recorder.record(frame)
    return recorder


def test_every_recorded_picture_is_a_frame_of_the_gif_enlarged(tmp_path: Path) -> None:
    pictures = _pictures(7)
    path = _recorder(pictures).save(tmp_path / "screens.gif", scale=2)
    assert path is not None
    gif = Image.open(path)
    assert gif.size == (120, 40)
    assert gif.info.get("loop") == 0
    shown = [f.convert("L").copy() for f in ImageSequence.Iterator(gif)]
    assert len(shown) == len(pictures)
    for picture, frame in zip(pictures, shown, strict=True):
        expected = picture.convert("L").resize((120, 40), Image.Resampling.NEAREST)
        assert frame.tobytes() == expected.tobytes()
    gif.seek(3)
    assert gif.info["duration"] == GIF_FRAME_MS


def test_nothing_shown_writes_no_gif(tmp_path: Path) -> None:
    assert _recorder([]).save(tmp_path / "screens.gif") is None
    assert not (tmp_path / "screens.gif").exists()


def test_a_picture_shown_again_at_once_is_kept_once(tmp_path: Path) -> None:
    first, second = _pictures(2)
    recorder = _recorder([first, first.copy(), second, first])
    assert recorder.pictures == 3
    path = recorder.save(tmp_path / "screens.gif", scale=1)
    assert path is not None
    shown = [f.convert("1").tobytes() for f in ImageSequence.Iterator(Image.open(path))]
    assert shown == [p.tobytes() for p in (first, second, first)]


def test_a_long_game_is_kept_whole_at_a_lower_rate(tmp_path: Path) -> None:
    pictures = _pictures(9)
    recorder = _recorder(pictures, limit=4)
    assert recorder.pictures == 9
    path = recorder.save(tmp_path / "screens.gif", scale=1)
    assert path is not None
    shown = [f.convert("1").tobytes() for f in ImageSequence.Iterator(Image.open(path))]
    order = [p.tobytes() for p in pictures]
    at = [order.index(frame) for frame in shown]
    assert len(shown) <= 4 and at == sorted(at)  # thinned, in the order shown
    assert at[0] == 0 and at[-1] == 8  # from the game's start to its end
