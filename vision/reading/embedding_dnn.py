"""The face network's forward pass by OpenCV's ``cv2.dnn``: the weights of
:mod:`vision.reading.embedding` handed over as a Darknet network built in memory (a
text configuration and a weights buffer; nothing written to disk, no runtime beyond
the OpenCV the reader already uses).

Why: the issue asks the reader to run on numpy, ``cv2.dnn`` or ONNX Runtime,
whichever is faster. On one core ``cv2.dnn`` runs a shipped network in about
0.22 ms a view against numpy's 0.27 ms (``toptable bench dice`` prints both, through
the two networks). ONNX Runtime runs them 1.7 times as fast but adds about 50 MB of
resident memory to a reader whose budget is 60 (``tools/experiments/onnx_runtime.py``;
docs/decisions/vision.md), and two wheels on the Pi: not used.

The numpy pass stays the reference: a network is handed to ``cv2.dnn`` only when it
builds and gives the numpy pass's embeddings on a probe of views to 1e-4 (OpenCV's
Darknet reader, ``modules/dnn/src/darknet/darknet_io.cpp`` of OpenCV 4.8-4.11:
``[convolutional]`` with ``pad=1`` pads a 3x3 kernel by one pixel, ``[maxpool]``
``size=2 stride=2`` halves even sides, ``[avgpool]`` averages all of a channel,
``[connected]`` is ``weights @ x + bias``; weights follow a header of three int32
and a 64-bit count of images seen, each layer's biases before its weights, filters
in (out, in, row, column) order). Otherwise the reader keeps numpy and says why once
in the log.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

log = logging.getLogger(__name__)

AGREEMENT = 1e-4  # the most a unit embedding may differ from the numpy pass's
_PROBE_VIEWS = 4
_MAX_BATCH = 64  # views a forward pass: bounds its buffers (about 7 MB at 40 px)

# a 3x3 convolution's weights ((9 * c_in) x c_out, rows in (row, column, channel)
# order) and bias, or None for 2x2 max-pooling
Layer = tuple[NDArray[Any], NDArray[Any]] | None


def darknet_config(layers: Sequence[Layer], head_outputs: int, side: int) -> str:
    """The Darknet configuration of the network: its input (one channel, ``side`` pixels
    square), its layers, global average pooling and the linear head."""
    lines = ["[net]", "batch=1", f"width={side}", f"height={side}", "channels=1", ""]
    for layer in layers:
        if layer is None:
            lines += ["[maxpool]", "size=2", "stride=2", ""]
            continue
        filters = layer[0].shape[1]
        lines += ["[convolutional]", f"filters={filters}", "size=3", "stride=1", "pad=1"]
        lines += ["activation=relu", ""]
    lines += ["[avgpool]", "", "[connected]", f"output={head_outputs}", "activation=linear", ""]
    return "\n".join(lines)


def darknet_weights(
    layers: Sequence[Layer], head_weight: NDArray[Any], head_bias: NDArray[Any]
) -> bytes:
    """The Darknet weights buffer of the network (version 0.2: a 64-bit ``seen``)."""
    parts = [np.array([0, 2, 0], "<i4").tobytes(), np.array([0], "<i8").tobytes()]
    for layer in layers:
        if layer is None:
            continue
        weight, bias = layer
        c_in, c_out = weight.shape[0] // 9, weight.shape[1]
        filters = weight.reshape(3, 3, c_in, c_out).transpose(3, 2, 0, 1)
        parts += [_float_bytes(bias), _float_bytes(filters)]
    parts += [_float_bytes(head_bias), _float_bytes(np.asarray(head_weight).T)]
    return b"".join(parts)


def _float_bytes(a: NDArray[Any]) -> bytes:
    return np.ascontiguousarray(a, dtype="<f4").tobytes()


class DnnForward:
    """A network's forward pass by ``cv2.dnn``: views (n x side x side float32) in, the
    head's outputs (n x d, not normalized) out. Safe to call from several threads (a
    ``cv2.dnn.Net`` is not: calls take turns)."""

    def __init__(self, net: Any, outputs: int) -> None:
        self._net = net
        self._outputs = outputs
        self._lock = threading.Lock()

    def __call__(self, views: NDArray[Any]) -> NDArray[Any]:
        out = np.empty((len(views), self._outputs), np.float32)
        with self._lock:
            for start in range(0, len(views), _MAX_BATCH):
                batch = np.ascontiguousarray(views[start : start + _MAX_BATCH], np.float32)
                self._net.setInput(batch[:, None])
                out[start : start + len(batch)] = self._net.forward().reshape(len(batch), -1)
        return out


def dnn_forward(
    layers: Sequence[Layer],
    head_weight: NDArray[Any],
    head_bias: NDArray[Any],
    side: int,
    reference: Callable[[NDArray[Any]], NDArray[Any]],
) -> DnnForward | None:
    """The network as a :class:`DnnForward`, or None (logged once) when ``cv2.dnn`` cannot
    build it or its unit embeddings of a probe differ from ``reference``'s (the numpy
    pass, head outputs likewise) by more than ``AGREEMENT``."""
    config = darknet_config(layers, head_weight.shape[1], side)
    weights = darknet_weights(layers, head_weight, head_bias)
    try:
        net = cv2.dnn.readNetFromDarknet(
            np.frombuffer(config.encode(), np.uint8), np.frombuffer(weights, np.uint8)
        )
        net.setPreferableBackend(cv2.dnn.DNN_BACKEND_OPENCV)
        net.setPreferableTarget(cv2.dnn.DNN_TARGET_CPU)
        forward = DnnForward(net, head_weight.shape[1])
        probe = np.random.default_rng(0).standard_normal((_PROBE_VIEWS, side, side))
        probe = probe.astype(np.float32)
        gap = float(np.abs(unit_rows(forward(probe)) - unit_rows(reference(probe))).max())
    except (cv2.error, ValueError) as e:
        log.warning("face network: cv2.dnn cannot run it (%s); numpy runs it", e)
        return None
    if not gap <= AGREEMENT:
        log.warning("face network: cv2.dnn differs from numpy by %.2g; numpy runs it", gap)
        return None
    return forward


def unit_rows(e: NDArray[Any]) -> NDArray[Any]:
    """Each row scaled to unit length (an all-zero row stays near zero)."""
    out: NDArray[Any] = (e / (np.linalg.norm(e, axis=1, keepdims=True) + 1e-6)).astype(np.float32)
    return out
