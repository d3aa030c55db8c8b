"""``toptable bench dice --large N``: a large labelled set calibrated with its check on one
core: the photos learned from, the time, the peak memory, the new photos' figures."""

from __future__ import annotations

import re

import pytest

from controller.bench import dice as bench
from controller.bench.dice_large import large_lines

LINE = re.compile(
    r"  calibration with its 3-fold check, one core: (\d+) s CPU \(wall (\d+) s\), peak memory "
    r"(\d+) MB; learned from (\d+) of its (\d+) photos \((\d+) of (\d+) dice\); the check: "
    r"F1 ([\d.]+), faces ([\d.]+)%"
)


def test_the_large_sets_lines_say_what_was_learned_from() -> None:
    figures = {
        "photos": 200, "dice": 5310, "learned_photos": 38, "learned_dice": 998, "cpu_s": 301.4,
        "wall_s": 320.0, "peak_mb": 812.3, "check_f1": 0.995, "check_faces": 0.9912,
        "test_dice": 1290, "f1": 0.9931, "accuracy": 0.9875, "unsure": 90,
        "wrong_above_threshold": 1,
    }  # fmt: skip
    lines = large_lines(figures)
    assert lines[0] == (
        "  calibration with its 3-fold check, one core: 301 s CPU (wall 320 s), peak memory "
        "812 MB; learned from 38 of its 200 photos (998 of 5310 dice); the check: F1 0.9950, "
        "faces 99.12%"
    )
    assert lines[1] == (
        "  its 1290 new dice: detection F1 0.9931, faces right 98.75%, unsure 90, "
        "wrong above the threshold 1"
    )


@pytest.mark.slow  # four calibrations (tiny ones) in a child process
@pytest.mark.timeout(900)
def test_a_tiny_large_set(capsys: pytest.CaptureFixture[str]) -> None:
    assert bench.main(["--quick", "--large", "8"]) == 0
    out = capsys.readouterr().out.splitlines()
    found = [m.groups() for line in out if (m := LINE.fullmatch(line))]
    assert len(found) == 1, out
    cpu, wall, peak, photos, given, dice, of_dice = (int(v) for v in found[0][:7])
    assert photos == given == 8 and dice == of_dice > 0  # within the budget: every photo
    assert cpu > 0 and wall > 0 and 100 < peak < 8000  # the child's own measure
    assert 0.0 <= float(found[0][7]) <= 1.0
    assert out[-1].startswith("  its ") and " new dice: detection F1 " in out[-1]
