"""The shipped face-embedding network: its numpy forward pass, its file checks, and that
it tells a die's faces apart on dice it was not trained on."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray

from controller.core.symbols import Symbol
from vision.errors import ModelError
from vision.learning.defaults import DEFAULT_MODEL
from vision.reading import embedding
from vision.reading.describe import (
    DESCRIPTION_SIZE,
    SECOND_LOOK,
    describe_again,
    describe_dice,
    light_gains,
)
from vision.reading.embedding import (
    DEFAULT_PATH,
    EMBED_DIMS,
    VIEW_PX,
    FaceEmbedding,
    default_embedding,
    die_view,
    die_views,
    load_embedding,
    strangers_embedding,
)
from vision.reading.features import cut_patch, cut_patches
from vision.reading.model import load_model
from vision.synth.die import draw_face


def quarter_turned(view: NDArray[Any]) -> NDArray[Any]:
    return np.stack([np.rot90(view, k) for k in range(4)])


def _scene(symbol: Symbol, angle: float, shift: tuple[float, float]) -> NDArray[Any]:
    """A 40 px game die (our drawing) on a felt-green tray, turned and shifted."""
    tray = np.full((120, 120, 3), (40, 90, 30), np.uint8)
    face = cv2.resize(draw_face(symbol), (40, 40), interpolation=cv2.INTER_AREA)
    m = cv2.getRotationMatrix2D((20, 20), angle, 1.0)
    m[0, 2] += 40 + shift[0]
    m[1, 2] += 40 + shift[1]
    die = cv2.warpAffine(face, m, (120, 120))
    mask = cv2.warpAffine(np.full((40, 40), 255, np.uint8), m, (120, 120))
    tray[mask > 127] = die[mask > 127]
    return tray


def test_embeddings_have_unit_length_and_turn_with_the_view() -> None:
    net = default_embedding()
    view = die_view(_scene(Symbol.STAR, 10, (0, 0)), ((60.0, 60.0), (40.0, 40.0), 10.0))
    assert view.shape == (VIEW_PX, VIEW_PX)
    e = net.embed(quarter_turned(view))
    assert e.shape == (4, EMBED_DIMS)
    assert np.allclose(np.linalg.norm(e, axis=1), 1.0, atol=1e-4)
    # batching must not change a view's embedding
    assert np.allclose(net.embed(view[None])[0], e[0], atol=1e-5)


def test_faces_of_an_unseen_die_are_told_apart() -> None:
    """Our drawings of the game's symbols were never among the training designs. As
    calibration stores them (each face at a few turns, in its quarter turns), a face
    turned and shifted otherwise stays nearer its own face than any other."""
    net = default_embedding()
    symbols = list(Symbol)
    refs, ref_face = [], []
    for i, s in enumerate(symbols):
        for angle in (0.0, 30.0, 60.0):
            view = die_view(_scene(s, angle, (0, 0)), ((60.0, 60.0), (40.0, 40.0), angle))
            refs.append(net.embed(quarter_turned(view)))
            ref_face += [i] * 4
    stored, faces = np.concatenate(refs), np.array(ref_face)
    right = 0
    for i, s in enumerate(symbols):
        for angle, shift in ((43.0, (2.0, -1.0)), (-20.0, (-2.0, 2.0))):
            rect = ((60.0 + shift[0], 60.0 + shift[1]), (40.0, 40.0), angle)
            e = net.embed(die_view(_scene(s, angle, shift), rect)[None])[0]
            right += int(faces[np.argmax(stored @ e)] == i)
    assert right >= 11, f"{right} of 12 turned faces nearest their own face"


def test_a_description_joins_features_and_embedding() -> None:
    image = _scene(Symbol.KICK, 0, (0, 0))
    rects = [((60.0, 60.0), (40.0, 40.0), 0.0), ((60.0, 60.0), (40.0, 40.0), 30.0)]
    both = describe_dice(image, rects)
    assert both.shape == (2, DESCRIPTION_SIZE)
    # the view's embeddings by the two shipped networks last (each times 1/sqrt(2)), the
    # patch's features before them
    view = die_view(image, rects[1])[None]
    first, second = default_embedding().embed(view)[0], strangers_embedding().embed(view)[0]
    assert np.allclose(both[1, -2 * EMBED_DIMS : -EMBED_DIMS], first / np.sqrt(2), atol=1e-5)
    assert np.allclose(both[1, -EMBED_DIMS:], second / np.sqrt(2), atol=1e-5)
    assert not np.allclose(first, second, atol=0.05)  # two networks, not one twice
    assert np.linalg.norm(both[1, -2 * EMBED_DIMS :]) == pytest.approx(1.0, abs=1e-4)
    assert not np.allclose(both[0, : -2 * EMBED_DIMS], both[1, : -2 * EMBED_DIMS])
    assert describe_dice(image, []).shape == (0, DESCRIPTION_SIZE)


def _red_die_on_wood() -> NDArray[Any]:
    """A red die showing three pale pips on a brown, grainy floor (as the catan dice)."""
    image = np.full((120, 120, 3), (60, 100, 140), np.float64)
    image += np.random.default_rng(0).normal(0, 6, image.shape)
    scene = np.clip(image, 0, 255).astype(np.uint8)
    cv2.rectangle(scene, (40, 40), (80, 80), (40, 40, 190), -1)
    for x in (48, 60, 72):
        cv2.circle(scene, (x, x), 4, (150, 215, 235), -1)
    return scene


def test_a_colour_cast_is_taken_out_before_a_die_is_described() -> None:
    image = _red_die_on_wood()
    warm = np.clip(image * np.array([0.38, 0.55, 0.75]), 0, 255).astype(np.uint8)  # B, G, R
    gains = light_gains(warm)
    assert gains is not None
    means = (warm.reshape(-1, 3) * gains).mean(0)
    assert np.allclose(means, means.mean(), rtol=0.05), "channel means made equal"
    assert means.mean() == pytest.approx(warm.reshape(-1, 3).mean(), rel=0.01), "level kept"
    rect = [((60.0, 60.0), (40.0, 40.0), 0.0)]
    lit = describe_dice(image, rect, light_gains(image))[0]
    dim, raw = describe_dice(warm, rect, gains)[0], describe_dice(warm, rect)[0]
    change_neutral = 1.0 - float(lit @ dim) / float(lit @ lit)
    change_raw = 1.0 - float(lit @ raw) / float(lit @ lit)
    assert change_neutral < 0.25 * change_raw, (change_neutral, change_raw)
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    assert light_gains(gray) is None


def test_a_second_look_cuts_each_die_several_ways() -> None:
    image = _scene(Symbol.KICK, 0, (0, 0))
    rects = [((60.0, 60.0), (40.0, 40.0), 0.0), ((58.0, 61.0), (40.0, 40.0), 20.0)]
    again = describe_again(image, rects)
    assert again.shape == (2, len(SECOND_LOOK), DESCRIPTION_SIZE)
    # the first cut is the die's own; the others differ from it
    first = describe_dice(image, rects)
    assert np.allclose(again[:, 0], first, atol=1e-5)
    # given, the first look's descriptions are taken as they are; the other cuts are made
    reused = describe_again(image, rects, first=first)
    assert np.array_equal(reused[:, 0], first)
    assert np.allclose(reused[:, 1:], again[:, 1:], atol=1e-5)
    assert not np.allclose(again[0, 0], again[0, 1])
    # ... and all are read as the same face
    model = load_model(DEFAULT_MODEL)
    faces = {r.face for r in model.classify(again[0])}
    assert faces == {model.classify(again[:1])[0].face}


def test_missing_corrupt_and_foreign_files_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="no such face-embedding file"):
        load_embedding(tmp_path / "none.npz")
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a zip")
    with pytest.raises(ModelError, match=r"bad\.npz: not a face-embedding file"):
        load_embedding(bad)
    with np.load(DEFAULT_PATH) as data:
        arrays = {k: data[k] for k in data.files}
    newer = tmp_path / "newer.npz"
    np.savez(newer, **{**arrays, "format": np.int64(99)})
    with pytest.raises(ModelError, match="face-embedding format 99"):
        load_embedding(newer)
    # the second convolution given 3 input channels: the shapes no longer chain
    second = [i for i, kind in enumerate(json.loads(str(arrays["layers"]))) if kind == "conv"][1]
    w = arrays[f"w{second}"]
    broken = tmp_path / "broken.npz"
    np.savez(broken, **{**arrays, f"w{second}": w[:, :, :3]})
    expected = (
        rf"layer {second} weights \(3, 3, 3, {w.shape[3]}\), expected \(3, 3, {w.shape[2]}, c\)"
    )
    with pytest.raises(ModelError, match=expected):
        load_embedding(broken)


@pytest.mark.parametrize(
    ("where", "loader", "name", "content", "expected"),
    [
        ("DEFAULT_PATH", default_embedding, "face-embedding.npz", b"truncated",
         r"face-embedding\.npz: not a face-embedding file"),
        ("STRANGERS_PATH", strangers_embedding, "face-embedding-strangers.npz", None,
         r"face-embedding-strangers\.npz: no such face-embedding file"),
    ],
)  # fmt: skip
def test_a_damaged_or_missing_shipped_network_stops_loading_a_model(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    where: str,
    loader: Any,
    name: str,
    content: bytes | None,
    expected: str,
) -> None:
    """The daemon loads its model at start (and both shipped networks with it): a broken
    install must fail there, in one line."""
    bad = tmp_path / name
    if content is not None:
        bad.write_bytes(content)
    monkeypatch.setattr(embedding, where, bad)
    loader.cache_clear()
    try:
        with pytest.raises(ModelError, match=expected):
            load_model(DEFAULT_MODEL)
    finally:
        monkeypatch.undo()
        loader.cache_clear()
    assert load_model(DEFAULT_MODEL).names[0] == "kick"


def _reference_embedding(net: FaceEmbedding, views: NDArray[Any]) -> NDArray[Any]:
    """The network as its file describes it, one layer after another: each convolution
    summed over its nine taps (padding 1), its bias, its ReLU; 2x2 max-pooling; the mean
    over the pixels, the head, unit length (float64)."""
    h = views[..., None].astype(np.float64)
    for layer in net.layers:
        if layer is None:
            b, rows, cols, c = h.shape
            h = h.reshape(b, rows // 2, 2, cols // 2, 2, c).max(axis=(2, 4))
            continue
        rows, cols, c = h.shape[1:]
        w = layer.weight.reshape(3, 3, c, -1)
        padded = np.pad(h, ((0, 0), (1, 1), (1, 1), (0, 0)))
        out = sum(
            padded[:, y : y + rows, x : x + cols] @ w[y, x] for y in range(3) for x in range(3)
        )
        h = np.maximum(out + layer.bias, 0.0)
    e = h.mean(axis=(1, 2)) @ net.head_weight + net.head_bias
    result: NDArray[Any] = e / np.linalg.norm(e, axis=1, keepdims=True)
    return result


def test_the_forward_pass_is_the_network_layer_by_layer() -> None:
    """Pooling before the bias and the ReLU, im2col and batches of views change nothing
    but rounding: more views than one batch, each as a plain layer-by-layer pass gives."""
    net = default_embedding()
    image = _scene(Symbol.STAR, 25, (1, -2))
    rects = [((60.0 + dx, 60.0 - dx), (40.0, 40.0), 25.0 + 3 * dx) for dx in range(-20, 20)]
    views = die_views(image, rects)
    assert len(views) > 32  # more than one batch of the network
    assert np.allclose(net.embed(views), _reference_embedding(net, views), atol=1e-4)


def test_many_dice_are_cut_as_each_alone() -> None:
    """Cutting all dice at once (one contrast channel each) gives each die's own cut."""
    image = _red_die_on_wood()
    gains = light_gains(image)
    rects = [((60.0, 60.0), (40.0, 40.0), 0.0), ((50.0, 64.0), (36.0, 36.0), 20.0)]
    rects.append(((70.0, 55.0), (44.0, 44.0), 65.0))
    for g in (None, gains):
        views, patches = die_views(image, rects, g), cut_patches(image, rects, g)
        for i, rect in enumerate(rects):
            assert np.allclose(views[i], die_view(image, rect, g), atol=1e-5)
            assert np.allclose(patches[i], cut_patch(image, rect, g), atol=1e-3)
