"""Face models: training, confidence, the .npz format and its checks."""

from __future__ import annotations

import gc
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from vision.errors import ModelError
from vision.learning.defaults import DEFAULT_MODEL, SYNTHETIC_FACE_SET, default_model
from vision.learning.face_model import train
from vision.reading.describe import DESCRIPTION_SIZE as FEATURE_SIZE
from vision.reading.detect import DetectorParams
from vision.reading.model import FORMAT_VERSION, load_model


def _toy() -> tuple[NDArray[Any], NDArray[Any]]:
    rng = np.random.default_rng(0)
    centres = rng.normal(0, 1, (3, FEATURE_SIZE)).astype(np.float32)
    feats = np.concatenate([c + rng.normal(0, 0.05, (5, FEATURE_SIZE)) for c in centres])
    return feats.astype(np.float32), np.repeat(np.arange(3), 5)


def test_nearest_face_and_confidence() -> None:
    feats, labels = _toy()
    model = train("toy", ["a", "b", "c"], feats, labels, DetectorParams())
    reads = model.classify(feats[[0, 7, 14]])
    assert [r.face for r in reads] == [0, 1, 2]
    assert all(r.confidence > 0.5 and not r.unsure for r in reads)
    halfway = (feats[0] + feats[5]) / 2
    tie = model.classify(halfway[None, :])[0]
    assert tie.confidence < 0.2 and tie.unsure
    far = model.classify(np.full((1, FEATURE_SIZE), 50.0, np.float32))[0]
    assert far.unsure, "a patch unlike any face seen must be unsure"
    # nearest to one face by far, yet farther from it than any of its dice lie: unlike
    # every face seen, read sure by its confidence alone (review tests d01)
    step = np.random.default_rng(1).normal(0, 1, FEATURE_SIZE).astype(np.float32)
    odd = feats[0] + step * (2.5 * model.novelty / float(np.linalg.norm(step)))
    read = model.classify(odd[None, :])[0]
    assert read.face == 0 and read.confidence > 0.5 and read.unsure


def test_a_die_seen_several_ways_is_read_by_all_its_views_not_its_luckiest() -> None:
    """A die looked at again is cut several ways: one cut that matches a stored die of
    another face exactly must not decide its face (each face's distance is the mean over
    the views)."""
    feats, labels = _toy()
    model = train("toy", ["a", "b", "c"], feats, labels, DetectorParams())
    views = np.stack([feats[0], feats[5], feats[6]])  # one cut like an 'a', two like 'b's
    (read,) = model.classify(views[None])
    assert read.face == 1 and read.confidence < 1.0


def test_a_face_without_samples_is_left_unlearned(tmp_path: Path) -> None:
    feats, labels = _toy()
    model = train("toy", ["a", "b", "c", "d"], feats, labels, DetectorParams())
    assert model.unlearned == ("d",)
    full = train("toy", ["a", "b", "c"], feats, labels, DetectorParams())
    assert full.unlearned == ()
    rows = feats + np.random.default_rng(1).normal(0, 0.05, feats.shape).astype(np.float32)
    reads = model.classify(rows)
    assert [r.face for r in reads] == labels.tolist()  # never 3
    # read as the model of the faces learned reads them: the runner-up is a face learned
    assert [(r.confidence, r.unsure) for r in reads] == [
        (r.confidence, r.unsure) for r in full.classify(rows)
    ]
    assert all(0.0 < r.confidence < 1.0 for r in reads)
    assert load_model(model.save(tmp_path / "toy")).unlearned == ("d",)


def test_samples_of_one_face_of_several_refused() -> None:
    feats, labels = _toy()
    with pytest.raises(ModelError, match=r"no sample of face.*b, c.*two or more faces"):
        train("toy", ["a", "b", "c"], feats[labels == 0], labels[labels == 0], DetectorParams())
    one = train("die", ["die"], feats, np.zeros(len(feats), np.int64), DetectorParams())
    assert one.unlearned == () and one.classify(feats[:1])[0].face == 0


def test_save_load_round_trip(tmp_path: Path) -> None:
    feats, labels = _toy()
    model = train("toy", ["a", "b", "c"], feats, labels, DetectorParams(die_frac=0.2))
    path = model.save(tmp_path / "toy")
    assert path.suffix == ".npz"
    back = load_model(path)
    assert back.face_set == "toy" and back.names == ("a", "b", "c")
    assert back.detector.die_frac == 0.2
    assert [r.face for r in back.classify(feats)] == labels.tolist()


def test_projected_model_round_trip(tmp_path: Path) -> None:
    feats, labels = _toy()
    model = train("toy", ["a", "b", "c"], feats, labels, DetectorParams(), dims=4)
    assert model.basis is not None and model.basis.shape == (FEATURE_SIZE, 4)
    assert model.samples.shape == (len(feats), 4), "samples are stored projected"
    back = load_model(model.save(tmp_path / "toy"))
    assert back.basis is not None and back.samples.shape[1] == 4
    assert [r.face for r in back.classify(feats)] == labels.tolist()
    # a die seen three ways: each face's distance is averaged over the views, so one view
    # that happens to match "b" exactly does not outvote two views that both look like "a"
    seen_thrice = np.stack([[feats[5], feats[1], feats[2]], [feats[6], feats[7], feats[12]]])
    assert [r.face for r in back.classify(seen_thrice)] == [0, 1]


def test_a_pair_of_faces_held_to_its_own_threshold(tmp_path: Path) -> None:
    # three faces in a plane (of the description space): "a" at the origin, "b" to its
    # right, "c" above it, each sampled on a small ring about its centre
    ring = 0.15 * np.stack([np.cos(np.arange(8) * np.pi / 4), np.sin(np.arange(8) * np.pi / 4)], 1)
    centres = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    feats = np.zeros((24, FEATURE_SIZE), np.float32)
    feats[:, :2] = np.concatenate([c + ring for c in centres])
    labels = np.repeat(np.arange(3), 8)
    model = train("toy", ["a", "b", "c"], feats, labels, DetectorParams())
    # a die a little towards "b" (read "a", "b" its runner-up) and one as far towards "c"
    # (read "a", "c" its runner-up): equally sure
    dice = np.zeros((2, FEATURE_SIZE), np.float32)
    dice[0, 0] = dice[1, 1] = 0.2
    plain = model.classify(dice)
    assert [r.face for r in plain] == [0, 0] and not any(r.unsure for r in plain)
    assert plain[0].confidence == pytest.approx(plain[1].confidence)
    pairs = np.zeros((3, 3), np.float32)
    pairs[0, 1] = pairs[1, 0] = 0.99  # "a" and "b" look alike
    model.pair_thresholds = pairs
    held = model.classify(dice)
    assert held[0].unsure and held[0].bar == pytest.approx(0.99)
    assert not held[1].unsure and held[1].bar == model.threshold
    back = load_model(model.save(tmp_path / "pairs"))
    assert back.pair_thresholds is not None and np.allclose(back.pair_thresholds, pairs)
    assert [r.unsure for r in back.classify(dice)] == [True, False]
    # a file without them has the one threshold
    alone = train("toy", ["a", "b", "c"], feats, labels, DetectorParams())
    assert load_model(alone.save(tmp_path / "none")).pair_thresholds is None


def test_bad_pair_thresholds_named(tmp_path: Path) -> None:
    feats, labels = _toy()
    model = train("toy", ["a", "b", "c"], feats, labels, DetectorParams())
    model.pair_thresholds = np.zeros((2, 2), np.float32)
    path = model.save(tmp_path / "bad")
    with pytest.raises(ModelError, match=r"bad\.npz: pair_thresholds of shape \(2, 2\), "
                       r"expected \(3, 3\)"):  # fmt: skip
        load_model(path)


def test_bad_model_files(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="no such model file"):
        load_model(tmp_path / "none.npz")
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"nope")
    with pytest.raises(ModelError, match="not a toptable face model"):
        load_model(junk)
    old = tmp_path / "old.npz"
    np.savez(old, format=np.int64(FORMAT_VERSION + 1))
    with pytest.raises(ModelError, match=f"model format {FORMAT_VERSION + 1}"):
        load_model(old)


def test_model_for_another_face_set_refused() -> None:
    model = default_model()
    with pytest.raises(ModelError, match="cannot read"):
        model.check_face_set(["1", "2", "3", "4", "5", "6"], "pi-tray")


def test_shipped_model_is_small_and_for_game_dice() -> None:
    assert DEFAULT_MODEL.is_file()
    assert DEFAULT_MODEL.stat().st_size < 8_000_000  # (a model may be 20 MB; this one ~6 MB)
    model = load_model(DEFAULT_MODEL)
    assert model.face_set == SYNTHETIC_FACE_SET
    assert model.names == ("kick", "punch", "sphere", "strength", "star", "teleport")


def _rewritten(path: Path, to: Path, **changed: Any) -> Path:
    """The model file at ``path`` written again to ``to`` with ``changed`` arrays."""
    with np.load(path) as data:
        arrays = {name: data[name] for name in data.files}
    np.savez(to, **(arrays | changed))
    return to


def test_a_damaged_model_file_is_refused_when_loaded_not_when_read(tmp_path: Path) -> None:
    feats, labels = _toy()
    good = train("toy", ["a", "b", "c"], feats, labels, DetectorParams()).save(tmp_path / "ok")
    with np.load(good) as data:
        samples, stored = data["samples"], data["labels"]
    short = _rewritten(good, tmp_path / "short.npz", samples=samples[:1])
    with pytest.raises(ModelError, match=r"short\.npz: labels of shape \(\d+,\), expected a "
                       r"face of the 3 \(or -1, not a die\) for each of its 1 samples"):  # fmt: skip
        load_model(short)
    unknown = _rewritten(good, tmp_path / "unknown.npz", labels=np.where(stored == 2, 7, stored))
    with pytest.raises(ModelError, match=r"unknown\.npz: labels of shape"):
        load_model(unknown)
    for name, value in (("samples", np.full_like(samples, np.nan)),
                        ("threshold", np.float64(np.inf))):  # fmt: skip
        bad = _rewritten(good, tmp_path / f"nan_{name}.npz", **{name: value})
        with pytest.raises(ModelError, match=f"{name} holds values that are not numbers"):
            load_model(bad)
    for name, value, said in (
        ("basis", np.float32(1.0), r"projection of shape \(\), expected a matrix"),
        ("threshold", np.str_("0.2"), r"threshold holds <U3 values, expected numbers"),
        ("novelty", np.array([1.0, 2.0]), r"novelty of shape \(2,\), expected one number"),
        ("det_bias", np.array(["x"]), r"det_bias holds <U1 values, expected numbers"),
    ):
        bad = _rewritten(good, tmp_path / f"wrong_{name}.npz", **{name: value})
        with pytest.raises(ModelError, match=rf"wrong_{name}\.npz: {said}"):
            load_model(bad)
    text = tmp_path / "text.npz"
    text.write_text("a model, honestly\n")
    with pytest.raises(ModelError, match=r"text\.npz: not a toptable face model \(not an "
                       r"\.npz archive\)"):  # fmt: skip
        load_model(text)
    assert load_model(good).names == ("a", "b", "c")


@pytest.mark.parametrize(
    ("name", "value", "said"),
    [
        ("detector", np.str_("[]"), "detector holds no JSON object, expected the finder's settings"),
        ("detector", np.str_("7"), "detector holds no JSON object, expected the finder's settings"),
        ("colour_logp", np.zeros((12, 12, 1), np.float16), r"colour_logp of shape \(12, 12, 1\), "
         r"expected \(b, b, b\)"),
        ("colour_logp", np.full((4, 4, 4), np.nan, np.float16), "colour_logp holds values that "
         "are not numbers"),
    ],
)  # fmt: skip
def test_a_damaged_finder_is_refused_when_loaded(
    tmp_path: Path, name: str, value: Any, said: str
) -> None:
    """A finder's settings that are not a JSON object, or a scene colour model that is not a
    cube of numbers, are named when the model is loaded (an AttributeError, or an IndexError
    at the first frame read, before)."""
    bad = _rewritten(DEFAULT_MODEL, tmp_path / "bad.npz", **{name: value})
    with pytest.raises(ModelError, match=rf"bad\.npz: {said}"):
        load_model(bad)


def test_a_face_named_twice_or_a_setting_not_finite_is_refused_when_loaded(
    tmp_path: Path,
) -> None:
    """Calibration never writes a NaN or an infinity, but for -inf in the scene colour
    model (a log-probability of a colour never seen): every other one is refused, named."""
    good = DEFAULT_MODEL
    twice = np.array(["kick", "punch", "sphere", "kick", "star", "teleport"], np.str_)
    with pytest.raises(ModelError, match=r"twice\.npz: names: 'kick' names faces 0 and 3, "
                       r"expected each face named once"):  # fmt: skip
        load_model(_rewritten(good, tmp_path / "twice.npz", names=twice))
    with np.load(good) as data:
        settings, colour = str(data["detector"]), data["colour_logp"]
        domain = str(data["domain"])
    for field, text in (
        ("detector", settings.replace('"threshold": ', '"threshold": NaN, "x": ')),
        ("detector", settings.replace('"novel_logp": ', '"novel_logp": -Infinity, "x": ')),
        ("detector", settings.replace('"min_contrast": ', '"min_contrast": 1e999, "x": ')),
        ("domain", domain.replace('"die_px": [', '"die_px": [Infinity, ')),
        ("detector", settings.replace('"novel_logp": ', f'"novel_logp": -1{"0" * 400}, "x": ')),
        ("domain", domain.replace('"die_px": [', f'"die_px": [1{"0" * 400}, ')),
    ):
        bad = _rewritten(good, tmp_path / "bad.npz", **{field: np.str_(text)})
        with pytest.raises(ModelError, match=rf"bad\.npz: {field} holds .+, expected finite"):
            load_model(bad)
    hot = colour.copy()
    hot[0, 0, 0] = np.inf
    with pytest.raises(ModelError, match=r"hot\.npz: colour_logp holds values that are not"):
        load_model(_rewritten(good, tmp_path / "hot.npz", colour_logp=hot))
    never = colour.copy()
    never[0, 0, 0] = -np.inf  # a colour of probability 0: a log-probability all the same
    read = load_model(_rewritten(good, tmp_path / "never.npz", colour_logp=never))
    assert read.detector.colour_logp is not None and np.isneginf(read.detector.colour_logp).any()
    alike = np.array(["kick", "punch", "sphere", "Kick ", "star", "teleport"], np.str_)
    with pytest.raises(ModelError, match=r"alike\.npz: names: 'Kick ' names faces 0 \(as 'kick'\) "
                       r"and 3, expected each face named once, case and spaces aside"):  # fmt: skip
        load_model(_rewritten(good, tmp_path / "alike.npz", names=alike))
    with np.load(good) as data:
        wide = data["samples"].astype(np.float64)
    wide[0, 0] = 1e300  # finite in the file, inf as the reader holds it (float32)
    with pytest.raises(ModelError, match=r"wide\.npz: samples holds values that are not"):
        load_model(_rewritten(good, tmp_path / "wide.npz", samples=wide))


@pytest.mark.filterwarnings("error::pytest.PytestUnraisableExceptionWarning")
def test_a_model_saved_on_a_full_disk_is_one_error(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """Review 95: numpy's zip writer, failing on a full disk, left an "Exception ignored in
    ZipFile.__del__" traceback after the error (/dev/full stands for the full disk)."""
    full = tmp_path / "m.npz"
    full.symlink_to("/dev/full")
    with pytest.raises(OSError, match="No space left"):
        load_model(DEFAULT_MODEL).save(full)
    gc.collect()  # what a zip writer left open says its error when it is collected
    assert "Exception ignored" not in capfd.readouterr().err
