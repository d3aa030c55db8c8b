"""tools/embedding: the strangers' dice sets as training views (the network's input, told
apart by face, translucent bodies showing what lies under them, their own seeds)."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from controller.bench.dice import STRANGER_SEED
from tools.embedding.dice import CONTEXT_PX, TEXTURE_PX, camera, paint_die, scene
from tools.embedding.stranger_dice import (
    TRAINING_STRANGERS,
    stranger_design,
    stranger_views,
    training_stranger,
)
from vision.reading.embedding import VIEW_PX
from vision.synth.designs import DiceSet, MarkKind, face_texture
from vision.synth.strangers import stranger

DEV_STRANGERS = range(3000, 3008)  # the development set the shipped network was judged on
BENCH_STRANGERS = range(STRANGER_SEED, STRANGER_SEED + 20)


def test_stranger_views_are_network_inputs() -> None:
    pool = stranger_views(3, 2, seed=1)
    assert pool.shape == (3, 6, 2, VIEW_PX, VIEW_PX) and pool.dtype == np.float16
    x = pool.astype(np.float32)
    assert np.isfinite(x).all()
    # network_input: each view zero mean, unit spread (float16 rounding aside)
    assert np.allclose(x.mean(axis=(-1, -2)), 0.0, atol=0.01)
    assert np.allclose(x.std(axis=(-1, -2)), 1.0, atol=0.01)
    assert not np.array_equal(pool[0], pool[1]), "each design its own stranger's dice"


@pytest.mark.parametrize("seed", [1_000_002, 1_000_003, 1_000_006])  # translucent sets
def test_a_strangers_faces_make_different_views(seed: int) -> None:
    """The same scene and camera (one rng seed), only the face up changing: every two
    faces' views differ in the middle, where the top face is."""
    assert any(s.opacity < 1 for s in stranger(seed).sets)
    design = stranger_design(seed)
    shown = []
    for face in range(6):
        rng = np.random.default_rng(5)
        shown.append(camera(scene(design, face, rng), rng))
    middle = slice(VIEW_PX // 4, 3 * VIEW_PX // 4)
    for a, b in itertools.combinations(range(6), 2):
        gap = np.abs(shown[a] - shown[b])
        assert float(gap[middle, middle].mean()) > 0.03, (a, b)


def _painted_on(dice: DiceSet, grey: float) -> NDArray[Any]:
    canvas = np.full((CONTEXT_PX, CONTEXT_PX, 3), grey, np.float32)
    light = np.array([0.0, 0.0, 1.0])
    centre = np.full(2, CONTEXT_PX / 2)
    paint_die(canvas, lambda f: face_texture(dice, f, TEXTURE_PX), 1, centre, 32.0, light,
              np.random.default_rng(2))  # fmt: skip
    return canvas


@pytest.mark.parametrize("opacity", [1.0, 0.6])
def test_a_translucent_die_shows_the_table_through_its_body(opacity: float) -> None:
    dice = DiceSet(MarkKind.PIPS, body=(200, 200, 200), marks=(20, 20, 20), opacity=opacity)
    through = np.abs(_painted_on(dice, 255.0) - _painted_on(dice, 0.0)).max(axis=2)
    hidden = int((through < 1).sum())  # the table does not show at all
    dimmed = int(((through >= 1) & (through < 0.45 * 255)).sum())  # it shows, dimmed
    if opacity == 1.0:  # the die's body (32 px wide) hides it
        assert hidden > 400 and dimmed < 30, (hidden, dimmed)
    else:  # only the marks (two pips) hide it; the body lets 40 % through, shadowed
        assert hidden < 60 and dimmed > 400, (hidden, dimmed)


def test_training_strangers_are_none_of_the_benchmarks() -> None:
    first, last = training_stranger(0, 0), training_stranger(99, 9_999)
    assert first == TRAINING_STRANGERS[0] and last == TRAINING_STRANGERS[-1]
    assert training_stranger(10, 1) != training_stranger(11, 0)
    for seed in itertools.chain(BENCH_STRANGERS, DEV_STRANGERS):
        assert seed not in TRAINING_STRANGERS
    with pytest.raises(ValueError, match="pool 100, design 0"):
        training_stranger(100, 0)
    with pytest.raises(ValueError, match="design 10000"):
        training_stranger(0, 10_000)


def _painted(glare: float, seed: int) -> NDArray[Any]:
    dice = DiceSet(MarkKind.PIPS, body=(40, 40, 160), marks=(230, 230, 230))
    canvas = np.full((CONTEXT_PX, CONTEXT_PX, 3), 120.0, np.float32)
    light = np.array([0.3, -0.2, 1.0]) / np.linalg.norm([0.3, -0.2, 1.0])
    paint_die(canvas, lambda f: face_texture(dice, f, TEXTURE_PX), 3, np.full(2, 32.0), 32.0,
              light, np.random.default_rng(seed), glare)  # fmt: skip
    return canvas


@pytest.mark.parametrize("seed", range(6))
def test_a_highlight_lies_on_the_top_face_and_only_brightens(seed: int) -> None:
    """The same die painted with and without its highlight (one rng seed: the highlight
    is drawn last): they differ only on the die, only upward, by at most 200 levels (a
    small sharp reflection, blurred, adds less)."""
    plain, lit = _painted(0.0, seed), _painted(1.0, seed)
    added = (lit - plain).max(axis=2)
    assert float((lit - plain).min()) >= 0.0  # light added, nothing darkened
    assert 5.0 < float(added.max()) <= 200.0
    ys, xs = np.nonzero(added > 1.0)
    on_die = np.hypot(xs - 32.0, ys - 32.0) <= 0.75 * 32.0  # within the die's extent
    assert len(xs) and on_die.all()
    assert np.array_equal(plain, _painted(0.0, seed))  # no glare: nothing drawn for it


def test_glare_chance_zero_keeps_a_seeds_views() -> None:
    """The strangers' views of a seed with glare 0 are those drawn before the option
    existed (the shipped networks' recipes reproduce): the same as asking for none."""
    assert np.array_equal(stranger_views(2, 1, seed=3), stranger_views(2, 1, seed=3, glare=0.0))
    assert not np.array_equal(stranger_views(2, 1, seed=3), stranger_views(2, 1, seed=3, glare=1.0))
