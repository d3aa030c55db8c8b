"""Interactive capture: lay the dice out face by face, confirm, save a YOLO dataset.

For each face name (class order) the person lays every die with that face up
and presses Enter; the frame is taken, the dice are found and counted, and
once the person confirms, the photo and its label file (one ``class cx cy w h``
line per die) are saved under ``images/`` and ``labels/`` with a ``data.yaml``.
That folder then feeds ``toptable dice calibrate``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import cv2

from vision.errors import CameraError, ImageReadError
from vision.learning.dataset_layout import write_data_yaml
from vision.reading.detect import detect
from vision.reading.model import FaceModel
from vision.sources.source import CameraConfig, open_source

Ask = Callable[[str], str]
Say = Callable[[str], None]


def _answer(ask: Ask, prompt: str) -> str:
    """The person's answer to ``prompt``, trimmed and in small letters; the end of the input
    (Ctrl-D, or none to read) stops the capture as ``q`` does, keeping what was saved."""
    try:
        return ask(prompt).strip().lower()
    except EOFError:
        return "q"


def run_capture(
    config: CameraConfig,
    out: str | Path,
    names: Sequence[str],
    model: FaceModel | None = None,
    shots: int = 2,
    ask: Ask | None = None,
    say: Say | None = None,
    warmup: int = 3,
) -> int:
    """Run the capture dialogue (``ask``/``say`` default to input/print); return photos saved.

    Raises:
        CameraError: the camera cannot be opened or gives no frame.
    """
    if not names:
        raise CameraError("no face names to capture")
    ask = ask or input
    say = say or print
    if model is None:
        from vision.learning.defaults import default_model

        model = default_model()
    finder = model.detector
    root = Path(out)
    (root / "images").mkdir(parents=True, exist_ok=True)
    (root / "labels").mkdir(parents=True, exist_ok=True)
    write_data_yaml(root, names)
    source = open_source(config)
    saved = 0
    try:
        for cls, name in enumerate(names):
            shot = 0
            while shot < shots:
                answer = _answer(
                    ask,
                    f"Lay every die with '{name}' up ({shot + 1}/{shots}); "
                    "Enter to take, s to skip this face, q to stop: ",
                )
                if answer == "q":
                    return saved
                if answer == "s":
                    break
                frame = None
                for _ in range(max(1, warmup)):
                    try:
                        got = source.read()
                    except ImageReadError as exc:
                        say(f"skipped an unreadable frame: {exc}")
                        continue
                    frame = got if got is not None else frame
                if frame is None:
                    raise CameraError(f"{source.name}: no frame to capture")
                found = [d for d in detect(frame, finder).detections if not d.cocked]
                if not found:
                    say("no die found; check the light and the tray, then try again")
                    continue
                ok = _answer(ask, f"found {len(found)} dice: all showing '{name}'? [Y/n] ")
                if ok == "q":
                    return saved
                if ok not in ("", "y", "yes"):
                    continue
                h, w = frame.shape[:2]
                stem = f"capture_{cls}_{shot}"
                cv2.imwrite(str(root / "images" / f"{stem}.png"), frame)
                lines = [
                    f"{cls} {(x + bw / 2) / w:.6f} {(y + bh / 2) / h:.6f} {bw / w:.6f} {bh / h:.6f}"
                    for x, y, bw, bh in (d.box for d in found)
                ]
                (root / "labels" / f"{stem}.txt").write_text(
                    "\n".join(lines) + "\n", encoding="utf-8"
                )
                saved += 1
                shot += 1
                say(f"saved {stem}.png with {len(found)} x '{name}'")
    finally:
        source.close()
    return saved
