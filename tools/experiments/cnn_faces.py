"""Experiment, not product: a small CNN learning an owner's faces from their labeled photos.

Measures whether a face CNN trained only on the owner's own dice (each labeled die
cut with some context, then turned through any angle, squashed as if seen
obliquely, re-lit, blurred and noised) reads another set of photos better than
the nearest-neighbour face model of ``vision.reading.model``. Figures and the reasons this
is not (yet) in the reader: docs/decisions/vision.md.

Needs PyTorch, which the product does not use (it has no place on the Pi); the
Makefile installs the CPU build into the checkout's venv (``make .venv/.torch-stamp``).
From the checkout::

    .venv/bin/python -m tools.experiments.cnn_faces \\
        ../shared/datasets/catan-webcam/train ../shared/datasets/catan-webcam/valid

``--time-numpy`` first prints how long the same net's forward pass takes in plain numpy.
``--split N`` instead trains on the first N photos of one dataset and reads the rest
(``... cnn_faces ../shared/datasets/pi-tray --split 14``). Prints, after each
epoch, the share of the held-out dice read right (the four quarter turns of each
crop averaged) and the wall time; at the end, the dice read wrong.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import torch
from numpy.lib.stride_tricks import sliding_window_view
from numpy.typing import NDArray
from torch import nn

from vision.learning.dataset import Dataset, load_dataset
from vision.reading.features import contrast_channel

DIE_PX = 32  # a die's side in the crop
CONTEXT_PX = 64  # the cut around it, room for any turn
INPUT_PX = 40  # what the network sees: the die and a little of its surroundings


def cut_dice(dataset: Dataset) -> tuple[NDArray[Any], NDArray[Any], list[str]]:
    """Every labeled die cut square about its box centre, scaled to DIE_PX: crops
    (n x CONTEXT_PX x CONTEXT_PX x 3, BGR), classes, and where each came from."""
    crops, classes, where = [], [], []
    for item in dataset.items:
        image = cv2.imread(str(item.image))
        h, w = image.shape[:2]
        for n, die in enumerate(item.dice, start=1):
            x, y, bw, bh = die.box_px(w, h)
            zoom = DIE_PX / float(np.sqrt(bw * bh))
            shift = CONTEXT_PX / 2
            m = np.array(
                [[zoom, 0, shift - zoom * (x + bw / 2)], [0, zoom, shift - zoom * (y + bh / 2)]],
                np.float32,
            )
            flags = cv2.INTER_AREA if zoom < 1 else cv2.INTER_LINEAR
            crops.append(
                cv2.warpAffine(
                    image,
                    m,
                    (CONTEXT_PX, CONTEXT_PX),
                    flags=flags,
                    borderMode=cv2.BORDER_REPLICATE,
                )
            )
            classes.append(die.cls)
            where.append(f"{item.image.name} die {n}")
    return np.stack(crops), np.array(classes), where


def network_input(bgr: NDArray[Any]) -> NDArray[Any]:
    """The crop's contrast channel (the reader's own colour-blind view), zero mean, unit spread."""
    c = contrast_channel(bgr.astype(np.float32))
    c = c - c.mean()
    out: NDArray[Any] = c / (c.std() + 1e-3)
    return out


def centre(crop: NDArray[Any]) -> NDArray[Any]:
    """The untouched INPUT_PX middle of a crop, as the network reads it."""
    o = (CONTEXT_PX - INPUT_PX) // 2
    return network_input(crop[o : o + INPUT_PX, o : o + INPUT_PX])


def augmented(crop: NDArray[Any], n: int, rng: np.random.Generator) -> NDArray[Any]:
    """``n`` altered copies of a crop: any turn, +-12 % size, +-2.5 px shift, squashed
    to 75-100 % along a random direction, re-lit per channel, gamma, blur and noise."""
    mid = CONTEXT_PX / 2
    out = []
    for _ in range(n):
        centre_xy = (mid + rng.uniform(-2.5, 2.5), mid + rng.uniform(-2.5, 2.5))
        turn = np.vstack(
            [
                cv2.getRotationMatrix2D(centre_xy, rng.uniform(0, 360), rng.uniform(0.88, 1.12)),
                [0, 0, 1],
            ]
        )
        t = rng.uniform(0, np.pi)
        r = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
        a = r @ np.diag([1.0, rng.uniform(0.75, 1.0)]) @ r.T
        squash = np.eye(3)
        squash[:2, :2] = a
        squash[:2, 2] = (np.eye(2) - a) @ [mid, mid]
        m = (squash @ turn)[:2]
        m[:, 2] -= (CONTEXT_PX - INPUT_PX) / 2
        y = cv2.warpAffine(crop, m, (INPUT_PX, INPUT_PX), borderMode=cv2.BORDER_REPLICATE)
        y = y.astype(np.float32) * rng.uniform(0.5, 1.4) * rng.uniform(0.85, 1.15, 3)
        y = 255.0 * (np.clip(y, 0, 255) / 255.0) ** rng.uniform(0.7, 1.4)
        if rng.random() < 0.5:
            y = cv2.GaussianBlur(y, (0, 0), rng.uniform(0.3, 1.2))
        y = y + rng.normal(0, rng.uniform(0, 6), y.shape)
        out.append(network_input(y))
    return np.stack(out)


def face_net(n_faces: int) -> nn.Sequential:
    """Three stages of two 3x3 conv/batch-norm/ReLU layers (16, 32, 64 channels), global
    average pooling and a linear layer: 72k weights."""

    def block(c_in: int, c_out: int) -> list[nn.Module]:
        return [nn.Conv2d(c_in, c_out, 3, padding=1, bias=False), nn.BatchNorm2d(c_out), nn.ReLU()]

    return nn.Sequential(
        *block(1, 16), *block(16, 16), nn.MaxPool2d(2),
        *block(16, 32), *block(32, 32), nn.MaxPool2d(2),
        *block(32, 64), *block(64, 64),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.2), nn.Linear(64, n_faces),
    )  # fmt: skip


def read(net: nn.Sequential, crops: NDArray[Any]) -> NDArray[Any]:
    """The face index of each crop, its four quarter turns' probabilities summed."""
    x = np.stack([centre(c) for c in crops])[:, None].astype(np.float32)
    net.eval()
    with torch.no_grad():
        p = sum(
            net(torch.tensor(np.ascontiguousarray(np.rot90(x, k, axes=(2, 3))))).softmax(1)
            for k in range(4)
        )
    net.train()
    out: NDArray[Any] = p.argmax(1).numpy()
    return out


def time_numpy_forward(batch: int = 128, repeats: int = 3) -> None:
    """Print how long :func:`face_net`'s convolutions take in plain numpy (im2col and one
    matrix product a layer, ReLU, 2x2 max-pooling) on a batch: what a trainer without
    torch would pay for the forward pass alone."""
    rng = np.random.default_rng(0)
    layers = [(1, 16), (16, 16), None, (16, 32), (32, 32), None, (32, 64), (64, 64)]
    weights = [
        rng.normal(0, 0.1, (9 * c[0], c[1])).astype(np.float32) if c else None for c in layers
    ]
    x = rng.normal(size=(batch, INPUT_PX, INPUT_PX, 1)).astype(np.float32)
    best, flops = np.inf, 0.0
    for _ in range(repeats):
        start, h, flops = time.perf_counter(), x, 0.0
        for w in weights:
            b, hh, ww, c = h.shape
            if w is None:
                h = h.reshape(b, hh // 2, 2, ww // 2, 2, c).max((2, 4))
                continue
            padded = np.pad(h, ((0, 0), (1, 1), (1, 1), (0, 0)))
            # numpy's stub takes one axis; a tuple of axes is what its documentation gives
            cols = sliding_window_view(padded, (3, 3), axis=(1, 2))  # type: ignore[call-overload]
            cols = cols.transpose(0, 1, 2, 4, 5, 3)
            h = np.maximum(cols.reshape(b * hh * ww, 9 * c) @ w, 0).reshape(b, hh, ww, -1)
            flops += 2.0 * b * hh * ww * w.shape[0] * w.shape[1]
        best = min(best, time.perf_counter() - start)
    print(f"numpy forward, batch {batch}: {best * 1000:.0f} ms ({flops / best / 1e9:.1f} GFLOP/s)")


def experiment(train: Dataset, test: Dataset, copies: int, epochs: int, seed: int) -> float:
    """Train on ``train``'s dice, print held-out accuracy per epoch; return the last."""
    rng = np.random.default_rng(seed)
    torch.manual_seed(seed)
    start = time.time()
    crops, classes, _ = cut_dice(train)
    test_crops, test_classes, test_where = cut_dice(test)
    x = torch.tensor(np.concatenate([augmented(c, copies, rng) for c in crops])[:, None])
    y = torch.tensor(np.repeat(classes, copies))
    net = face_net(len(train.names))
    batch = 128
    opt = torch.optim.AdamW(net.parameters(), 3e-3, weight_decay=1e-3)
    steps = epochs * (len(x) // batch)
    schedule = torch.optim.lr_scheduler.OneCycleLR(opt, 3e-3, total_steps=steps)
    accuracy = 0.0
    for epoch in range(epochs):
        order = torch.randperm(len(x))
        for i in range(0, len(x) - batch + 1, batch):
            idx = order[i : i + batch]
            loss = nn.functional.cross_entropy(net(x[idx]), y[idx], label_smoothing=0.1)
            opt.zero_grad()
            loss.backward()
            opt.step()
            schedule.step()
        pred = read(net, test_crops)
        accuracy = float((pred == test_classes).mean())
        print(
            f"epoch {epoch + 1}/{epochs}: held-out faces {accuracy:.2%} "
            f"({int((pred != test_classes).sum())} wrong of {len(pred)}), "
            f"{time.time() - start:.0f} s",
            flush=True,
        )
    for i in np.flatnonzero(pred != test_classes):
        names = train.names
        print(f"  wrong: {test_where[i]}: {names[test_classes[i]]} read as {names[pred[i]]}")
    return accuracy


def main() -> None:
    """Command line: see the module notes."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("train", type=Path, help="labeled dataset to learn from (YOLO layout)")
    ap.add_argument("test", type=Path, nargs="?", help="labeled dataset to read")
    ap.add_argument(
        "--split", type=int, help="learn from the first N photos of TRAIN, read the rest"
    )
    ap.add_argument("--copies", type=int, default=300, help="altered copies of each die")
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--time-numpy", action="store_true", help="also time a numpy forward pass")
    args = ap.parse_args()
    if args.time_numpy:
        time_numpy_forward()
    train = load_dataset(args.train)
    if args.split is not None:
        test = train.subset(range(args.split, len(train.items)))
        train = train.subset(range(args.split))
    elif args.test is not None:
        test = load_dataset(args.test)
    else:
        ap.error("give a TEST dataset or --split N")
    experiment(train, test, args.copies, args.epochs, args.seed)


if __name__ == "__main__":
    main()
