"""A die's face embedding: a small convolutional network, run by ``cv2.dnn`` or numpy.

The network maps a die's view (the square about the die in which the die fills
``DIE_SPAN``, image axes kept, ``VIEW_PX`` pixels, in its contrast channel) to ``EMBED_DIMS`` numbers of unit length in
which two views of the same face of the same dice lie close and two faces of
one die lie apart, whatever the dice's design. It was trained once, off the Pi,
on synthetic dice of thousands of designs (pips, numerals, symbols, logo faces;
any colours, marbled bodies, tilted views showing side faces, shadows,
neighbours, textured backgrounds, re-lit, blurred, JPEG-damaged):
``tools/embedding/`` holds the generator, the trainer and its seed, and
rebuilds ``models/face-embedding.npz``. Nothing in it was learned from the
owner's dice or from any photo set: the owner's dice are learned at calibration,
joined with their top faces' features (:mod:`vision.reading.describe`, :mod:`vision.reading.model`).

The network is four 3x3 convolutions (16, 32, 48, 64 channels, 2x2 max-pooling
after the first two), global average pooling and a linear head: 51k weights, about
6 million multiply-adds a view. The reader runs it by ``cv2.dnn``
(:mod:`vision.reading.embedding_dnn`, about 0.22 ms a view on one core); the numpy
pass here (im2col and one matrix product a layer, about 0.27 ms) is the reference the
``cv2.dnn`` network must agree with, and what runs when it does not.

File format (``.npz``): ``format`` (int, ``EMBEDDING_FORMAT``), ``layers``
(JSON list, one entry a layer: ``"conv"`` or ``"pool"``), for the convolution at
index ``i`` ``w{i}`` (3 x 3 x c_in x c_out float32, batch norm folded in) and
``b{i}``, then ``head_w`` (c x EMBED_DIMS) and ``head_b``.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.errors import ModelError
from vision.reading.embedding_dnn import DnnForward, dnn_forward, unit_rows
from vision.reading.features import Rect, in_channel
from vision.reading.stored import checked_npz

EMBEDDING_FORMAT = 1
VIEW_PX = 40  # the network's input side
DIE_SPAN = 0.8  # the share of the view's side a die's extent along the image axes fills
EMBED_DIMS = 64
DEFAULT_PATH = Path(__file__).resolve().parents[1] / "models" / "face-embedding.npz"
# the same network trained on strangers' dice sets too (tools/embedding/train.py
# --stranger-designs 350): the reader joins both (vision.reading.describe)
STRANGERS_PATH = DEFAULT_PATH.with_name("face-embedding-strangers.npz")
_BATCH = 32  # views per matrix product: bounds the im2col buffers (under 10 MB)


@dataclass(frozen=True)
class Conv:
    """A 3x3 convolution (padding 1) with its bias and a ReLU."""

    weight: NDArray[Any]  # (9 * c_in) x c_out
    bias: NDArray[Any]


@dataclass(frozen=True)
class FaceEmbedding:
    """The network's layers (convolutions and 2x2 max-pooling) and its linear head."""

    layers: tuple[Conv | None, ...]  # None: 2x2 max-pooling
    head_weight: NDArray[Any]
    head_bias: NDArray[Any]

    def embed(self, views: NDArray[Any]) -> NDArray[Any]:
        """The unit-length embeddings (n x EMBED_DIMS float32) of views (n x VIEW_PX x VIEW_PX,
        each as :func:`network_input` makes it): by ``cv2.dnn`` when it runs the network
        as numpy does (:mod:`vision.reading.embedding_dnn`), else by numpy."""
        if len(views) == 0:
            return np.zeros((0, self.head_weight.shape[1]), np.float32)
        forward = self._dnn
        return unit_rows(forward(views) if forward is not None else self._forward_numpy(views))

    def embed_numpy(self, views: NDArray[Any]) -> NDArray[Any]:
        """:meth:`embed` by the numpy pass alone (the reference; the benchmark times both)."""
        return unit_rows(self._forward_numpy(views))

    @property
    def runs_dnn(self) -> bool:
        """Whether :meth:`embed` runs by ``cv2.dnn`` (built on first use)."""
        return self._dnn is not None

    @functools.cached_property
    def _dnn(self) -> DnnForward | None:
        layers = [None if c is None else (c.weight, c.bias) for c in self.layers]
        return dnn_forward(layers, self.head_weight, self.head_bias, VIEW_PX, self._forward_numpy)

    def _forward_numpy(self, views: NDArray[Any]) -> NDArray[Any]:
        """The head's outputs (n x EMBED_DIMS, not normalized), a batch at a time."""
        n = len(views)
        out = np.empty((n, self.head_weight.shape[1]), np.float32)
        for start in range(0, n, _BATCH):
            out[start : start + _BATCH] = self._forward_batch(views[start : start + _BATCH])
        return out

    def _forward_batch(self, views: NDArray[Any]) -> NDArray[Any]:
        h = np.asarray(views, np.float32)[..., None]
        layers = self.layers
        i = 0
        while i < len(layers):
            layer = layers[i]
            i += 1
            if layer is None:
                h = _max_pool(h)
                continue
            b, rows, cols, _ = h.shape
            h = (_im2col(h) @ layer.weight).reshape(b, rows, cols, -1)
            if i < len(layers) and layers[i] is None:
                # pooled before the bias and the ReLU, which commute exactly with the max
                # (both are monotone): a quarter of the work, the same numbers
                h = _max_pool(h)
                i += 1
            h += layer.bias
            np.maximum(h, 0.0, out=h)
        pooled = h.mean(axis=(1, 2))
        result: NDArray[Any] = (pooled @ self.head_weight + self.head_bias).astype(np.float32)
        return result


def _im2col(h: NDArray[Any]) -> NDArray[Any]:
    """The 3x3 neighbourhoods (zero outside) of each pixel of ``h`` (b x rows x cols x c),
    one row a pixel in (y, x, c) order: (b * rows * cols) x 9c, written in one buffer."""
    b, rows, cols, c = h.shape
    out = np.zeros((b, rows, cols, 3, 3, c), np.float32)
    for dy in (-1, 0, 1):
        y0, y1 = max(0, -dy), rows - max(0, dy)
        for dx in (-1, 0, 1):
            x0, x1 = max(0, -dx), cols - max(0, dx)
            out[:, y0:y1, x0:x1, dy + 1, dx + 1] = h[:, y0 + dy : y1 + dy, x0 + dx : x1 + dx]
    return out.reshape(b * rows * cols, 9 * c)


def _max_pool(h: NDArray[Any]) -> NDArray[Any]:
    """2x2 max-pooling of b x rows x cols x c (even sides)."""
    top = np.maximum(h[:, 0::2, 0::2], h[:, 0::2, 1::2])
    out: NDArray[Any] = np.maximum(top, h[:, 1::2, 0::2], out=top)
    np.maximum(out, h[:, 1::2, 1::2], out=out)
    return out


def network_input(bgr: NDArray[Any], ink: NDArray[Any] | None = None) -> NDArray[Any]:
    """A colour (or gray) view as the network reads it: its contrast channel (along ``ink``
    when given, :func:`vision.reading.features.contrast_channels`), zero mean, unit spread
    (so the dice's colours, the light's level and colour do not matter)."""
    out: NDArray[Any] = network_inputs(bgr[None], ink)[0]
    return out


def network_inputs(bgr: NDArray[Any], ink: NDArray[Any] | None = None) -> NDArray[Any]:
    """:func:`network_input` of each of n views (n x side x side, x 3 for colour)."""
    c = in_channel(bgr.astype(np.float32), ink=ink)
    c = c - c.mean(axis=(1, 2), keepdims=True)
    out: NDArray[Any] = (c / (c.std(axis=(1, 2), keepdims=True) + 1e-3)).astype(np.float32)
    return out


def die_view(
    image: NDArray[Any],
    rect: Rect,
    gains: NDArray[Any] | None = None,
    ink: NDArray[Any] | None = None,
) -> NDArray[Any]:
    """The die's view: the square about its centre, image axes kept, in which the die's
    extent along the axes (its side turned by its rotation) fills ``DIE_SPAN`` of the
    side, as in training; scaled to ``VIEW_PX``, its colour channels times ``gains``
    when given, as :func:`network_input` (along ``ink`` when given)."""
    out: NDArray[Any] = die_views(image, [rect], gains, ink)[0]
    return out


def view_cuts(image: NDArray[Any], rects: Sequence[Rect]) -> NDArray[Any]:
    """Each die's view cut of ``image`` as it is (colour or gray), before any channel is
    taken: n x VIEW_PX x VIEW_PX (x 3), the image's own type."""
    warped = []
    for (cx, cy), (rw, rh), angle in rects:
        turn = math.radians(angle)
        extent = max(rw, rh, 4.0) * (abs(math.cos(turn)) + abs(math.sin(turn)))
        zoom = VIEW_PX * DIE_SPAN / extent
        m = np.array([[zoom, 0.0, VIEW_PX / 2 - zoom * cx], [0.0, zoom, VIEW_PX / 2 - zoom * cy]])
        warped.append(
            cv2.warpAffine(
                image,
                m,
                (VIEW_PX, VIEW_PX),
                flags=cv2.INTER_LINEAR,
                borderMode=cv2.BORDER_REPLICATE,
            )
        )
    return np.stack(warped)


def die_views(
    image: NDArray[Any],
    rects: Sequence[Rect],
    gains: NDArray[Any] | None = None,
    ink: NDArray[Any] | None = None,
) -> NDArray[Any]:
    """:func:`die_view` of each of ``rects`` (at least one): n x VIEW_PX x VIEW_PX."""
    views = view_cuts(image, rects)
    if gains is not None and views.ndim == 4:
        views = views.astype(np.float32) * gains
    return network_inputs(views, ink)


def load_embedding(path: str | Path = DEFAULT_PATH) -> FaceEmbedding:
    """Read a network written by ``tools/embedding/train.py``.

    Raises:
        ModelError: the file is missing, corrupt, of another format, or its shapes
            do not chain.
    """
    path = Path(path)
    with checked_npz(path, "face-embedding", EMBEDDING_FORMAT, "a face-embedding file") as data:
        layers: list[Conv | None] = []
        channels = 1
        for i, spec in enumerate(json.loads(str(data["layers"]))):
            if spec == "pool":
                layers.append(None)
                continue
            w = data[f"w{i}"].astype(np.float32)
            if w.shape != (3, 3, channels, w.shape[3]):
                raise ModelError(
                    f"{path}: layer {i} weights {w.shape}, expected (3, 3, {channels}, c)"
                )
            channels = w.shape[3]
            layers.append(Conv(w.reshape(9 * w.shape[2], channels), data[f"b{i}"]))
        head_w = data["head_w"].astype(np.float32)
        if head_w.shape[0] != channels:
            raise ModelError(f"{path}: head of shape {head_w.shape}, expected ({channels}, d)")
        return FaceEmbedding(tuple(layers), head_w, data["head_b"].astype(np.float32))


@functools.cache
def default_embedding() -> FaceEmbedding:
    """The shipped network (read once per process).

    Raises:
        ModelError: the shipped file is missing or damaged.
    """
    return load_embedding(DEFAULT_PATH)


@functools.cache
def strangers_embedding() -> FaceEmbedding:
    """The shipped network trained on strangers' dice sets too (read once per process).

    Raises:
        ModelError: its file is missing or damaged.
    """
    return load_embedding(STRANGERS_PATH)
