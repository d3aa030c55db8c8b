"""Every photo of a calibration decoded once, every unreadable one named at once."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from numpy.typing import NDArray

from controller.core.errors import DataError, DataProblem
from vision.errors import ImageReadError
from vision.learning.dataset import LabeledImage
from vision.reading.detect import DetectorParams
from vision.reading.read import load_scaled


def decode_each(
    items: Sequence[LabeledImage], params: DetectorParams
) -> list[tuple[NDArray[Any], float]]:
    """Each photo decoded reduced for ``params`` (:func:`load_scaled`) with its factor.

    Raises:
        DataError: a problem per photo that cannot be decoded (its header read, its pixels
            not: a file cut short, damaged), so that one run names them all.
    """
    out: list[tuple[NDArray[Any], float]] = []
    problems: list[DataProblem] = []
    for item in items:
        try:
            out.append(load_scaled(item.image, params))
        except ImageReadError as exc:
            why = str(exc).removeprefix(f"{item.image}: ")
            problems.append(DataProblem(str(item.image), "", "", why))
    if problems:
        raise DataError(problems)
    return out
