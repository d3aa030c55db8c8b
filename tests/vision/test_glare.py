"""Glare is no mark: a face's contrast channel is softened over its body's level."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray

from vision.reading.features import (
    OVER_BODY_KEPT,
    Rect,
    cut_patches,
    features,
    in_channel,
    over_body_softened,
    upright_cuts,
)

pytestmark = pytest.mark.timeout(30)

FACE: Rect = ((60.0, 60.0), (60.0, 60.0), 0.0)


def _numeral_die(numeral: str, glare: tuple[int, int] | None = None) -> NDArray[Any]:
    """A light purple die showing ``numeral`` in dark ink on a grey-green table, with a
    white highlight (a Gaussian spot, as a lamp makes on a glossy face) at ``glare``."""
    image = np.full((120, 120, 3), (90, 110, 100), np.float32)
    cv2.rectangle(image, (30, 30), (90, 90), (190, 140, 175), -1)
    cv2.putText(image, numeral, (47, 77), cv2.FONT_HERSHEY_SIMPLEX, 1.4, (60, 20, 70), 4)
    if glare is not None:
        yy, xx = np.mgrid[0:120, 0:120]
        spot = np.exp(-((xx - glare[0]) ** 2 + (yy - glare[1]) ** 2) / (2 * 4.0**2))
        image += spot[..., None] * (255.0 - image) * 0.9
    return image


def _unsoftened(image: NDArray[Any]) -> NDArray[Any]:
    """The face's patch in its contrast channel as it is, before softening."""
    return in_channel(upright_cuts(image, [FACE]))


def test_what_lies_over_the_body_is_kept_at_a_quarter_and_marks_as_they_are() -> None:
    patch = np.full((1, 32, 32), 150.0, np.float32)
    patch[0, 14:18, 14:18] = 60.0  # a dark mark
    patch[0, 8:11, 20:23] = 230.0  # something brighter than the body
    out = over_body_softened(patch)
    assert out[0, 15, 15] == 60.0 and out[0, 0, 0] == 150.0
    assert out[0, 9, 21] == pytest.approx(150.0 + OVER_BODY_KEPT * 80.0)


def test_a_glare_spot_beside_the_ink_moves_a_face_less_far() -> None:
    ratios = []
    for numeral in "123456":
        for glare in [(40, 40), (40, 82), (80, 40), (82, 82), (42, 60), (60, 40)]:
            clean, lit = _numeral_die(numeral), _numeral_die(numeral, glare)
            read = features(np.concatenate([cut_patches(c, [FACE]) for c in (clean, lit)]))
            raw = features(np.concatenate([_unsoftened(c) for c in (clean, lit)]))
            ratios.append(np.linalg.norm(read[1] - read[0]) / np.linalg.norm(raw[1] - raw[0]))
    assert max(ratios) < 0.92 and float(np.mean(ratios)) < 0.8, ratios


def test_a_grey_cut_is_read_as_it_is() -> None:
    grey = cv2.cvtColor(_numeral_die("4", (40, 40)), cv2.COLOR_BGR2GRAY)
    assert np.array_equal(cut_patches(grey, [FACE]), upright_cuts(grey, [FACE]))
