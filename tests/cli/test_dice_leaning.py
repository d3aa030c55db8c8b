"""``toptable bench dice --leaning N``: leaning dice counted as the reader flagged them."""

from __future__ import annotations

import re

import pytest

from controller.bench import dice as bench
from controller.bench.dice_leaning import (
    LeaningFigures,
    bench_leaning,
    count_dice,
    leaning_summary,
)
from vision.reading.read import DiceRead, DieRead


def _die(x: float, y: float, cocked: bool = False, unsure: bool = False) -> DieRead:
    return DieRead(None if cocked else "1", 0.5, (x - 20, y - 20, 40, 40), (x, y), cocked,
                   unsure, "1")  # fmt: skip


def test_each_labeled_die_is_the_read_die_nearest_it() -> None:
    read = DiceRead((
        _die(100, 100, cocked=True),  # leaning, flagged
        _die(200, 100, unsure=True),  # leaning, asked
        _die(300, 100),  # leaning, read as a face
        _die(100, 300, cocked=True),  # flat, flagged
        _die(200, 300),  # flat
        _die(390, 300),  # nothing labeled near it
    ))  # fmt: skip
    boxes = [(80, 80, 40, 40), (185, 85, 30, 30), (275, 75, 50, 50), (90, 290, 20, 20),
             (180, 280, 40, 40), (500, 500, 40, 40)]  # fmt: skip
    leaning = [True, True, True, False, False, True]  # the last one was not found
    assert count_dice(read, boxes, leaning, die_px=40.0) == (3, 1, 1, 2, 1)


def test_summary_adds_every_stranger() -> None:
    rows = [LeaningFigures(1, "a", 10, 2, 3, 30, 1), LeaningFigures(2, "b", 0, 0, 0, 20, 0)]
    assert rows[0].guessed == 5
    assert leaning_summary(rows) == (
        "leaning dice on 2 strangers' tables: 10 found, flagged cocked 2 (20.0%), asked 3 "
        "(30.0%), read as a face 5 (50.0%); flat dice 50, flagged cocked 1 (2.0%)"
    )


def test_bench_dice_leaning_runs_alone(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    asked: list[tuple[int, bool]] = []
    monkeypatch.setattr(bench, "bench_leaning", lambda n, tiny: asked.append((n, tiny)))
    monkeypatch.setattr(bench, "bench_pi_tray", lambda *a, **k: pytest.fail("not asked"))
    assert bench.main(["--quick", "--leaning", "2"]) == 0
    assert asked == [(2, True)]


@pytest.mark.slow  # two tiny calibrations
def test_tiny_strangers_leaning_dice_are_counted(capsys: pytest.CaptureFixture[str]) -> None:
    rows = bench_leaning(2, tiny=True)
    out = capsys.readouterr().out
    assert len(rows) == 2 and not any(r.failed for r in rows)
    assert sum(r.flat for r in rows) >= 6, "the flat dice of 3 photos a stranger found"
    for r in rows:
        assert 0 <= r.cocked + r.asked <= r.leaning and r.flat_cocked <= r.flat
        assert re.search(rf"  stranger {r.seed}: leaning {r.leaning}, cocked {r.cocked}, ", out)
    assert out.rstrip().splitlines()[-1] == leaning_summary(rows)
