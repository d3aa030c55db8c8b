"""Build-time: how well a face-embedding file tells a die's faces apart on generated views,
before the reader's benchmarks are run with it (those decide; this is a quick look)::

    .venv/bin/python -m tools.embedding.offline [MODEL.npz]     # ~25 s, one core

For 40 strangers' dice sets (``tools/embedding/stranger_dice.py``) and 40 random designs
(``tools/embedding/dice.py``), of pool seed ``SEED`` (no training pool's), six views a
face: each face's prototype is the mean of two views' embeddings, and the other four are
read by their nearest prototype among the design's six faces, as in training. Prints
the share read right and the worst design's.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from tools.embedding.dice import views
from tools.embedding.stranger_dice import stranger_views
from vision.errors import ModelError
from vision.reading.embedding import DEFAULT_PATH, VIEW_PX, FaceEmbedding, load_embedding

SEED = 90
DESIGNS = 40
PER_FACE = 6


def faces_right(net: FaceEmbedding, pool: NDArray[Any]) -> NDArray[Any]:
    """Each design's share of views (beyond the first two a face) nearest their own face's
    prototype: designs x 6 x PER_FACE views in, one figure a design out."""
    designs, faces, per_face = pool.shape[:3]
    flat = pool.reshape(-1, VIEW_PX, VIEW_PX).astype(np.float32)
    e = net.embed(flat).reshape(designs, faces, per_face, -1)
    prototypes = e[:, :, :2].mean(2)
    prototypes /= np.linalg.norm(prototypes, axis=-1, keepdims=True)
    nearest = np.einsum("dfve,dge->dfvg", e[:, :, 2:], prototypes).argmax(-1)
    right: NDArray[Any] = (nearest == np.arange(faces)[None, :, None]).mean(axis=(1, 2))
    return right


def main() -> None:
    """Command line: see the module notes."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model", type=Path, nargs="?", default=DEFAULT_PATH)
    args = ap.parse_args()
    try:
        net = load_embedding(args.model)
    except ModelError as exc:
        ap.error(str(exc))  # one line, exit 2
    for name, make in (("strangers' dice sets", stranger_views), ("random designs", views)):
        right = faces_right(net, make(DESIGNS, PER_FACE, SEED))
        print(f"{name}: faces right {right.mean():.2%}, worst design {right.min():.2%}")


if __name__ == "__main__":
    main()
