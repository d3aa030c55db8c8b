"""``toptable bench dice``'s costs: each figure printed with its target and verdict."""

from __future__ import annotations

import re

import pytest

from controller.bench.dice_costs import CALIBRATION, READ_1280, Target, network_times, phone_lines


def test_a_figure_meets_its_target_up_to_the_limit() -> None:
    target = Target(25.0, "ms")
    assert target.judge(24.9) == "(target ≤ 25 ms: meets)"
    assert target.judge(25.0) == "(target ≤ 25 ms: meets)"
    assert target.judge(25.1) == "(target ≤ 25 ms: MISSES)"


def test_the_phone_strangers_lines_judge_each_figure() -> None:
    figures = {
        "train_dice": 440, "test_dice": 215, "calibration_cpu_s": 200.0,
        "calibration_wall_s": 700.0, "read_12mp_ms": 290.4, "read_1280_ms": 24.0, "f1": 0.97,
        "accuracy": 0.9567, "unsure": 51, "wrong_above_threshold": 2,
    }  # fmt: skip
    lines = phone_lines(figures, "model file 11.57 MB (target ≤ 20 MB: meets)")
    assert lines[0] == (
        "  calibration on 20 photos of 12 MP (440 dice), one core: 200 s CPU (wall 700 s) "
        + CALIBRATION.judge(200.0)
    )
    assert lines[0].endswith("MISSES)") and lines[1].endswith("meets)")
    assert lines[2] == (
        "  the same photos as 1280x960 frames (22 dice a frame), one core, median: 24.0 ms CPU "
        + READ_1280.judge(24.0)
    )
    assert lines[3] == "  model file 11.57 MB (target ≤ 20 MB: meets)"
    assert lines[4] == (
        "  its 215 new dice: detection F1 0.9700, faces right 95.67%, unsure 51, "
        "wrong above the threshold 2"
    )


def test_the_networks_line_times_both_passes(capsys: pytest.CaptureFixture[str]) -> None:
    network_times(views=3, rounds=2)
    line = capsys.readouterr().out.strip()
    found = re.fullmatch(
        r"face networks, one core: a die's view through both, CPU median (\d+\.\d\d) ms by "
        r"cv2\.dnn, (\d+\.\d\d) ms by numpy \(batches of 3\); the reader runs cv2\.dnn",
        line,
    )
    assert found, line
    assert float(found[1]) > 0 and float(found[2]) > 0
