"""The face network run by the real ``cv2.dnn`` (OpenCV's Darknet reader, built in
memory): it gives the numpy pass's embeddings, and where it cannot, numpy runs."""

from __future__ import annotations

import logging
import threading
from typing import Any

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray

from vision.reading import embedding_dnn
from vision.reading.embedding import (
    EMBED_DIMS,
    VIEW_PX,
    Conv,
    FaceEmbedding,
    default_embedding,
    strangers_embedding,
)
from vision.reading.embedding_dnn import darknet_config, dnn_forward


def _views(n: int, seed: int = 1) -> NDArray[Any]:
    return np.random.default_rng(seed).standard_normal((n, VIEW_PX, VIEW_PX)).astype(np.float32)


def _random_network(spec: list[int | None], seed: int = 2) -> FaceEmbedding:
    """A network of 3x3 convolutions of ``spec``'s channel counts (None: max-pooling)."""
    rng = np.random.default_rng(seed)
    layers: list[Conv | None] = []
    channels = 1
    for out in spec:
        if out is None:
            layers.append(None)
            continue
        weight = rng.normal(0, (2.0 / (9 * channels)) ** 0.5, (9 * channels, out))
        layers.append(Conv(weight.astype(np.float32), rng.normal(0, 0.1, out).astype(np.float32)))
        channels = out
    head = rng.normal(0, 0.3, (channels, 24)).astype(np.float32)
    return FaceEmbedding(tuple(layers), head, rng.normal(0, 0.1, 24).astype(np.float32))


@pytest.mark.parametrize("net", [default_embedding, strangers_embedding], ids=["first", "second"])
def test_the_shipped_networks_run_by_cv2_dnn_as_by_numpy(net: Any) -> None:
    network = net()
    views = _views(70)  # more than one forward pass of cv2.dnn
    assert network.runs_dnn  # the real OpenCV runs it
    got, reference = network.embed(views), network.embed_numpy(views)
    assert got.shape == (70, EMBED_DIMS)
    assert np.abs(got - reference).max() < 1e-4
    assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-4)


@pytest.mark.parametrize(
    "spec", [[8, None, 12], [16, 16, None, None, 8], [4]], ids=["pool-mid", "pools", "one"]
)
def test_networks_of_other_layers_are_built_alike(spec: list[int | None]) -> None:
    network = _random_network(spec)
    views = _views(9, seed=3)
    assert network.runs_dnn
    assert np.abs(network.embed(views) - network.embed_numpy(views)).max() < 1e-4


def test_no_views_give_no_embeddings() -> None:
    assert default_embedding().embed(np.zeros((0, VIEW_PX, VIEW_PX), np.float32)).shape == (
        0,
        EMBED_DIMS,
    )


def test_numpy_runs_the_network_when_cv2_dnn_cannot(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def refuse(*_: Any) -> Any:
        raise cv2.error("darknet: unsupported layer")

    monkeypatch.setattr(cv2.dnn, "readNetFromDarknet", refuse)
    network = _random_network([8, None, 12])
    views = _views(5)
    with caplog.at_level(logging.WARNING, logger=embedding_dnn.__name__):
        got = network.embed(views)
    assert not network.runs_dnn
    assert "cv2.dnn cannot run it" in caplog.text and "unsupported layer" in caplog.text
    assert np.array_equal(got, network.embed_numpy(views))


def test_a_cv2_dnn_network_that_disagrees_with_numpy_is_not_used(
    caplog: pytest.LogCaptureFixture,
) -> None:
    network = _random_network([8, None, 12])
    layers = [None if c is None else (c.weight, c.bias) for c in network.layers]

    def other(views: NDArray[Any]) -> NDArray[Any]:  # a numpy pass with another head
        return network._forward_numpy(views)[:, ::-1]

    with caplog.at_level(logging.WARNING, logger=embedding_dnn.__name__):
        built = dnn_forward(layers, network.head_weight, network.head_bias, VIEW_PX, other)
    assert built is None
    assert "differs from numpy" in caplog.text


def test_the_configuration_names_each_layer() -> None:
    network = _random_network([8, None, 12])
    layers = [None if c is None else (c.weight, c.bias) for c in network.layers]
    config = darknet_config(layers, 24, VIEW_PX)
    sections = [line for line in config.splitlines() if line.startswith("[")]
    assert sections == [
        "[net]",
        "[convolutional]",
        "[maxpool]",
        "[convolutional]",
        "[avgpool]",
        "[connected]",
    ]
    assert "filters=12" in config and "output=24" in config and f"width={VIEW_PX}" in config


def test_threads_reading_at_once_get_each_their_own_embeddings() -> None:
    network = default_embedding()
    batches = [_views(7, seed=s) for s in range(6)]
    expected = [network.embed_numpy(b) for b in batches]
    got: dict[int, NDArray[Any]] = {}

    def read(i: int) -> None:
        for _ in range(5):
            got[i] = network.embed(batches[i])

    threads = [threading.Thread(target=read, args=(i,)) for i in range(len(batches))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i, e in enumerate(expected):
        assert np.abs(got[i] - e).max() < 1e-4
