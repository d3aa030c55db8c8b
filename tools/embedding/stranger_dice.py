"""The strangers' dice sets as the face-embedding network's training views.

Build-time only (``tools/embedding/train.py`` uses it). A design here is the first dice
set of an invented stranger (:func:`vision.synth.strangers.stranger`: pips, numerals or
symbols, printed or engraved, marbled, translucent, a logo face), its faces drawn by
:func:`vision.synth.designs.face_texture` (each die its own marbling, a translucent body
showing the table through it), its neighbours from any of that stranger's sets (a mixed
tray). They are painted, photographed and cut by :mod:`tools.embedding.dice`, as the
random designs are.

The strangers drawn come from their own seeds, ``TRAINING_STRANGERS``: none is a
stranger of the benchmark (``toptable bench dice --strangers``, seeds from 2800) or of
the development set the network is judged on (seeds 3000-3007).
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
from numpy.typing import NDArray

from tools.embedding.dice import TEXTURE_PX, Design, Die, DieFaces, render_views
from vision.synth.designs import DiceSet, face_texture
from vision.synth.strangers import stranger

TRAINING_STRANGERS = range(1_000_000, 2_000_000)
POOL_STRANGERS = 10_000  # strangers a pool seed may draw: pool s draws from 1_000_000 + 10_000 s


def training_stranger(pool_seed: int, design: int) -> int:
    """The stranger whose dice are design ``design`` of pool ``pool_seed``.

    Raises:
        ValueError: the pool seed or the design is out of TRAINING_STRANGERS' bounds.
    """
    seed = TRAINING_STRANGERS.start + POOL_STRANGERS * pool_seed + design
    if not 0 <= design < POOL_STRANGERS or seed not in TRAINING_STRANGERS:
        raise ValueError(
            f"pool {pool_seed}, design {design}: expected a pool seed of 0-"
            f"{len(TRAINING_STRANGERS) // POOL_STRANGERS - 1} and a design under {POOL_STRANGERS}"
        )
    return seed


@functools.lru_cache(maxsize=64)
def _texture(dice: DiceSet, face: int, seed: int) -> NDArray[Any]:
    return face_texture(dice, face, TEXTURE_PX, seed)


def _die_of(dice: DiceSet) -> DieFaces:
    """The set's dice, each face drawn when a view shows it (each die its own marbling, as
    StrangerCamera draws it; a plain body is the same on every die: drawn once)."""

    def die(rng: np.random.Generator) -> Die:
        seed = int(rng.integers(1 << 30)) if dice.body2 is not None else 0
        return lambda face: _texture(dice, face, seed + face)

    return die


def stranger_design(seed: int) -> Design:
    """The dice of stranger ``seed``: its first set's die, neighbours of any of its sets."""
    sets = stranger(seed).sets
    own = _die_of(sets[0])
    others = [_die_of(s) for s in sets]

    def neighbour(rng: np.random.Generator) -> Die:
        return others[int(rng.integers(len(others)))](rng)

    return own, neighbour


def stranger_views(designs: int, per_face: int, seed: int, glare: float = 0.0) -> NDArray[Any]:
    """designs x 6 x per_face x VIEW_PX x VIEW_PX float16 views of the dice of strangers
    ``training_stranger(seed, 0..designs-1)`` (a die's top shows a highlight with chance
    ``glare``).

    Raises:
        ValueError: as :func:`training_stranger`.
    """
    training_stranger(seed, max(designs - 1, 0))  # the last one is in bounds too
    first = training_stranger(seed, 0)
    rng = np.random.default_rng([seed, 28])
    return render_views(lambda d: stranger_design(first + d), designs, per_face, rng, glare)
