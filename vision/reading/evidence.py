"""Where a settled throw's dice lay, kept beside its evidence frame.

The reader keeps each settled frame as a JPEG (``throw_00001.jpg``, named in the game's
journal). Beside it, :func:`write_boxes` keeps the read's dice boxes in
``throw_00001.boxes.json``: ``{"format": 1, "size": [w, h], "boxes": [[x, y, w, h], ...],
"read": [face or null, ...]}`` (pixels of the frame; ``read`` is what the camera read, a
face a person may have corrected since). The journal says which faces the table settled
on; with these boxes a played throw becomes a labelled photo
(:mod:`vision.learning.table_photos`).
"""

from __future__ import annotations

import contextlib
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from controller.core.errors import DataError
from controller.core.jsonfile import read_json
from controller.core.quoting import short_repr

BOXES_FORMAT = 1
BOXES_SUFFIX = ".boxes.json"
EDGE_SLACK = 0.01  # a box may pass the frame's edge by this share of its side (rounding)

Box = tuple[float, float, float, float]


@dataclass(frozen=True)
class ThrowBoxes:
    """The dice boxes of one evidence frame, in its pixels, and the faces first read."""

    size: tuple[int, int]
    boxes: tuple[Box, ...]
    read: tuple[str | None, ...]


def boxes_path(frame: str | Path) -> Path:
    """The file beside evidence ``frame`` that holds its dice boxes."""
    frame = Path(frame)
    return frame.with_name(frame.stem + BOXES_SUFFIX)


def write_boxes(frame: str | Path, throw: ThrowBoxes) -> Path | None:
    """Keep ``throw`` beside evidence ``frame``; the path written, or None when it cannot
    be written (the throw is played all the same: it is only not learned from later)."""
    doc = {
        "format": BOXES_FORMAT,
        "size": list(throw.size),
        "boxes": [[round(v, 2) for v in box] for box in throw.boxes],
        "read": list(throw.read),
    }
    path = boxes_path(frame)
    try:
        path.write_text(json.dumps(doc) + "\n", encoding="utf-8")
    except OSError:
        return None
    return path


def discard_evidence(frame: str | None) -> None:
    """Remove evidence ``frame`` and its boxes: a settled read the table did not take as
    a throw (the game waited for no dice; nobody threw), which no journal row will name.
    Kept, such frames filled the card all evening (a daemon left on kept one a settle)."""
    if not frame:
        return
    for path in (Path(frame), boxes_path(frame)):
        with contextlib.suppress(OSError):  # gone already, or a card gone read-only
            path.unlink(missing_ok=True)


def read_boxes(frame: str | Path) -> ThrowBoxes:
    """The dice boxes kept beside evidence ``frame``.

    Raises:
        FileNotFoundError: none were kept (a frame kept by an older toptable).
        DataError: the file is unreadable or not JSON (as :func:`read_json` refuses it: a
            key named twice, say), malformed, or a box lies outside the frame (it and the
            field are named).
    """
    path = boxes_path(frame)
    try:
        path.stat()
    except FileNotFoundError:
        raise  # an older toptable kept none: the caller says so, not as a damaged file
    except OSError:
        pass  # read_json names what stops it
    doc = read_json(path)
    if not isinstance(doc, dict):
        raise DataError.single(str(path), "", "", "expected a JSON object")
    if doc.get("format") != BOXES_FORMAT:
        raise DataError.single(
            str(path), "", "format", f"expected {BOXES_FORMAT}, got {doc.get('format')!r}"
        )
    size = _numbers(doc.get("size"), 2)
    if size is None or any(v < 1 or v != int(v) for v in size):
        raise DataError.single(str(path), "", "size", "expected [width, height] in pixels")
    raw_boxes = doc.get("boxes")
    if not isinstance(raw_boxes, list):
        raise DataError.single(str(path), "", "boxes", "expected a list of [x, y, w, h]")
    boxes: list[Box] = []
    width, height = size[0], size[1]
    for i, raw in enumerate(raw_boxes):
        box = _numbers(raw, 4)
        if box is None or box[2] <= 0 or box[3] <= 0:
            raise DataError.single(
                str(path),
                "",
                f"boxes[{i}]",
                f"expected [x, y, w, h] with w, h > 0, got {short_repr(raw)}",
            )
        x, y, w, h = box
        slack_x, slack_y = EDGE_SLACK * width, EDGE_SLACK * height
        if x < -slack_x or y < -slack_y or x + w > width + slack_x or y + h > height + slack_y:
            raise DataError.single(
                str(path), "", f"boxes[{i}]", f"lies outside the {width:g}x{height:g} frame"
            )
        boxes.append((x, y, w, h))
    read = doc.get("read")
    if not isinstance(read, list) or len(read) != len(boxes):
        raise DataError.single(
            str(path), "", "read", f"expected a face or null for each of the {len(boxes)} boxes"
        )
    if not all(face is None or isinstance(face, str) for face in read):
        raise DataError.single(str(path), "", "read", "expected face names or null")
    return ThrowBoxes((int(size[0]), int(size[1])), tuple(boxes), tuple(read))


def _numbers(raw: object, count: int) -> Sequence[float] | None:
    """``raw`` as ``count`` finite numbers, or None when it is not."""
    if not isinstance(raw, list) or len(raw) != count:
        return None
    if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in raw):
        return None
    try:
        values = [float(v) for v in raw]
    except OverflowError:  # a JSON integer past a float's range
        return None
    return values if all(math.isfinite(v) for v in values) else None
