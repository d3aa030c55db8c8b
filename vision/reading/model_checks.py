"""The checks a face model file passes when loaded (:func:`vision.reading.model.load_model`):
each names the file and the field, and what was expected.

Which values may be infinite: none of the numbers calibration writes is, but for one:
``colour_logp`` holds log-probabilities, and a colour never seen has probability 0, whose
log is -inf (calibration smooths its histogram, a file of another writer may not). No
value may be NaN, and no other may be infinite: a threshold, a distance or a setting that
is NaN or inf makes every comparison with it false (every die sure, or none found), and the
JSON of the finder's settings and of the calibration domain would carry ``NaN`` or
``Infinity`` as Python's ``json`` writes and reads them.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

import numpy as np
from numpy.typing import NDArray

from controller.core.checked import name_key
from controller.core.quoting import printable, short_repr
from vision.errors import ModelError
from vision.reading.photo_scale import CURVE_STEPS

# a model's arrays of numbers, and those of them that are one number each
NUMERIC = ("samples", "mean", "basis", "labels", "det_weights", "det_bias", "colour_logp")
SCALARS = ("threshold", "novelty", "background_margin")


def check_numeric(data: Any, path: Path) -> None:
    """Refuse a model whose arrays of numbers hold anything else (text, objects), or
    whose thresholds are not one number each.

    Raises:
        ModelError: naming the file, the array and what it holds.
    """
    for name in (*NUMERIC, *SCALARS):
        kind = data[name].dtype.kind
        if kind not in "biuf":
            raise ModelError(f"{path}: {name} holds {data[name].dtype} values, expected numbers")
    for name in SCALARS:
        if data[name].shape != ():
            raise ModelError(f"{path}: {name} of shape {data[name].shape}, expected one number")


def check_finite(numbers: dict[str, Any], path: Path) -> None:
    """Refuse a NaN or an infinity in any of ``numbers`` (name -> array or number), or a
    number past float32's range, which the reader would widen or narrow to an infinity.

    Raises:
        ModelError: naming the file and the first array that holds one.
    """
    for name, values in numbers.items():
        # as the reader holds them, float32 at the widest: 1e300 in a float64 file is inf there
        held = np.asarray(values)
        if held.dtype.itemsize > 4:  # narrower values widen to float32 without overflow
            with np.errstate(over="ignore"):
                held = held.astype(np.float32)
        if not np.isfinite(held).all():
            raise ModelError(f"{path}: {name} holds values that are not numbers (damaged)")


def check_colour(colour: NDArray[Any], path: Path) -> None:
    """Refuse a scene colour model holding NaN or +inf (a log-probability is at most 0;
    -inf, a colour never seen, is one).

    Raises:
        ModelError: naming the file and ``colour_logp``.
    """
    if np.isnan(colour).any() or np.isposinf(colour).any():
        raise ModelError(
            f"{path}: colour_logp holds values that are not numbers (damaged): expected "
            "log-probabilities, finite or -inf"
        )


def check_names(names: Sequence[str], path: Path) -> None:
    """Refuse a face named twice, case and spaces aside: a die read as either would be told
    to the game as the one face.

    Raises:
        ModelError: naming the file, ``names``, the name and its two classes.
    """
    first: dict[str, tuple[int, str]] = {}
    for cls, name in enumerate(names):
        key = name_key(name)  # "Kick " is "kick" to the game (parse_symbol) and to table-photos
        if key in first:
            earlier, shown = first[key]
            also = "" if shown == name else f" (as {short_repr(shown)})"
            raise ModelError(
                f"{path}: names: {short_repr(name)} names faces {earlier}{also} and {cls}, "
                "expected each face named once, case and spaces aside (damaged)"
            )
        first[key] = (cls, name)


def finite_json(text: str, path: Path, field: str) -> Any:
    """``text`` read as JSON, refusing ``NaN``, ``Infinity`` and a number too large for a
    float (read as inf; a whole number too), wherever they are.

    Raises:
        ModelError: naming the file, ``field`` and the value; or ValueError: not JSON.
    """

    def refused(value: str) -> NoReturn:
        raise ModelError(f"{path}: {field} holds {printable(value)}, expected finite numbers")

    def number(value: str) -> float:
        read = float(value)
        return read if np.isfinite(read) else refused(short_repr(value))

    def whole(value: str) -> int:
        read = int(value)  # a whole number past a float's range would act as an infinity
        if abs(read) > sys.float_info.max:
            refused(short_repr(value))
        return read

    return json.loads(text, parse_constant=refused, parse_float=number, parse_int=whole)


def pair_thresholds(data: Any, path: Path, faces: int) -> NDArray[Any] | None:
    """The file's thresholds per pair of faces (None when it has none).

    Raises:
        ModelError: they are not a faces x faces array of values in 0..1.
    """
    if "pair_thresholds" not in data.files:
        return None
    pairs = np.asarray(data["pair_thresholds"], np.float32)
    if pairs.shape != (faces, faces) or not ((pairs >= 0) & (pairs <= 1)).all():
        raise ModelError(
            f"{path}: pair_thresholds of shape {pairs.shape}, expected ({faces}, {faces}) "
            "values in 0..1"
        )
    return pairs


def size_curves(data: Any, path: Path) -> NDArray[Any] | None:
    """Each calibration photo's finder evidence over sizes, photos x (2 * CURVE_STEPS +
    1) (None when the file has none: a fixed camera's model); a file of before keeps one
    curve, the photos' mean, as ``size_curve``: read as one photo's.

    Raises:
        ModelError: not one or more rows of ``2 * CURVE_STEPS + 1`` finite values.
    """
    length = 2 * CURVE_STEPS + 1  # sizes a curve holds
    key = "size_curves" if "size_curves" in data.files else "size_curve"
    if key not in data.files:
        return None
    curves = np.asarray(data[key], np.float64)
    expected = (length,) if key == "size_curve" else (len(curves), length)
    if curves.shape != expected or not len(curves) or not np.isfinite(curves).all():
        shape = f"({length},)" if key == "size_curve" else f"(photos, {length})"
        raise ModelError(f"{path}: {key} of shape {curves.shape}, expected {shape} finite values")
    return curves.reshape(-1, length)


def face_ink(data: Any, path: Path) -> NDArray[Any] | None:
    """The colour the file's faces are read along (None when it has none).

    Raises:
        ModelError: it is not 3 finite values of length about 1.
    """
    if "face_ink" not in data.files:
        return None
    ink = np.asarray(data["face_ink"], np.float32)
    if (
        ink.shape != (3,)
        or not np.isfinite(ink).all()
        or abs(float(np.linalg.norm(ink)) - 1) > 0.01
    ):
        raise ModelError(
            f"{path}: face_ink of shape {ink.shape} ({np.array2string(ink.ravel()[:6])}), "
            "expected 3 finite values of length 1"
        )
    return ink
