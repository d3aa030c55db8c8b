"""``toptable bench dice --handheld N``: strangers photographed by hand, read at the learned
die size and at the size found in each photo."""

from __future__ import annotations

import re

import pytest

from controller.bench import dice as bench
from controller.bench.dice_handheld import SPREAD

ROW = re.compile(
    r"  stranger (\d+): (\d+) dice: F1 ([\d.]+) -> ([\d.]+), faces ([\d.]+)% -> ([\d.]+)%, "
    r"unsure (\d+) -> (\d+), unflagged wrong (\d+) -> (\d+), reader memory \+([\d.]+) MB; "
    r"(calibration took the photos for a "
    r"fixed camera's|taken by hand, each read at the size its dice look best \(the measure "
    r"missed\)|taken by hand, each read at its measured size, checked by the look) \((.+)\)"
)


@pytest.mark.slow  # a calibration (a tiny one)
@pytest.mark.timeout(600)
def test_a_tiny_hand_held_stranger(capsys: pytest.CaptureFixture[str]) -> None:
    assert bench.main(["--quick", "--handheld", "1"]) == 0
    out = capsys.readouterr().out.splitlines()
    rows = [m.groups() for line in out if (m := ROW.fullmatch(line))]
    assert len(rows) == 1, out
    row = rows[0]
    assert int(row[0]) == bench.STRANGER_SEED and int(row[1]) >= 6
    assert f"by hand: x{1 / SPREAD:.2f}-{SPREAD:.2f}" in row[12]
    assert all(0.0 <= float(v) <= 1.0 for v in row[2:4])
    assert 0.0 < float(row[10]) < 1000.0  # a fresh process's measure, not a placeholder
    assert out[-1].startswith("1 hand-held strangers, ")
    assert f"reader memory worst +{float(row[10]):.1f} MB (target ≤ 60 MB: " in out[-1]
