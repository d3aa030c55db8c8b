"""The strangers' renderer: invented dice sets, tables and cameras, and their labels."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from vision.learning.dataset import load_dataset
from vision.synth.designs import SYMBOLS, DiceSet, MarkKind, face_texture
from vision.synth.strangers import StrangerCamera, phone_stranger, stranger, write_stranger
from vision.synth.tables import TableKind, table_texture


def test_strangers_differ_and_repeat() -> None:
    looks = {stranger(seed).describe() for seed in range(12)}
    assert len(looks) == 12  # every seed another dice set, table or camera
    kinds = {s.kind for seed in range(30) for s in stranger(seed).sets}
    tables = {stranger(seed).table for seed in range(30)}
    assert kinds == set(MarkKind) and tables == set(TableKind)
    sizes = [stranger(seed).die_px for seed in range(40)]
    assert 15 <= min(sizes) < 30 and 100 < max(sizes) <= 200
    assert stranger(5) == stranger(5)
    a, _ = StrangerCamera(stranger(5), seed=1).photo(3)
    b, _ = StrangerCamera(stranger(5), seed=1).photo(3)
    c, _ = StrangerCamera(stranger(5), seed=2).photo(3)
    assert np.array_equal(a, b) and not np.array_equal(a, c)


def test_a_12_megapixel_phone_photo_holds_dice_of_a_real_phones_size() -> None:
    who = phone_stranger()
    image, labels = StrangerCamera(who, seed=1).photo()
    assert image.shape == (3000, 4000, 3)
    assert who.dice[0] <= len(labels) <= who.dice[1]
    # a top face's box: about 170 px seen from above, a little less across the tilt
    sides = [float(np.sqrt(w * h)) for _, (_, _, w, h) in labels]
    assert 130 < float(np.median(sides)) < 210


def test_labels_box_each_top_face_inside_the_photo() -> None:
    who = replace(stranger(3), tilt=0.0, touching=0.0, glare=0.0)
    camera = StrangerCamera(who, seed=4)
    image, labels = camera.photo(faces=[(0, 0), (0, 1), (0, 2), (0, 3)])
    assert image.shape == (who.height, who.width, 3)
    assert len(labels) == 4
    assert sorted(name for name, _ in labels) == sorted(who.names[:4])
    for _, (x, y, w, h) in labels:
        assert min(x, y) >= 0 and x + w <= who.width and y + h <= who.height
        assert 0.6 * who.die_px < max(w, h) < 2.0 * who.die_px


def test_an_oblique_camera_foreshortens_the_dice() -> None:
    def squash(tilt: float) -> float:
        who = replace(stranger(8), tilt=tilt, focal=4000.0)  # a long lens: little perspective
        _, labels = StrangerCamera(who, seed=1).photo(6)
        # a die turned about the vertical is as wide as it is deep from above; seen obliquely,
        # its depth shrinks: the box of a die of any rotation gets flatter
        return float(np.median([h / w for _, (_, _, w, h) in labels]))

    assert squash(0.0) == pytest.approx(1.0, abs=0.08)
    assert squash(40.0) < 0.9


def test_face_textures() -> None:
    plain = DiceSet(MarkKind.PIPS, body=(230, 230, 230), marks=(20, 20, 20))
    faces = [face_texture(plain, f, 48) for f in range(6)]
    assert all(t.shape == (48, 48, 4) for t in faces)
    dark = [int((t[..., :3].mean(2) < 100).sum()) for t in faces]
    assert dark == sorted(dark)  # more pips, more ink
    see_through = replace(plain, opacity=0.6)
    t = face_texture(see_through, 0, 48)
    assert t[24, 24, 3] == 255 and 140 < t[24, 10, 3] < 170  # the pip opaque, the body not
    marbled = replace(plain, body2=(40, 90, 200))
    assert not np.array_equal(face_texture(marbled, 2, 48, 1), face_texture(marbled, 2, 48, 2))
    symbols = DiceSet(MarkKind.SYMBOLS, (200, 200, 200), (0, 0, 0), symbols=SYMBOLS[:6])
    assert symbols.names == SYMBOLS[:6]
    with pytest.raises(ValueError, match="no symbol 'moon'"):
        face_texture(replace(symbols, symbols=("moon",) * 6), 0, 32)


@pytest.mark.parametrize("kind", list(TableKind))
def test_tables(kind: TableKind) -> None:
    image, floor = table_texture(kind, 160, 120, np.random.default_rng(1))
    assert image.shape == (120, 160, 3) and floor.shape == (120, 160)
    assert image.std() > 1.0  # a texture, not a flat colour
    assert (floor == 0).any() == (kind is TableKind.FELT)  # only a tray has a rim


def test_write_stranger_shows_every_face(tmp_path: Path) -> None:
    who = stranger(2, tiny=True)
    root = write_stranger(tmp_path / "s", who, 4, seed=1, every_face=True)
    dataset = load_dataset(root)
    assert dataset.names == who.names and len(dataset.items) == 4
    shown = {d.cls for item in dataset.items for d in item.dice}
    assert shown == set(range(6))
    assert all(item.image.suffix == ".jpg" for item in dataset.items)
