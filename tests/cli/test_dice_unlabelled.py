"""``toptable bench dice --unlabelled N``: dice taken out of the labels, named or not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from controller.bench import dice as bench
from controller.bench.dice_unlabelled import _named, bench_unlabelled, drop_labels
from vision.learning.unlabeled import unlabeled_warning


def test_named_dice_are_read_back_from_the_report() -> None:
    report = json.dumps({"warnings": [
        "faces look alike: ...",
        unlabeled_warning("labels/a.txt", "a.jpg", (221.4, 1000.6), "4", 0.57),
        unlabeled_warning("labels/b.txt", "b.jpg", (10.0, 20.0), "bolt", 0.31),
    ]})  # fmt: skip
    assert _named(report) == [
        ("labels/a.txt", 221.0, 1001.0, "4"),
        ("labels/b.txt", 10.0, 20.0, "bolt"),
    ]
    assert _named(json.dumps({"warnings": []})) == []


def test_labels_are_taken_out_of_photos_with_two_dice_or_more(tmp_path: Path) -> None:
    labels = tmp_path / "labels"
    labels.mkdir()
    (labels / "one.txt").write_text("0 0.5 0.5 0.1 0.1\n", encoding="utf-8")
    for name in ("two", "three"):
        lines = [f"{k} 0.{k + 1} 0.5 0.1 0.1" for k in range(2 if name == "two" else 3)]
        (labels / f"{name}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    taken = drop_labels(tmp_path, 5, seed=1)
    assert sorted(t[0] for t in taken) == ["labels/three.txt", "labels/two.txt"]
    assert (labels / "one.txt").read_text(encoding="utf-8") == "0 0.5 0.5 0.1 0.1\n"
    left = {p.stem: len(p.read_text(encoding="utf-8").splitlines()) for p in labels.iterdir()}
    assert left == {"one": 1, "two": 1, "three": 2}
    for label, cls, cx, _ in taken:  # the line taken out is no longer in its file
        assert f"{cls} {cx}" not in (tmp_path / label).read_text(encoding="utf-8")


def test_a_faces_last_label_is_never_taken_out(tmp_path: Path) -> None:
    # face 2 has one die only: whatever the draw, it keeps its label
    for seed in range(12):
        labels = tmp_path / str(seed) / "labels"
        labels.mkdir(parents=True)
        (labels / "a.txt").write_text("0 0.1 0.5 0.1 0.1\n2 0.3 0.5 0.1 0.1\n", encoding="utf-8")
        (labels / "b.txt").write_text("0 0.1 0.5 0.1 0.1\n0 0.2 0.5 0.1 0.1\n", encoding="utf-8")
        taken = drop_labels(labels.parent, 2, seed)
        assert all(cls != 2 for _, cls, _, _ in taken)
        assert "2 0.3" in (labels / "a.txt").read_text(encoding="utf-8")
        assert len(taken) == 2  # a.txt gives its face-0 die, b.txt one of its two


def test_bench_dice_unlabelled_runs_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[tuple[int, bool]] = []
    monkeypatch.setattr(bench, "bench_unlabelled", lambda n, tiny: asked.append((n, tiny)))
    monkeypatch.setattr(bench, "bench_pi_tray", lambda *a, **k: pytest.fail("not asked"))
    assert bench.main(["--quick", "--unlabelled", "2"]) == 0
    assert asked == [(2, True)]


@pytest.mark.slow  # two tiny strangers, two calibrations each
@pytest.mark.timeout(900)
def test_tiny_strangers_unlabelled_dice_are_counted(capsys: pytest.CaptureFixture[str]) -> None:
    rows = bench_unlabelled(2, tiny=True)
    out = capsys.readouterr().out
    assert len(rows) == 2 and all(not r.failed for r in rows)
    assert all(0 <= r.named_right <= r.named <= r.dropped <= 3 for r in rows)
    assert all(0.0 <= f <= 1.0 for r in rows for f in (*r.f1, *r.faces))
    assert f"named {sum(r.named for r in rows)} of {sum(r.dropped for r in rows)}" in out
