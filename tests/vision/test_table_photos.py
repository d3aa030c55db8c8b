"""Throws played at the table as labelled photos: the boxes kept beside a frame, the photos
written from them, and a set joined to the owner's by face name."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from controller.core.errors import DataError
from vision.errors import DatasetWriteError
from vision.learning.dataset import Dataset, LabeledDie, LabeledImage, load_dataset
from vision.learning.table_photos import PlayedThrow, joined, write_table_photos
from vision.reading.evidence import ThrowBoxes, boxes_path, read_boxes, write_boxes

NAMES = ("kick", "punch", "sphere", "strength", "star", "teleport")
SIZE = (320, 240)


def _frame(folder: Path, name: str, boxes: list[tuple[float, float, float, float]]) -> Path:
    """A kept frame (a grey JPEG) with ``boxes`` beside it, as the reader keeps them."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.jpg"
    cv2.imwrite(str(path), np.full((SIZE[1], SIZE[0], 3), 128, np.uint8))
    write_boxes(path, ThrowBoxes(SIZE, tuple(boxes), tuple("kick" for _ in boxes)))
    return path


def test_boxes_kept_beside_a_frame_read_back(tmp_path: Path) -> None:
    frame = tmp_path / "throw_00001.jpg"
    throw = ThrowBoxes((640, 480), ((10.0, 20.0, 30.5, 31.25), (100, 90, 28, 29)), ("kick", None))
    written = write_boxes(frame, throw)
    assert written == tmp_path / "throw_00001.boxes.json" == boxes_path(frame)
    assert read_boxes(frame) == throw


@pytest.mark.parametrize(
    ("text", "field", "expected"),
    [
        ("{not json", "", "not valid JSON"),
        ("[" * 100_000, "", "not valid JSON: nested too deeply"),  # was a RecursionError
        (
            '{"format": 1, "format": 1, "size": [640, 480], "boxes": [], "read": []}',
            "format",
            "named twice in one object",
        ),
        ("[1, 2]", "", "expected a JSON object"),
        ('{"format": 2}', "format", "expected 1, got 2"),
        ('{"format": 1, "size": [0, 480], "boxes": [], "read": []}', "size", "[width, height]"),
        ('{"format": 1, "size": [640], "boxes": [], "read": []}', "size", "[width, height]"),
        ('{"format": 1, "size": [640, 480], "boxes": {}, "read": []}', "boxes", "a list"),
        (
            '{"format": 1, "size": [640, 480], "boxes": [[1, 2, 0, 4]], "read": ["kick"]}',
            "boxes[0]",
            "w, h > 0",
        ),
        (
            '{"format": 1, "size": [640, 480], "boxes": [[1, 2, "3", 4]], "read": ["kick"]}',
            "boxes[0]",
            "[x, y, w, h]",
        ),
        (
            '{"format": 1, "size": [640, 480], "boxes": [[1, 2, 3, 4]], "read": []}',
            "read",
            "for each of the 1 boxes",
        ),
        (
            '{"format": 1, "size": [320, 240], "boxes": [[400, 2, 30, 40]], "read": ["kick"]}',
            "boxes[0]",
            "lies outside the 320x240 frame",
        ),
        (  # starts inside, ends far past the right edge (review tests3 v11)
            '{"format": 1, "size": [320, 240], "boxes": [[300, 2, 90, 40]], "read": ["kick"]}',
            "boxes[0]",
            "lies outside the 320x240 frame",
        ),
        (
            '{"format": 1, "size": [640, 480], "boxes": [[1, 2, 3, 4]], "read": [7]}',
            "read",
            "face names or null",
        ),
        (  # a number past a float's range: a traceback before (review fuzz f02)
            '{"format": 1, "size": [640, 480], "boxes": [[1, 2, 3, 1' + "0" * 400 + "]], "
            '"read": ["kick"]}',
            "boxes[0]",
            "[x, y, w, h]",
        ),
    ],
)
def test_malformed_boxes_are_named(tmp_path: Path, text: str, field: str, expected: str) -> None:
    frame = tmp_path / "throw_00003.jpg"
    boxes_path(frame).write_text(text, encoding="utf-8")
    with pytest.raises(DataError) as caught:
        read_boxes(frame)
    message = str(caught.value)
    assert message.startswith(str(boxes_path(frame)))
    assert (f"field '{field}'" in message) == bool(field)
    assert expected in message and "\n" not in message


def test_boxes_saved_with_a_byte_order_mark_are_named(tmp_path: Path) -> None:
    frame = tmp_path / "throw_00004.jpg"
    text = '{"format": 1, "size": [640, 480], "boxes": [], "read": []}'
    boxes_path(frame).write_text("\ufeff" + text, encoding="utf-8")
    with pytest.raises(DataError, match="byte-order mark"):
        read_boxes(frame)


def test_no_boxes_beside_a_frame_is_not_a_damaged_file(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        read_boxes(tmp_path / "throw_00005.jpg")


def test_played_throws_become_labelled_photos(tmp_path: Path) -> None:
    frames = tmp_path / "journal.frames" / "game1"
    first = _frame(frames, "throw_00001", [(10, 20, 40, 40), (200, 100, 40, 44)])
    second = _frame(frames, "throw_00002", [(50, 50, 30, 30)])
    out = tmp_path / "table"
    throws = [
        PlayedThrow(first, ("star", "punch"), "game1"),
        PlayedThrow(second, ("teleport",), "game1"),
    ]
    report = write_table_photos(throws, NAMES, out)
    assert (report.photos, report.dice, report.left_out) == (2, 3, [])
    data = load_dataset(out)
    assert data.names == NAMES
    by_stem = {item.image.stem: item for item in data.items}
    assert set(by_stem) == {"game1_throw_00001", "game1_throw_00002"}
    dice = by_stem["game1_throw_00001"].dice
    assert [NAMES[d.cls] for d in dice] == ["star", "punch"]
    assert dice[1].box_px(*SIZE) == pytest.approx((200, 100, 40, 44), abs=0.01)
    # the photo is the kept frame itself (a hard link: no second copy on the card)
    assert (out / "images" / "game1_throw_00001.jpg").stat().st_ino == first.stat().st_ino
    # written again (the same journal twice): the same photos, none twice
    assert write_table_photos(throws, NAMES, out).photos == 2
    assert len(list((out / "images").iterdir())) == 2


def test_throws_whose_dice_cannot_be_told_apart_are_left_out_with_why(tmp_path: Path) -> None:
    frames = tmp_path / "frames"
    two = _frame(frames, "throw_00001", [(10, 20, 40, 40), (200, 100, 40, 44)])
    bare = frames / "throw_00002.jpg"
    cv2.imwrite(str(bare), np.zeros((SIZE[1], SIZE[0], 3), np.uint8))  # kept before boxes were
    broken = _frame(frames, "throw_00003", [(10, 20, 40, 40)])
    boxes_path(broken).write_text("{", encoding="utf-8")
    odd = _frame(frames, "throw_00004", [(10, 20, 40, 40)])
    leaning = _frame(frames, "throw_00005", [(10, 20, 40, 40), (100, 20, 40, 40)])
    write_boxes(leaning, ThrowBoxes(SIZE, read_boxes(leaning).boxes, ("kick", None)))
    other_size = _frame(frames, "throw_00006", [(10, 20, 40, 40)])
    write_boxes(other_size, ThrowBoxes((640, 480), ((10, 20, 40, 40),), ("kick",)))
    report = write_table_photos(
        [
            PlayedThrow(two, ("kick", "kick", "star")),  # a third die the reader missed
            PlayedThrow(bare, ("kick",)),
            PlayedThrow(frames / "gone.jpg", ("kick",)),
            PlayedThrow(frames / ("x" * 5000 + ".jpg"), ("kick",)),  # no file can be named so
            PlayedThrow(broken, ("kick",)),
            PlayedThrow(odd, ("blank",)),
            PlayedThrow(leaning, ("kick", "star")),  # the leaning die's face, chosen by hand
            PlayedThrow(other_size, ("kick",)),
        ],
        NAMES,
        tmp_path / "out",
    )
    assert report.photos == 0
    why = dict(report.left_out)
    assert "3 dice settled on but 2 found in the frame" in why[two]
    assert "no dice boxes beside it" in why[bare]
    assert why[frames / "gone.jpg"] == "the frame is gone"
    assert why[frames / ("x" * 5000 + ".jpg")] == "the frame is gone"  # review fuzz f05
    assert all(len(line) < 1000 for line in report.lines())
    assert str(boxes_path(broken)) in why[broken] and "JSON" in why[broken]
    assert "faces blank are not of this face set" in why[odd]
    assert why[leaning] == "die 2 leaned (cocked): no flat face to learn"
    assert why[other_size] == "the frame is 320x240, but its boxes are of a 640x480 frame"
    assert "left out 8 throws:" in report.lines()


def test_a_folder_of_other_faces_is_refused(tmp_path: Path) -> None:
    frame = _frame(tmp_path / "frames", "throw_00001", [(10, 20, 40, 40)])
    out = tmp_path / "table"
    write_table_photos([PlayedThrow(frame, ("1",))], ("1", "2", "3", "4", "5", "6"), out)
    with pytest.raises(DataError, match=r"data.yaml: field 'names': holds photos of the faces 1,"):
        write_table_photos([PlayedThrow(frame, ("kick",))], NAMES, out)


@pytest.mark.parametrize("layout", ["own", "roboflow", "label-studio", "photos-only"])
def test_a_folder_this_command_did_not_write_is_never_written_over(
    tmp_path: Path, layout: str
) -> None:
    frame = _frame(tmp_path / "frames", "throw_00001", [(10, 20, 40, 40)])
    mine = tmp_path / "mydice"
    files = {
        "own": {"data.yaml": "names: [kick, punch]\n", "images/a.jpg": "x", "labels/a.txt": ""},
        "roboflow": {
            "data.yaml": "train: train/images\nnames: [kick]\n",
            "train/images/a.jpg": "x",
        },
        "label-studio": {"classes.txt": "kick\n", "images/a.jpg": "x", "labels/a.txt": ""},
        "photos-only": {"a.jpg": "x"},
    }[layout]
    for name, text in files.items():
        (mine / name).parent.mkdir(parents=True, exist_ok=True)
        (mine / name).write_text(text, encoding="utf-8")
    with pytest.raises(
        DataError, match=r"did not write \(your own photos are never written over\)"
    ):
        write_table_photos([PlayedThrow(frame, ("kick",))], NAMES, mine)
    for name, text in files.items():
        assert (mine / name).read_text(encoding="utf-8") == text
    assert sorted(p.relative_to(mine).as_posix() for p in mine.rglob("*") if p.is_file()) == sorted(
        files
    )


def test_a_photo_that_cannot_be_written_is_named(tmp_path: Path) -> None:
    frame = _frame(tmp_path / "frames", "throw_00002", [(10, 20, 40, 40)])
    first = _frame(tmp_path / "frames", "throw_00001", [(10, 20, 40, 40)])
    out = tmp_path / "table"
    write_table_photos([PlayedThrow(first, ("kick",))], NAMES, out)
    (out / "images" / "throw_00002.jpg").mkdir()  # in the way, as a full card would be
    with pytest.raises(DatasetWriteError) as caught:
        write_table_photos(
            [PlayedThrow(first, ("kick",)), PlayedThrow(frame, ("star",))], NAMES, out
        )
    assert str(caught.value).startswith(f"{out / 'images' / 'throw_00002.jpg'}: cannot be written")
    assert str(caught.value).endswith("; 1 photos were written before it")


def _set(root: str, names: tuple[str, ...], classes: list[int]) -> Dataset:
    items = tuple(
        LabeledImage(
            Path(f"{root}/{i}.jpg"), Path(f"{root}/{i}.txt"), (LabeledDie(c, 0.5, 0.5, 0.1, 0.1),)
        )
        for i, c in enumerate(classes)
    )
    return Dataset(Path(root), names, items)


def test_sets_are_joined_by_face_name() -> None:
    owner = _set("owner", ("Punch", "kick", "STAR"), [0, 1])  # the owner's own spelling
    table = _set("table", NAMES, [0, 4, 1])  # kick, star, punch in the table's order
    both = joined(owner, table)
    assert both.root == Path("owner") and both.names == owner.names
    assert both.first == 2  # the owner's photos, learned first where the budget is short
    assert [both.names[item.dice[0].cls] for item in both.items] == [
        "Punch", "kick", "kick", "STAR", "Punch"]  # fmt: skip


def test_a_set_showing_a_face_the_first_does_not_name_is_refused() -> None:
    owner = _set("owner", ("punch", "kick"), [0])
    table = _set("table", NAMES, [5])  # teleport
    with pytest.raises(DataError, match=r"^table: field 'names': faces teleport are not among"):
        joined(owner, table)


def test_boxes_json_is_one_line_of_plain_numbers(tmp_path: Path) -> None:
    frame = tmp_path / "throw_00001.jpg"
    write_boxes(frame, ThrowBoxes((640, 480), ((1.23456, 2, 3, 4),), ("kick",)))
    doc = json.loads(boxes_path(frame).read_text(encoding="utf-8"))
    assert doc == {"format": 1, "size": [640, 480], "boxes": [[1.23, 2, 3, 4]], "read": ["kick"]}
