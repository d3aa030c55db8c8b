"""``toptable dice ...`` end to end, and ``toptable bench dice --quick`` pieces."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from controller.cli.main import main
from controller.core.symbols import Symbol
from vision.errors import ImageReadError
from vision.images import write_image
from vision.learning.dataset import load_dataset
from vision.reading.model import load_model
from vision.synth.scenes import Renderer, write_dataset

# A hang guard, not a speed limit: a calibration is a CPU-minute, and make test runs
# four workers on two cores.
pytestmark = pytest.mark.timeout(600)


@pytest.fixture(scope="module")
def synth_ds(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Six photos of four dice: enough for the leave-photos-out check, as few dice as that allows
    (a calibration's time grows with the dice)."""
    return write_dataset(
        tmp_path_factory.mktemp("cli") / "synth", 6, seed=12, hard=True, per_image=4
    )


def test_read_json_and_annotate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    scene = Renderer(seed=31).scene(count=5)
    image = tmp_path / "throw.png"
    cv2.imwrite(str(image), scene.image)
    out = tmp_path / "annotated.png"
    code = main(["dice", "read", str(image), "--expect", "6", "--json", "--annotate", str(out)])
    assert code == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["dice"] == 5 and doc["expected"] == 6
    assert doc["flags"] == ["count_mismatch"]
    assert sorted(doc["faces"]) == sorted(d.symbol.value for d in scene.dice)
    assert len(doc["boxes"]) == 5 and len(doc["confidences"]) == 5
    assert cv2.imread(str(out)).shape == scene.image.shape


@pytest.mark.slow  # calibrations (and the leave-photos-out folds): CPU-minutes on two cores
def test_calibrate_then_eval_json(
    synth_ds: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = tmp_path / "mine.npz"
    assert main(["dice", "calibrate", str(synth_ds), "--out", str(model), "--jobs", "1"]) == 0
    captured = capsys.readouterr()
    # progress: calibrating on 6 photos (2 * 6 + 7 steps), then three folds of 4 photos
    # (2 * 4 + 7 each), one after another: the last step the last fold's last
    assert "64/64 checking: leaving photos out (3/3): done" in captured.err
    assert "64/64 checking: leaving photos out (3/3): training" not in captured.err
    assert model.is_file() and "face set 'synth'" in captured.out
    assert "of sqrt(width x height)" in captured.out
    lines = captured.out.splitlines()
    assert lines[1].startswith("calibrated on 6 photos (24 dice) in ")
    assert lines[2].startswith(
        "leave-photos-out (3 folds, each photo read by a model that never saw it): "
        "detection F1 1.0000"
    )
    assert any(line.startswith("warning: only 6 photos") for line in lines)
    assert main(["dice", "eval", str(synth_ds), "--model", str(model), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    for key in ("images", "dice", "detected", "precision", "recall", "accuracy", "f1",
                "ms_per_image", "confusion"):  # fmt: skip
        assert key in doc
    assert doc["images"] == 6 and doc["dice"] == 24
    assert doc["f1"] == 1.0 and doc["accuracy"] == 1.0
    assert doc["warned_images"] == 0  # the calibration photos themselves
    assert len(doc["confusion"]["rows_true_cols_read"]) == 6
    # the model and its three folds at once, each in a process of its own: the same model
    # and figures
    at_once = tmp_path / "at_once.npz"
    args = ["dice", "calibrate", str(synth_ds), "--out", str(at_once), "--jobs", "4", "--json"]
    assert main(args) == 0
    captured = capsys.readouterr()
    doc = json.loads(captured.out)
    assert doc["folds"] == 3 and "leaving photos out (3/3)" in captured.err
    assert doc["leave_photos_out"]["f1"] == 1.0 and doc["leave_photos_out"]["images"] == 6
    assert doc["leave_photos_out"]["accuracy"] == 1.0
    one, four = load_model(model), load_model(at_once)
    assert one.labels.tolist() == four.labels.tolist()
    assert np.allclose(one.samples, four.samples, atol=1e-4)


def test_eval_errors_writes_crops_and_reasons(
    synth_ds: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    wrong = tmp_path / "mislabeled"
    shutil.copytree(synth_ds, wrong)
    # every die of the first photo labeled as the next face: the shipped model reads them right
    label = sorted((wrong / "labels").glob("*.txt"))[0]
    lines = [line.split(" ", 1) for line in label.read_text().splitlines()]
    label.write_text("".join(f"{(int(c) + 1) % 6} {rest}\n" for c, rest in lines))
    folder = tmp_path / "errors"
    assert main(["dice", "eval", str(wrong), "--errors", str(folder)]) == 0
    out = capsys.readouterr().out
    listed = json.loads((folder / "errors.json").read_text())
    assert len(listed) >= 4
    assert f"{len(listed)} mistake(s) written to {folder}: a crop of each" in out
    first = [e for e in listed if Path(e["image"]).stem == label.stem]
    assert len(first) == 4
    for err in first:
        assert err["kind"] in ("misread", "unsure") and err["truth"] != err["read"]
        assert err["reason"].startswith(f"read {err['read']!r}")
        assert cv2.imread(str(folder / err["file"])) is not None  # the crop
    # one model's mistakes: not with --cv
    assert main(["dice", "eval", str(wrong), "--cv", "2", "--errors", str(folder)]) == 2
    assert "argument --errors: not allowed with argument --cv" in capsys.readouterr().err


@pytest.mark.slow  # calibrations (and the leave-photos-out folds): CPU-minutes on two cores
def test_calibrate_json_and_one_photo(
    synth_ds: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    four = tmp_path / "four"
    shutil.copytree(synth_ds, four)
    for stem in ("synth_0004", "synth_0005"):
        (four / "images" / f"{stem}.png").unlink()
        (four / "labels" / f"{stem}.txt").unlink()
    model = tmp_path / "four.npz"
    assert main(["dice", "calibrate", str(four), "--out", str(model), "--json"]) == 0
    captured = capsys.readouterr()
    assert "checking it" not in captured.err  # (no check to come: the model is all)
    doc = json.loads(captured.out)
    assert doc["model"] == str(model) and doc["face_set"] == "four"
    assert doc["photos"] == 4 and doc["dice"] == 16 and doc["leave_photos_out"] is None
    assert any(w.startswith("too few photos (4)") for w in doc["warnings"])
    for stem in ("synth_0001", "synth_0002", "synth_0003"):
        (four / "images" / f"{stem}.png").unlink()
        (four / "labels" / f"{stem}.txt").unlink()
    assert main(["dice", "calibrate", str(four), "--out", str(model)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    err = captured.err.strip()
    assert "\n" not in err
    assert err.startswith(f"toptable: error: {four}: 1 photo(s); calibration needs at least 2")


@pytest.mark.slow  # calibrations (and the leave-photos-out folds): CPU-minutes on two cores
def test_eval_cross_validation_text(synth_ds: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dice", "eval", str(synth_ds), "--cv", "2"]) == 0  # a calibration per fold
    out = capsys.readouterr().out
    assert "6 images, 24 dice labeled" in out and "folds: 2" in out


def test_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.jpg"
    bad.write_bytes(b"garbage")
    assert main(["dice", "read", str(bad)]) == 2
    assert (
        capsys.readouterr().err.strip()
        == f"toptable dice read: error: argument image: {bad}: not an image (JPEG, PNG, BMP...)"
    )
    assert main(["dice", "calibrate", str(tmp_path), "--out", str(tmp_path / "m.onnx")]) == 2
    assert "written as .npz" in capsys.readouterr().err
    assert main(["dice", "eval", str(tmp_path / "none")]) == 2
    assert f"argument dataset: {tmp_path / 'none'}: no such folder" in capsys.readouterr().err


def test_eval_reads_a_roboflow_exports_val_split(
    synth_ds: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    export = tmp_path / "export"
    photos = sorted((synth_ds / "images").iterdir())
    for split, chosen in (("train", photos[:4]), ("valid", photos[4:])):
        for sub in ("images", "labels"):
            (export / split / sub).mkdir(parents=True)
        for photo in chosen:
            shutil.copy(photo, export / split / "images")
            shutil.copy(synth_ds / "labels" / f"{photo.stem}.txt", export / split / "labels")
    names = load_dataset(synth_ds).names
    (export / "data.yaml").write_text(
        f"train: ../train/images\nval: ../valid/images\nnames: {list(names)}\n", encoding="utf-8"
    )
    assert main(["dice", "eval", str(export / "data.yaml"), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["images"] == 2 and doc["dice"] == 8  # the val split's two photos
    assert main(["dice", "eval", str(export), "--split", "test"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.endswith("data.yaml: field 'test': missing: the split asked for")
    assert len(err.splitlines()) == 1


def test_capture_from_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                             capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    frames = tmp_path / "frames"
    frames.mkdir()
    r = Renderer(seed=40)
    from controller.core.symbols import Symbol

    for n, sym in enumerate([Symbol.KICK, Symbol.PUNCH]):
        cv2.imwrite(str(frames / f"{n}.png"), r.scene([sym, sym, sym]).image)
    answers = iter(["", "y", "", "y"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(answers))
    out = tmp_path / "mine"
    code = main(["dice", "capture", str(out), "--folder", str(frames), "--faces", "kick,punch",
                 "--shots", "1"])  # fmt: skip
    assert code == 0
    assert "saved 2 photos" in capsys.readouterr().out
    labels = sorted((out / "labels").glob("*.txt"))
    assert [len(p.read_text().splitlines()) for p in labels] == [3, 3]
    assert {line.split()[0] for line in labels[1].read_text().splitlines()} == {"1"}
    from vision.learning.dataset import load_dataset

    assert load_dataset(out).names == ("kick", "punch")


def _type_then_end(monkeypatch: pytest.MonkeyPatch, *answers: str) -> None:
    """The person types ``answers`` one prompt each, then ends the input (Ctrl-D)."""
    typed = iter(answers)

    def answer(prompt: str = "") -> str:
        try:
            return next(typed)
        except StopIteration:
            raise EOFError from None

    monkeypatch.setattr("builtins.input", answer)


def test_capture_stops_at_the_end_of_its_input_keeping_what_it_saved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    frames = tmp_path / "frames"
    frames.mkdir()
    cv2.imwrite(str(frames / "0.png"), Renderer(seed=40).scene([Symbol.KICK] * 3).image)
    _type_then_end(monkeypatch, "", "y")  # one photo, then Ctrl-D (a traceback before)
    out = tmp_path / "mine"
    argv = ["dice", "capture", str(out), "--folder", str(frames), "--faces", "kick,punch"]
    assert main([*argv, "--shots", "2"]) == 0
    assert "saved 1 photos" in capsys.readouterr().out
    assert len(list((out / "labels").glob("*.txt"))) == 1


def test_capture_refuses_a_face_named_twice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    frames = tmp_path / "frames"
    frames.mkdir()
    cv2.imwrite(str(frames / "0.png"), Renderer(seed=40).scene([Symbol.KICK] * 3).image)
    out = tmp_path / "mine"
    argv = ["dice", "capture", str(out), "--folder", str(frames), "--faces", "kick,punch,kick"]
    assert main(argv) == 2
    assert capsys.readouterr().err == (
        "toptable: error: argument --faces: 'kick' given twice: each face needs a name of its own\n"
    )
    assert not out.exists()  # a data.yaml that calibration would refuse is never written


def test_a_capture_adds_to_its_own_set_and_never_writes_over_photos(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A second capture into the same folder adds its photos beside the first's; a folder of
    other faces or of the owner's own photos is refused, its files left as they were; a
    face's name with a quote or a backslash is written so that the set reads back."""
    frames = tmp_path / "frames"
    frames.mkdir()
    cv2.imwrite(str(frames / "0.png"), Renderer(seed=40).scene([Symbol.KICK] * 3).image)

    def session(*argv: str) -> int:
        _type_then_end(monkeypatch, "", "y")  # one photo, then the end of the input
        return main(["dice", "capture", *argv, "--folder", str(frames), "--shots", "1"])

    out = tmp_path / "mine"
    faces = 'ki"ck\\x,punch'
    assert session(str(out), "--faces", faces) == 0
    first = (out / "images" / "capture_0_0.png").read_bytes()
    assert session(str(out), "--faces", faces) == 0
    assert sorted(p.name for p in (out / "images").iterdir()) == [
        "capture_0_0.png",
        "capture_0_1.png",
    ]
    assert (out / "images" / "capture_0_0.png").read_bytes() == first
    assert load_dataset(out).names == ('ki"ck\\x', "punch")
    yaml = (out / "data.yaml").read_text(encoding="utf-8")
    capsys.readouterr()
    assert session(str(out), "--faces", "kick,punch") == 2
    assert capsys.readouterr().err == (
        f"toptable: error: {out / 'data.yaml'}: field 'names': holds photos of the faces "
        'ki"ck\\x, punch, not kick, punch: give the same --faces, or another folder\n'
    )
    assert (out / "data.yaml").read_text(encoding="utf-8") == yaml
    owner = tmp_path / "owner"
    owner.mkdir()
    (owner / "data.yaml").write_text("names: [kick, punch]\n", encoding="utf-8")
    assert session(str(owner), "--faces", "kick,punch") == 2
    assert capsys.readouterr().err == (
        f"toptable: error: {owner}: holds files toptable dice capture did not write (your own "
        "photos are never written over): give a new or empty folder\n"
    )
    assert [p.name for p in owner.iterdir()] == ["data.yaml"]


@pytest.mark.slow  # two minutes of CPU: calibrations and thousands of rendered dice
@pytest.mark.timeout(600)
def test_bench_quick_prints_figures(capsys: pytest.CaptureFixture[str]) -> None:
    from controller.bench import dice as bench

    assert bench.main(["--quick", "--dice", "16", "--datasets", "/nonexistent"]) == 0
    out = capsys.readouterr().out
    assert "pi-tray: skipped (/nonexistent/pi-tray is absent)" in out
    assert "catan-webcam: skipped" in out
    assert "synthetic stress (2 random tables, 8 dice a frame)" in out
    assert "worst table accuracy" in out


@pytest.mark.timeout(60)
def test_watch_synthetic_and_lost_camera(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["dice", "watch", "--synthetic", "--expect", "3", "--throws", "1"]) == 0
    out = capsys.readouterr().out
    assert "throw 1 (lightning): " in out and "frames read" in out
    assert main(["dice", "watch", "--device", "/dev/video97", "--seconds", "0.5"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert err[0].startswith("toptable: error: argument --device: /dev/video97: no such camera")
    not_a_camera = tmp_path / "video0"
    not_a_camera.write_bytes(b"")
    assert main(["dice", "watch", "--device", str(not_a_camera), "--seconds", "0.5"]) == 1
    captured = capsys.readouterr()
    why = f"{not_a_camera}: cannot open it as a V4L2 camera"
    assert f"camera lost: {why}" in captured.out  # not the event's repr (review 95)
    assert "0 frames read" in captured.out
    assert captured.err.startswith(f"toptable dice watch: the camera gave no frame: {why}")
    assert captured.err.count("\n") == 1
    for name, content in (("notes.avi", b"not a video at all\n"), ("cut.avi", b"RIFF\x00")):
        video = tmp_path / name  # bad input named on the command line (review fuzz f06)
        video.write_bytes(content)
        assert main(["dice", "watch", "--video", str(video), "--seconds", "0.5"]) == 2
        said = capsys.readouterr().err
        assert said == (f"toptable: error: argument --video: {video}: no frame OpenCV can read "
                       "in it (not a video, or cut short)\n")  # fmt: skip


def test_annotate_writes_over_no_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Review 95: --annotate naming the photo read, or any file there, replaced it."""
    image = tmp_path / "throw.png"
    write_image(image, Renderer(seed=31).scene(count=3).image)
    notes = tmp_path / "notes.png"
    notes.write_bytes(b"mine")
    before = image.read_bytes()
    for out in (image, notes):
        assert main(["dice", "read", str(image), "--annotate", str(out)]) == 2
        assert (
            capsys.readouterr()
            .err.strip()
            .endswith(f"argument --annotate: {out}: a file is there already; name a new file")
        )
    assert image.read_bytes() == before and notes.read_bytes() == b"mine"


def test_an_image_is_written_at_a_path_that_is_no_utf8(tmp_path: Path) -> None:
    """Review 95: cv2.imwrite (OpenCV 4.11) crashed the process (SIGSEGV) on such a path."""
    odd = Path(os.fsdecode(bytes(tmp_path) + b"/x\xff.png"))
    write_image(odd, np.zeros((4, 4, 3), np.uint8))
    assert b"x\xff.png" in os.listdir(bytes(tmp_path))
    with pytest.raises(ImageReadError, match=r"cannot encode an image as '\.nope'"):
        write_image(tmp_path / "x.nope", np.zeros((4, 4, 3), np.uint8))
    with pytest.raises(ImageReadError, match=r"cannot write the image: No such file"):
        write_image(tmp_path / "gone" / "x.png", np.zeros((4, 4, 3), np.uint8))
