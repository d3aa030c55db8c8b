"""Build-time: train the face-embedding network and write ``vision/models/face-embedding.npz``.

Needs PyTorch (not a dependency of the product; the Pi runs the result by cv2.dnn or numpy): the
Makefile installs the CPU build into the checkout's venv (``make test-slow`` does, or
``make .venv/.torch-stamp``); then, from the checkout::

    .venv/bin/python -m tools.embedding.train            # ~18 min, 2 cores: the shipped file
    .venv/bin/python -m tools.embedding.train --stranger-designs 350 --out /tmp/e.npz  # ~30 min
    .venv/bin/python -m tools.embedding.train --stranger-designs 350 --glare 0.3 --out /tmp/g.npz
    .venv/bin/python -m tools.embedding.train --start vision/models/face-embedding.npz \
        --pools 3 --stranger-designs 350 --epochs 6 --lr 1e-3 --out /tmp/e.npz  # ~7 min

The training views are synthetic dice, made on two processes: for each of the seeds
``POOL_SEEDS`` (the first ``--pools``), ``--random-designs`` random designs
(``tools/embedding/dice.py``; ``DESIGNS_PER_POOL``) and ``--stranger-designs`` more, the
dice sets of invented strangers (``tools/embedding/stranger_dice.py``: translucent,
engraved, marbled, logo faces, mixed trays; strangers of their own seeds, never the
benchmark's), painted and cut alike (a stranger's view costs about 1.5 times a random
design's to draw). The network is
trained *episodically*, the way calibration uses it: each step takes
``DESIGNS_PER_STEP`` designs, and for each design two views of every face make the
face's prototype and two more views must be nearest their own face's prototype among
that design's six (a softmax over cosine similarities with a learned scale). So it
learns to tell a die's faces apart, whatever the die, not to recognise any particular
die. The same seeds give the same training views; the weights are the same up to
torch's floating-point rounding (not checked bit for bit). The shipped file came from
this script with its defaults (no stranger designs). ``--start FILE`` trains on from a
network this script wrote (the shipped one: pretrained weights that the strangers' dice
then refine) instead of from random weights. The second shipped network,
``face-embedding-strangers.npz``, is ``--stranger-designs 350`` from scratch (the
reader joins both). ``--glare CHANCE`` gives a die's top face a highlight (a soft spot
or a sharp reflection) with that chance; 0, the default, draws nothing for it, so both
shipped recipes' views are unchanged. Trained with ``--glare 0.3`` the strangers'
network was judged and not shipped (docs/decisions/vision.md).

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
from vision.errors import ModelError
from vision.reading.embedding import (
    DEFAULT_PATH,
    EMBED_DIMS,
    EMBEDDING_FORMAT,
    VIEW_PX,
    load_embedding,
)

POOL_SEEDS = (10, 11, 12, 13, 14, 15)
DESIGNS_PER_POOL = 700  # random designs in each pool
STRANGER_DESIGNS = 0  # strangers' dice sets in each pool, besides its random designs
MAX_DESIGNS = 10_000  # of either kind in a pool (a pool seed's strangers: POOL_STRANGERS)
VIEWS_PER_FACE = 6
DESIGNS_PER_STEP = 16
EPOCHS = 16
LEARNING_RATE = 3e-3  # the one-cycle schedule's peak
SEED = 0
GLARE = 0.0  # the chance that a die's top shows a highlight (the first network: none)


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


def _pool(part: tuple[bool, int, int, float]) -> NDArray[Any]:
    strangers, seed, designs, glare = part
    make = stranger_views if strangers else views
    return make(designs, VIEWS_PER_FACE, seed, glare)


def make_pool(
    random_designs: int = DESIGNS_PER_POOL,
    stranger_designs: int = STRANGER_DESIGNS,
    pools: int = len(POOL_SEEDS),
    glare: float = GLARE,
) -> NDArray[Any]:
    """All training views: designs x 6 faces x VIEWS_PER_FACE x VIEW_PX x VIEW_PX, of each
    of the first ``pools`` pool seeds ``random_designs`` random designs and
    ``stranger_designs`` strangers' dice sets, a die's top showing a highlight with
    chance ``glare``.

    Raises:
        ValueError: a count is out of its bounds (each of 0..MAX_DESIGNS, not both 0;
            1..len(POOL_SEEDS) pools; a chance of 0..1); the message names the option.
    """
    for option, count in (
        ("--random-designs", random_designs),
        ("--stranger-designs", stranger_designs),
    ):
        if not 0 <= count <= MAX_DESIGNS:
            raise ValueError(f"{option} {count}: expected 0-{MAX_DESIGNS}")
    if random_designs + stranger_designs == 0:
        raise ValueError("--random-designs 0 and --stranger-designs 0: no designs to train on")
    if not 1 <= pools <= len(POOL_SEEDS):
        raise ValueError(f"--pools {pools}: expected 1-{len(POOL_SEEDS)}")
    if not 0.0 <= glare <= 1.0:
        raise ValueError(f"--glare {glare}: expected a chance of 0-1")
    parts = [
        (strangers, seed, count, glare)
        for seed in POOL_SEEDS[:pools]
        for strangers, count in ((False, random_designs), (True, stranger_designs))
        if count
    ]
    with ProcessPoolExecutor(2) as ex:
        return np.concatenate(list(ex.map(_pool, parts)))


def start_from(net: nn.Sequential, path: Path) -> None:
    """Load the network ``path`` (written by :func:`export`, of ``net``'s layers) into
    ``net``: each convolution takes its folded weights, and its batch norm becomes the
    identity with the folded bias as its shift (statistics 0 and 1 - eps, so that
    exporting folds them back exactly).

    Raises:
        ModelError: ``path`` is not a readable network (as ``load_embedding``).
        ValueError: its layers are not ``net``'s; the message names the file and the shapes.
    """
    load_embedding(path)  # the file's format and its layers' chaining, checked
    with np.load(path) as data:
        arrays = {k: data[k] for k in data.files}
    modules = list(net)
    norms = [(m, modules[i + 1]) for i, m in enumerate(modules) if isinstance(m, nn.Conv2d)]
    stored = [i for i, kind in enumerate(json.loads(str(arrays["layers"]))) if kind == "conv"]
    if len(stored) != len(norms):
        raise ValueError(f"{path}: {len(stored)} convolutions, expected {len(norms)}")
    linear = next(m for m in modules if isinstance(m, nn.Linear))
    pairs = [(linear.weight, arrays["head_w"].T), (linear.bias, arrays["head_b"])]
    with torch.no_grad():
        for (conv, norm), i in zip(norms, stored, strict=True):
            assert isinstance(norm, nn.BatchNorm2d) and norm.running_var is not None
            assert norm.running_mean is not None
            norm.running_mean.zero_()
            norm.running_var.fill_(1.0 - norm.eps)
            norm.weight.fill_(1.0)
            pairs += [
                (conv.weight, arrays[f"w{i}"].transpose(3, 2, 0, 1)),
                (norm.bias, arrays[f"b{i}"]),
            ]
        for param, value in pairs:
            if tuple(param.shape) != value.shape:
                raise ValueError(
                    f"{path}: an array of shape {value.shape} where the network has "
                    f"{tuple(param.shape)}"
                )
            param.copy_(torch.from_numpy(np.ascontiguousarray(value, np.float32)))


def train(
    pool: NDArray[Any], epochs: int, pretrained: Path | None = None, lr: float = LEARNING_RATE
) -> nn.Sequential:
    """Episodic training (see the module notes); prints each epoch's loss and accuracy.
    From the network ``pretrained`` when given (:func:`start_from`: its batch norms' statistics
    stay fixed, their scale and shift learn on), else from random weights.

    Raises:
        ModelError, ValueError: as :func:`start_from`.
    """
    torch.manual_seed(SEED)
    rng = np.random.default_rng(SEED)
    net = embedding_net()
    if pretrained is not None:
        start_from(net, pretrained)
    scale = nn.Parameter(torch.tensor(10.0))
    opt = torch.optim.AdamW([*net.parameters(), scale], lr, weight_decay=1e-4)
    designs, _, per_face = pool.shape[:3]
    steps = epochs * (designs // DESIGNS_PER_STEP)
    schedule = torch.optim.lr_scheduler.OneCycleLR(opt, lr, total_steps=steps)
    if pretrained is not None:  # the statistics it was trained with, kept
        for m in net:
            if isinstance(m, nn.BatchNorm2d):
                m.eval()
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
        "--random-designs",
        type=int,
        default=DESIGNS_PER_POOL,
        help=f"random designs in each pool (default {DESIGNS_PER_POOL})",
    )
    ap.add_argument(
        "--stranger-designs",
        type=int,
        default=STRANGER_DESIGNS,
        help=f"strangers' dice sets in each pool, besides its random designs (default "
        f"{STRANGER_DESIGNS}: the shipped file's recipe)",
    )
    ap.add_argument(
        "--pools", type=int, default=len(POOL_SEEDS), help=f"pools, of {len(POOL_SEEDS)}"
    )
    ap.add_argument(
        "--glare",
        type=float,
        default=GLARE,
        help=f"the chance that a die's top face shows a highlight (default {GLARE})",
    )
    ap.add_argument("--start", type=Path, help="train on from this network (see above)")
    ap.add_argument("--lr", type=float, default=LEARNING_RATE, help="peak learning rate")
    args = ap.parse_args()
    torch.set_num_threads(2)
    start = time.time()
    try:
        if args.start is not None:
            start_from(embedding_net(), args.start)  # a bad start file, named before the pool
        pool = make_pool(args.random_designs, args.stranger_designs, args.pools, args.glare)
    except (ValueError, ModelError) as exc:
        ap.error(str(exc))  # one line, exit 2
    print(f"{pool.shape[0]} designs, {pool[:, :, :, 0, 0].size} views, {time.time() - start:.0f} s")
    export(train(pool, args.epochs, args.start, args.lr), args.out)


if __name__ == "__main__":
    main()
