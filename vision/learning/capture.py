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

import numpy as np
import numpy.typing as npt

from vision.errors import CameraError, DatasetWriteError, ImageReadError
from vision.images import write_image
from vision.learning.dataset_layout import write_data_yaml
from vision.learning.same_faces import check_same_faces
from vision.own_folder import check_own_folder, made_with_line
from vision.reading.detect import detect
from vision.reading.model import FaceModel
from vision.sources.source import CameraConfig, open_source

Ask = Callable[[str], str]
Say = Callable[[str], None]
MADE_BY = "toptable dice capture"


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
    A folder captured before with the same faces is added to: no photo is written over.

    Raises:
        CameraError: the camera cannot be opened or gives no frame.
        DataError: ``out`` holds files this capture did not write (the owner's own photos),
            or photos of other faces.
        DatasetWriteError: a photo or its labels cannot be written (the file is named).
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
    check_own_folder(root, made_with_line(MADE_BY), MADE_BY)
    check_same_faces(root, names, "give the same --faces, or another folder")
    (root / "images").mkdir(parents=True, exist_ok=True)
    (root / "labels").mkdir(parents=True, exist_ok=True)
    write_data_yaml(root, names, MADE_BY)
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
                stem = _free_stem(root, cls)
                lines = [
                    f"{cls} {(x + bw / 2) / w:.6f} {(y + bh / 2) / h:.6f} {bw / w:.6f} {bh / h:.6f}"
                    for x, y, bw, bh in (d.box for d in found)
                ]
                _save(root, stem, frame, "\n".join(lines) + "\n")
                saved += 1
                shot += 1
                say(f"saved {stem}.png with {len(found)} x '{name}'")
    finally:
        source.close()
    return saved


def _free_stem(root: Path, cls: int) -> str:
    """The name of the next photo of class ``cls``: one no photo of ``root`` has yet."""
    n = 0
    while (root / "images" / f"capture_{cls}_{n}.png").exists():
        n += 1
    return f"capture_{cls}_{n}"


def _save(root: Path, stem: str, frame: npt.NDArray[np.uint8], labels: str) -> None:
    """Write the photo ``stem`` and its labels.

    Raises:
        DatasetWriteError: either cannot be written (OpenCV says only that it failed).
    """
    photo = root / "images" / f"{stem}.png"
    try:
        write_image(photo, frame)
    except ImageReadError as exc:
        raise DatasetWriteError(str(exc)) from None
    try:
        (root / "labels" / f"{stem}.txt").write_text(labels, encoding="utf-8")
    except OSError as exc:
        raise DatasetWriteError(
            f"{root / 'labels' / stem}.txt: cannot be written ({exc.strerror or exc})"
        ) from None
