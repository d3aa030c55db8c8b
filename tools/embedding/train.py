"""Build-time: train the face-embedding network and write ``vision/models/face-embedding.npz``.

Needs PyTorch (not a dependency of the product; the Pi runs the result in numpy): the
Makefile installs the CPU build into the checkout's venv (``make test-slow`` does, or
``make .venv/.torch-stamp``); then, from the checkout::

    .venv/bin/python -m tools.embedding.train            # ~18 min, 2 cores: the shipped file
    .venv/bin/python -m tools.embedding.train --stranger-designs 350 --out /tmp/e.npz

The training views are synthetic dice, made on two processes: for each of the seeds
``POOL_SEEDS``, ``DESIGNS_PER_POOL`` designs, random designs (``tools/embedding/dice.py``)
and, with ``--stranger-designs N``, N of them the dice sets of invented strangers
(``tools/embedding/stranger_dice.py``: translucent, engraved, marbled, logo faces, mixed
trays; strangers of their own seeds, never the benchmark's), painted and cut alike (a
stranger's view costs about 1.5 times a random design's to draw). The network is
trained *episodically*, the way calibration uses it: each step takes
``DESIGNS_PER_STEP`` designs, and for each design two views of every face make the
face's prototype and two more views must be nearest their own face's prototype among
that design's six (a softmax over cosine similarities with a learned scale). So it
learns to tell a die's faces apart, whatever the die, not to recognise any particular
die. The same seeds give the same training views; the weights are the same up to
torch's floating-point rounding (not checked bit for bit). The shipped file came from
this script with its defaults (no stranger designs). Trained with 350 (about an hour on
2 cores), it read the real catan photos worse and the development strangers no better
(docs/decisions/vision.md), so it is not the default.

The batch-norm layers are folded into the convolutions on export; the file is read by
``vision.reading.embedding.load_embedding``, and once written it is checked against
torch's own forward pass (``tests/tools/test_embedding_build.py`` rebuilds a small network
through the same code).
"""

from __future__ import annotations

import argparse
import json
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import torch
from numpy.typing import NDArray
from torch import nn
from torch.nn import functional

from tools.embedding.dice import views
from tools.embedding.stranger_dice import stranger_views
from vision.reading.embedding import (
    DEFAULT_PATH,
    EMBED_DIMS,
    EMBEDDING_FORMAT,
    VIEW_PX,
    load_embedding,
)

POOL_SEEDS = (10, 11, 12, 13, 14, 15)
DESIGNS_PER_POOL = 700
STRANGER_DESIGNS = 0  # of each pool's DESIGNS_PER_POOL: the strangers' dice sets (350: half)
VIEWS_PER_FACE = 6
DESIGNS_PER_STEP = 16
EPOCHS = 16
SEED = 0


def embedding_net() -> nn.Sequential:
    """3x3 conv/batch-norm/ReLU layers of 16, 32, 48 and 64 channels, 2x2 max-pooling
    after the first two, global average pooling, a linear layer to EMBED_DIMS: about
    6 million multiply-adds a view (a 6-layer net of 16-64 channels read as well in
    trials but cost 15 million, too slow for a frame on one core)."""

    def block(c_in: int, c_out: int) -> list[nn.Module]:
        return [nn.Conv2d(c_in, c_out, 3, padding=1, bias=False), nn.BatchNorm2d(c_out), nn.ReLU()]

    return nn.Sequential(
        *block(1, 16), nn.MaxPool2d(2),
        *block(16, 32), nn.MaxPool2d(2),
        *block(32, 48), *block(48, 64),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, EMBED_DIMS),
    )  # fmt: skip


def _pool(part: tuple[bool, int, int]) -> NDArray[Any]:
    strangers, seed, designs = part
    make = stranger_views if strangers else views
    return make(designs, VIEWS_PER_FACE, seed)


def make_pool(stranger_designs: int = STRANGER_DESIGNS) -> NDArray[Any]:
    """All training views: designs x 6 faces x VIEWS_PER_FACE x VIEW_PX x VIEW_PX, of each
    pool ``stranger_designs`` strangers' dice sets and the rest random designs.

    Raises:
        ValueError: ``stranger_designs`` is not within 0..DESIGNS_PER_POOL.
    """
    if not 0 <= stranger_designs <= DESIGNS_PER_POOL:
        raise ValueError(f"--stranger-designs {stranger_designs}: expected 0-{DESIGNS_PER_POOL}")
    parts = [
        (strangers, seed, count)
        for seed in POOL_SEEDS
        for strangers, count in (
            (False, DESIGNS_PER_POOL - stranger_designs),
            (True, stranger_designs),
        )
        if count
    ]
    with ProcessPoolExecutor(2) as ex:
        return np.concatenate(list(ex.map(_pool, parts)))


def train(pool: NDArray[Any], epochs: int) -> nn.Sequential:
    """Episodic training (see the module notes); prints each epoch's loss and accuracy."""
    torch.manual_seed(SEED)
    rng = np.random.default_rng(SEED)
    net = embedding_net()
    scale = nn.Parameter(torch.tensor(10.0))
    opt = torch.optim.AdamW([*net.parameters(), scale], 3e-3, weight_decay=1e-4)
    designs, _, per_face = pool.shape[:3]
    steps = epochs * (designs // DESIGNS_PER_STEP)
    schedule = torch.optim.lr_scheduler.OneCycleLR(opt, 3e-3, total_steps=steps)
    d = DESIGNS_PER_STEP
    target = torch.arange(6).view(1, 6, 1).expand(d, 6, 2).reshape(-1)
    start = time.time()
    for epoch in range(epochs):
        order = rng.permutation(designs)
        losses, right = [], []
        for i in range(0, designs - d + 1, d):
            chosen = order[i : i + d]
            picks = np.stack([rng.permutation(per_face)[:4] for _ in chosen])
            x = pool[chosen[:, None, None], np.arange(6)[None, :, None], picks[:, None, :]]
            batch = torch.tensor(x.astype(np.float32)).reshape(-1, 1, VIEW_PX, VIEW_PX)
            batch = torch.rot90(batch, int(rng.integers(0, 4)), (2, 3))
            e = functional.normalize(net(batch), dim=1).reshape(d, 6, 4, -1)
            prototypes = functional.normalize(e[:, :, :2].mean(2), dim=-1)
            logits = scale * torch.einsum("dfqe,dge->dfqg", e[:, :, 2:], prototypes)
            logits = logits.reshape(-1, 6)
            loss = functional.cross_entropy(logits, target)
            opt.zero_grad()
            loss.backward()
            opt.step()
            schedule.step()
            losses.append(float(loss.detach()))
            right.append(float((logits.argmax(1) == target).float().mean()))
        print(
            f"epoch {epoch + 1}/{epochs}: loss {np.mean(losses):.3f}, episodes' faces right "
            f"{np.mean(right):.1%}, {time.time() - start:.0f} s",
            flush=True,
        )
    return net.eval()


def export(net: nn.Sequential, out: Path) -> None:
    """Write ``net`` in vision.reading.embedding's format (batch norm folded into the convolutions)
    and check that numpy reads the same embeddings as torch.

    Raises:
        RuntimeError: the exported network does not match torch's.
    """
    arrays: dict[str, NDArray[Any]] = {}
    layers: list[str] = []
    modules = list(net)
    for i, m in enumerate(modules):
        if isinstance(m, nn.Conv2d):
            bn = modules[i + 1]
            assert isinstance(bn, nn.BatchNorm2d) and bn.running_var is not None
            assert bn.running_mean is not None
            s = (bn.weight / torch.sqrt(bn.running_var + bn.eps)).detach()
            arrays[f"w{len(layers)}"] = (
                (m.weight.detach() * s[:, None, None, None]).permute(2, 3, 1, 0).numpy()
            )
            arrays[f"b{len(layers)}"] = (bn.bias.detach() - bn.running_mean * s).numpy()
            layers.append("conv")
        elif isinstance(m, nn.MaxPool2d):
            layers.append("pool")
        elif isinstance(m, nn.Linear):
            arrays["head_w"] = m.weight.detach().numpy().T.copy()
            arrays["head_b"] = m.bias.detach().numpy()
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(
        out,
        format=np.int64(EMBEDDING_FORMAT),
        layers=np.str_(json.dumps(layers)),
        **{k: v.astype(np.float32) for k, v in arrays.items()},
    )
    x = np.random.default_rng(1).normal(size=(8, VIEW_PX, VIEW_PX)).astype(np.float32)
    with torch.no_grad():
        expected = functional.normalize(net(torch.tensor(x)[:, None]), dim=1).numpy()
    gap = float(np.abs(load_embedding(out).embed(x) - expected).max())
    if gap > 1e-4:
        raise RuntimeError(f"{out}: numpy and torch embeddings differ by {gap}")
    print(f"wrote {out} (numpy matches torch to {gap:.1e})")


def main() -> None:
    """Command line: see the module notes."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=DEFAULT_PATH)
    ap.add_argument("--epochs", type=int, default=EPOCHS)
    ap.add_argument(
        "--stranger-designs",
        type=int,
        default=STRANGER_DESIGNS,
        help=f"of each pool's {DESIGNS_PER_POOL} designs, how many are strangers' dice sets "
        f"(default {STRANGER_DESIGNS}, the shipped file's recipe; 350: half of them)",
    )
    args = ap.parse_args()
    torch.set_num_threads(2)
    start = time.time()
    try:
        pool = make_pool(args.stranger_designs)
    except ValueError as exc:
        ap.error(str(exc))  # one line, exit 2
    print(f"{pool.shape[0]} designs, {pool[:, :, :, 0, 0].size} views, {time.time() - start:.0f} s")
    export(train(pool, args.epochs), args.out)


if __name__ == "__main__":
    main()
