"""Experiment, not product: the shipped face networks run by ONNX Runtime, against cv2.dnn.

Issue 28 asks the reader to run on numpy, ``cv2.dnn`` or ONNX Runtime, whichever is
faster, measured. This builds each shipped network (``vision/models/face-embedding*.npz``,
read by :func:`vision.reading.embedding.load_embedding`) as an ONNX graph in memory,
checks that ONNX Runtime gives the numpy pass's unit embeddings to 1e-4 (as the reader
checks ``cv2.dnn``), then prints, on one thread each:

- a view's time through both networks by ``cv2.dnn`` and by ONNX Runtime (batches of
  6, 24 and 80 views; the two take turns, ``--rounds`` rounds, the median);
- the resident memory ONNX Runtime adds to the process: importing it, then building the
  two sessions and running one batch (the reader's memory target is +60 MB in all).

The figures and why the reader keeps ``cv2.dnn``: docs/decisions/vision.md ("The face
networks by ONNX Runtime"). Needs ``onnx`` (to build the graph) and ``onnxruntime``,
which the product does not install; ``make .venv/.onnx-stamp`` puts them in the
checkout's venv. From the checkout::

    .venv/bin/python -m tools.experiments.onnx_runtime
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable, Sequence
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.reading.embedding import (
    VIEW_PX,
    FaceEmbedding,
    default_embedding,
    strangers_embedding,
)
from vision.reading.embedding_dnn import AGREEMENT, unit_rows

OPSET = 13  # Conv, MaxPool, GlobalAveragePool, Flatten, Gemm: all in ONNX's opset 13
BATCHES = (6, 24, 80)


def resident_mb() -> float:
    """This process's resident memory (MB), from /proc/self/statm."""
    with open("/proc/self/statm") as fh:
        pages = int(fh.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 1e6


def onnx_graph(net: FaceEmbedding) -> bytes:
    """``net`` as a serialized ONNX model: input ``x`` (n x 1 x VIEW_PX x VIEW_PX), output
    ``y`` (n x d, the head's outputs before they are scaled to unit length)."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    nodes, weights, current = [], [], "x"
    for i, layer in enumerate(net.layers):
        if layer is None:
            nodes.append(helper.make_node("MaxPool", [current], [f"pool{i}"],
                                          kernel_shape=[2, 2], strides=[2, 2]))  # fmt: skip
            current = f"pool{i}"
            continue
        c_in, c_out = layer.weight.shape[0] // 9, layer.weight.shape[1]
        # (row, column, channel) x out rows, as the numpy pass multiplies them, to ONNX's
        # (out, in, row, column)
        kernel = layer.weight.reshape(3, 3, c_in, c_out).transpose(3, 2, 0, 1)
        weights += [
            numpy_helper.from_array(np.ascontiguousarray(kernel, np.float32), f"w{i}"),
            numpy_helper.from_array(layer.bias.astype(np.float32), f"b{i}"),
        ]
        nodes.append(helper.make_node("Conv", [current, f"w{i}", f"b{i}"], [f"conv{i}"],
                                      kernel_shape=[3, 3], pads=[1, 1, 1, 1]))  # fmt: skip
        nodes.append(helper.make_node("Relu", [f"conv{i}"], [f"relu{i}"]))
        current = f"relu{i}"
    weights += [
        numpy_helper.from_array(net.head_weight.astype(np.float32), "head_w"),
        numpy_helper.from_array(net.head_bias.astype(np.float32), "head_b"),
    ]
    nodes += [
        helper.make_node("GlobalAveragePool", [current], ["pooled"]),
        helper.make_node("Flatten", ["pooled"], ["flat"]),
        helper.make_node("Gemm", ["flat", "head_w", "head_b"], ["y"]),
    ]
    side, outputs = VIEW_PX, net.head_weight.shape[1]
    graph = helper.make_graph(
        nodes,
        "face_embedding",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 1, side, side])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", outputs])],
        weights,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 8  # what ONNX Runtime 1.14 and later read
    onnx.checker.check_model(model)
    data: bytes = model.SerializeToString()
    return data


def ort_forward(graph: bytes) -> Callable[[NDArray[Any]], NDArray[Any]]:
    """A one-thread ONNX Runtime session of ``graph``, as a function of views (n x side x
    side float32) to the head's outputs."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    # no memory arena nor planned buffers: the least resident memory a reader would pay
    # (measured with them: a few MB more, no faster)
    options.enable_cpu_mem_arena = False
    options.enable_mem_pattern = False
    session = ort.InferenceSession(graph, options, providers=["CPUExecutionProvider"])

    def forward(views: NDArray[Any]) -> NDArray[Any]:
        batch = np.ascontiguousarray(views, np.float32)[:, None]
        out: NDArray[Any] = session.run(None, {"x": batch})[0]
        return out

    return forward


def _unit_rows_of(
    forward: Callable[[NDArray[Any]], NDArray[Any]],
) -> Callable[[NDArray[Any]], NDArray[Any]]:
    return lambda views: unit_rows(forward(views))


def per_view_ms(run: Callable[[NDArray[Any]], Any], views: NDArray[Any]) -> float:
    """Milliseconds a view of one call of ``run`` on ``views``."""
    start = time.perf_counter()
    run(views)
    return (time.perf_counter() - start) * 1000.0 / len(views)


def main(argv: Sequence[str] | None = None) -> None:
    """Check ONNX Runtime against the numpy pass, then time it against cv2.dnn."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=40, help="timed rounds per batch")
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    nets = [default_embedding(), strangers_embedding()]
    if not all(net.runs_dnn for net in nets):
        raise SystemExit("cv2.dnn does not run the shipped networks here: nothing to compare")
    graphs = [onnx_graph(net) for net in nets]  # onnx imported and done with first
    before = resident_mb()
    import onnxruntime

    imported = resident_mb()
    sessions = [ort_forward(graph) for graph in graphs]
    probe = np.random.default_rng(0).standard_normal((24, VIEW_PX, VIEW_PX)).astype(np.float32)
    gaps = [
        float(np.abs(unit_rows(session(probe)) - net.embed_numpy(probe)).max())
        for net, session in zip(nets, sessions, strict=True)
    ]
    after = resident_mb()
    print(f"onnxruntime {onnxruntime.__version__}, OpenCV {cv2.__version__}, one thread each")
    verdict = "agrees" if max(gaps) <= AGREEMENT else "DIFFERS"
    print(f"unit embeddings against numpy: largest gap {max(gaps):.2g} ({verdict}, "
          f"bar {AGREEMENT:g})")  # fmt: skip
    print(f"memory: importing onnxruntime +{imported - before:.1f} MB, its two sessions "
          f"built and run +{after - imported:.1f} MB")  # fmt: skip
    # unit length too, as FaceEmbedding.embed gives them
    ort_embeds = [_unit_rows_of(session) for session in sessions]
    rng = np.random.default_rng(1)
    for n in BATCHES:
        views = rng.standard_normal((n, VIEW_PX, VIEW_PX)).astype(np.float32)
        dnn_ms, ort_ms = [], []
        for _ in range(args.rounds):  # taking turns: a noisy machine slows both alike
            dnn_ms.append(sum(per_view_ms(net.embed, views) for net in nets))
            ort_ms.append(sum(per_view_ms(embed, views) for embed in ort_embeds))
        print(f"batch {n:2d}: both networks {np.median(dnn_ms):.3f} ms a view by cv2.dnn, "
              f"{np.median(ort_ms):.3f} ms by ONNX Runtime")  # fmt: skip


if __name__ == "__main__":
    main()
