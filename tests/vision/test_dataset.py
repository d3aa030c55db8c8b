"""Reading and checking YOLO-layout datasets; bad input names file and line."""

from __future__ import annotations

import math
import struct
import zlib
from pathlib import Path

import numpy as np
import pytest

from controller.core.errors import DataError
from vision.errors import ImageReadError
from vision.images import read_image
from vision.learning.dataset import load_dataset
from vision.synth.scenes import write_dataset


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 2-image synthetic dataset, copied fresh per test by ``broken``."""
    return write_dataset(tmp_path_factory.mktemp("ds") / "tiny", 2, seed=3, hard=False)


@pytest.fixture
def broken(tiny: Path, tmp_path: Path) -> Path:
    import shutil

    dst = tmp_path / "tiny"
    shutil.copytree(tiny, dst)
    return dst


def test_loads_names_and_boxes(tiny: Path) -> None:
    ds = load_dataset(tiny)
    assert ds.names == ("kick", "punch", "sphere", "strength", "star", "teleport")
    assert len(ds.items) == 2
    assert ds.dice_count == 12
    die = ds.items[0].dice[0]
    x, y, w, h = die.box_px(1280, 960)
    assert 0 < x < 1280 and 0 < y < 960 and 100 < w < 260 and 100 < h < 260


def test_label_line_with_four_numbers_names_file_and_line(broken: Path) -> None:
    label = broken / "labels" / "synth_0001.txt"
    lines = label.read_text().splitlines()
    lines[1] = " ".join(lines[1].split()[:4])
    label.write_text("\n".join(lines) + "\n")
    with pytest.raises(DataError) as err:
        load_dataset(broken)
    assert str(err.value) == (
        "labels/synth_0001.txt: line 2: expected 5 numbers (class cx cy w h) or a class and "
        "3 or more points (class x1 y1 x2 y2 x3 y3 ...), got 4"
    )


def test_all_problems_reported_at_once(broken: Path) -> None:
    # class 6 of names 0..5: one past the last (review tests2 v05: it passed, then failed)
    (broken / "labels" / "synth_0000.txt").write_text("6 0.5 0.5 0.1 0.1\n0 0.5 0.5 1.5 0.1\n")
    (broken / "labels" / "synth_0001.txt").unlink()
    with pytest.raises(DataError) as err:
        load_dataset(broken)
    text = str(err.value)
    assert "3 problems" in text
    assert "labels/synth_0000.txt: line 1: field 'class': 6 is outside names (0..5)" in text
    assert "labels/synth_0000.txt: line 2: field 'box'" in text
    assert "images/synth_0001.png: no label file labels/synth_0001.txt" in text


def test_empty_dataset_and_missing_yaml(tmp_path: Path) -> None:
    (tmp_path / "images").mkdir()
    (tmp_path / "labels").mkdir()
    with pytest.raises(DataError) as err:
        load_dataset(tmp_path)
    assert "data.yaml: missing" in str(err.value)
    assert "no images" in str(err.value)
    with pytest.raises(DataError, match="no such dataset folder"):
        load_dataset(tmp_path / "nowhere")


def test_names_mapping_with_gap_is_refused(broken: Path) -> None:
    (broken / "data.yaml").write_text("names:\n  0: a\n  2: b\n")
    with pytest.raises(DataError, match=r"class ids must be 0\.\.n-1"):
        load_dataset(broken)


@pytest.mark.parametrize(
    "names",
    [
        "{0: a, 1.5: b}",  # int(1.5) is 1: it was taken for class 1, then not found (KeyError)
        "{0: a, true: b}",
        "{0: a, '0': b}",
    ],
)
def test_names_mapping_with_ids_that_are_not_whole_numbers_is_refused(
    broken: Path, names: str
) -> None:
    (broken / "data.yaml").write_text(f"names: {names}\n")
    with pytest.raises(DataError, match=r"class ids must be 0\.\.n-1"):
        load_dataset(broken)


def test_names_mapping_with_ids_as_digits_reads(broken: Path) -> None:
    (broken / "data.yaml").write_text(
        "names: {'1': punch, 0: kick, 2: sphere, '3': strength, 4: star, 5: teleport}\n"
    )
    assert load_dataset(broken).names == (
        "kick", "punch", "sphere", "strength", "star", "teleport"
    )  # fmt: skip


def test_a_class_name_with_a_nul_character_is_refused(broken: Path) -> None:
    (broken / "data.yaml").write_text('names: ["1\\0", "2"]\n')
    with pytest.raises(DataError) as err:
        load_dataset(broken)
    assert "field 'names[0]': expected a name without a NUL character" in str(err.value)
    assert "\x00" not in str(err.value)


def test_a_date_past_the_calendar_in_the_yaml_is_named(broken: Path) -> None:
    # PyYAML builds a timestamp with datetime, whose ValueError is no YAMLError
    (broken / "data.yaml").write_text("taken: 2001-13-45\nnames: [a, b]\n")
    with pytest.raises(DataError) as err:
        load_dataset(broken)
    assert "data.yaml" in str(err.value) and "not valid YAML: month must be in 1..12" in str(
        err.value
    )


def test_unreadable_image_names_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jpg"
    bad.write_bytes(b"not a jpeg at all")
    with pytest.raises(ImageReadError, match=r"bad\.jpg: not a readable image"):
        read_image(bad)
    with pytest.raises(ImageReadError, match="no such image file"):
        read_image(tmp_path / "missing.png")
    assert isinstance(ImageReadError("x"), OSError)


def test_a_truncated_photo_is_said_once(broken: Path, capfd: pytest.CaptureFixture[str]) -> None:
    """A photo cut short is named by the error alone: OpenCV's own warning ("PNG input
    buffer is incomplete") is kept off stderr, where it came before the error's one line."""
    photo = broken / "images" / "synth_0000.png"
    photo.write_bytes(photo.read_bytes()[:5000])
    capfd.readouterr()
    with pytest.raises(ImageReadError, match=r"synth_0000\.png: not a readable image"):
        read_image(photo)
    assert capfd.readouterr().err == ""


def test_real_dataset_reads(shared_dir: Path) -> None:
    ds = load_dataset(shared_dir / "datasets" / "pi-tray")
    assert ds.names == ("1", "2", "3", "4", "5", "6")
    assert len(ds.items) == 20 and ds.dice_count == 120
    assert read_image(ds.items[0].image).shape == (2464, 3280, 3)
    assert np.all([0 <= d.cls < 6 for it in ds.items for d in it.dice])


def test_a_label_file_without_its_image_is_reported(broken: Path) -> None:
    (broken / "images" / "synth_0001.png").rename(broken / "synth_0001.png")
    with pytest.raises(DataError) as err:
        load_dataset(broken)
    assert str(err.value) == (
        "labels/synth_0001.txt: no image images/synth_0001.* "
        "(.jpg, .jpeg, .png, .bmp, .webp, .tif, .tiff): its dice would be skipped"
    )


@pytest.mark.parametrize("suffix", [".webp", ".tif", ".TIFF", ".JPG"])
def test_photos_of_every_format_labelling_tools_export_are_read(broken: Path, suffix: str) -> None:
    import cv2

    png = broken / "images" / "synth_0001.png"
    original, labelled = read_image(png), load_dataset(broken).items[1].dice
    params = [cv2.IMWRITE_WEBP_QUALITY, 101] if suffix == ".webp" else []  # 101: lossless
    ok, data = cv2.imencode(".jpg" if suffix == ".JPG" else suffix.lower(), original, params)
    assert ok
    png.unlink()
    photo = png.with_suffix(suffix)
    photo.write_bytes(data.tobytes())
    ds = load_dataset(broken)
    assert [item.image.name for item in ds.items] == ["synth_0000.png", photo.name]
    assert ds.items[1].dice == labelled
    decoded = read_image(photo)
    assert decoded.shape == original.shape
    if suffix != ".JPG":  # the lossless formats decode to the very pixels
        assert np.array_equal(decoded, original)


@pytest.mark.parametrize(("suffix", "kind"), [(".heic", "HEIC"), (".DNG", "raw DNG")])
def test_a_photo_of_a_format_not_read_is_named(broken: Path, suffix: str, kind: str) -> None:
    png = broken / "images" / "synth_0001.png"
    png.rename(png.with_suffix(suffix))
    with pytest.raises(DataError) as err:
        load_dataset(broken)
    assert str(err.value) == (
        f"labels/synth_0001.txt: no image images/synth_0001.* (synth_0001{suffix} is a {kind} "
        "photo, which is not read (save it as JPEG)): its dice would be skipped"
    )


@pytest.mark.parametrize(("width", "height"), [(10_000, 8_000), (20_000, 20_000)])
def test_an_image_too_large_is_refused_from_its_header(
    tmp_path: Path, width: int, height: int
) -> None:
    # A PNG whose header claims the size and holds no pixel: decoding it would fail
    # differently, so the message proves the size was refused before any decoding.
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    huge = tmp_path / "huge.png"
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    huge.write_bytes(
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b""))
        + chunk(b"IEND", b"")
    )  # fmt: skip
    with pytest.raises(ImageReadError, match=r"megapixels; at most 64 are read") as refused:
        read_image(huge)
    assert str(refused.value).startswith(f"{huge}: ")
    if width * height < 2 * 89_478_485:
        assert f"{width}x{height} is {width * height / 1e6:.0f} megapixels" in str(refused.value)


@pytest.mark.parametrize(("width", "height"), [(1, 1), (1280, 39)])
def test_a_photo_too_small_to_hold_a_die_is_refused_naming_it(
    broken: Path, width: int, height: int
) -> None:
    import cv2

    photo = broken / "images" / "synth_0001.png"
    cv2.imwrite(str(photo), np.full((height, width, 3), 200, np.uint8))  # its label kept
    with pytest.raises(DataError) as err:
        load_dataset(broken)
    assert str(err.value) == (
        f"images/synth_0001.png: a {width}x{height} photo is too small to hold a die: its "
        "sides must be at least 40 px, the side a die's face is read at (a camera's photo is "
        "about 1280x960 or larger)"
    )
    cv2.imwrite(str(photo), np.full((40, 40, 3), 200, np.uint8))  # small, yet one die fits
    assert len(load_dataset(broken).items) == 2


@pytest.mark.parametrize("cls", ["0.5", "inf", "nan", "1e400", "-0.5"])
def test_a_class_that_is_not_a_whole_number_names_the_line(broken: Path, cls: str) -> None:
    label = broken / "labels" / "synth_0001.txt"
    label.write_text(label.read_text() + f"{cls} 0.5 0.5 0.1 0.1\n")
    with pytest.raises(DataError) as err:
        load_dataset(broken)
    assert str(err.value) == (
        f"labels/synth_0001.txt: line 7: field 'class': {cls} is not a whole number of names (0..5)"
    )


@pytest.mark.parametrize(
    ("box", "how"),
    [
        ("0.5 0.5 0.001 0.001", "times smaller than the median die"),  # a pip, or a slip
        ("0.5 0.5 0.9 0.9", "times the median die"),  # the tray
        ("0.5 0.5 1 1", "over the largest die the reader takes (0.5)"),  # the whole photo
    ],
)
def test_a_box_no_die_fills_names_its_line(broken: Path, box: str, how: str) -> None:
    label = broken / "labels" / "synth_0000.txt"
    label.write_text(label.read_text() + f"0 {box}\n")
    with pytest.raises(DataError) as err:
        load_dataset(broken)
    (problem,) = err.value.problems
    assert (problem.file, problem.entry, problem.field) == (
        "labels/synth_0000.txt",
        "line 7",
        "box",
    )
    assert how in problem.message and "a box holds one die" in problem.message


def test_a_die_cut_by_the_photo_s_corner_is_no_odd_box(broken: Path) -> None:
    label = broken / "labels" / "synth_0000.txt"
    label.write_text(label.read_text() + "0 0.004 0.004 0.008 0.008\n")  # a corner's sliver
    assert load_dataset(broken).dice_count == 13


def test_blank_lines_in_a_label_file_are_no_dice(broken: Path) -> None:
    # Ultralytics' verify_image_label keeps only the lines with text (``if len(x)``)
    label = broken / "labels" / "synth_0000.txt"
    lines = label.read_text().splitlines()
    label.write_text("\n".join([lines[0], "", *lines[1:]]) + "\n\n")
    assert load_dataset(broken).dice_count == 12


@pytest.mark.parametrize(
    ("line", "what"),
    [("0 0.5 0.5 1.5 0.1", "cx cy w h"), ("0 0.1 0.2 0.3 0.2 0.2 1.5", "the points")],
)
def test_a_box_or_outline_past_the_photo_says_which(broken: Path, line: str, what: str) -> None:
    label = broken / "labels" / "synth_0000.txt"
    label.write_text(label.read_text() + line + "\n")
    with pytest.raises(DataError) as err:
        load_dataset(broken)
    assert str(err.value) == (
        f"labels/synth_0000.txt: line 7: field 'box': {what} must be normalised to 0..1"
    )


def test_an_empty_names_list_is_refused(broken: Path) -> None:
    (broken / "data.yaml").write_text("names: []\n")
    with pytest.raises(DataError, match=r"field 'names': expected a non-empty list"):
        load_dataset(broken)


def _median_side(root: Path) -> float:
    sides = sorted(math.sqrt(d.w * d.h) for item in load_dataset(root).items for d in item.dice)
    return sides[len(sides) // 2]


def test_a_box_eight_times_smaller_than_the_median_die_is_named(broken: Path) -> None:
    """ODD_SIZE is 8: a die five times smaller than the others (far off, or another set)
    stays; one ten times smaller is no die."""
    label = broken / "labels" / "synth_0000.txt"
    text, side = label.read_text(), _median_side(broken)
    label.write_text(text + f"0 0.5 0.5 {side / 5:.6f} {side / 5:.6f}\n")
    assert load_dataset(broken).dice_count == 13
    label.write_text(text + f"0 0.5 0.5 {side / 10:.6f} {side / 10:.6f}\n")
    with pytest.raises(DataError, match=r"line 7: field 'box': .* times smaller than the median"):
        load_dataset(broken)


def test_a_box_as_long_as_a_die_and_thin_is_no_odd_box(broken: Path) -> None:
    # a box is small by its longer side: a die seen mostly hidden, long as one, is a die
    label = broken / "labels" / "synth_0000.txt"
    side = _median_side(broken)
    label.write_text(label.read_text() + f"0 0.5 0.5 {side:.6f} {side / 10:.6f}\n")
    assert load_dataset(broken).dice_count == 13


def test_dice_all_larger_than_the_reader_takes_are_left_to_calibration(broken: Path) -> None:
    # a close-up set: every box past DIE_FRAC; calibration names the set, not each box
    for label in (broken / "labels").glob("*.txt"):
        label.write_text("0 0.5 0.5 0.6 0.6\n1 0.45 0.5 0.6 0.7\n")
    assert load_dataset(broken).dice_count == 4
