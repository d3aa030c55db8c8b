"""``toptable bench dice --strangers N``: the strangers' table and its summary."""

from __future__ import annotations

import re
import statistics

import pytest

from controller.bench import dice as bench
from controller.cli.main import main


def test_summary_is_the_distribution_of_the_rows() -> None:
    rows = [
        bench.StrangerFigures(1, "a", 100, 0.90, 0.80, 3, 1, 1.0),
        bench.StrangerFigures(2, "b", 50, 1.00, 1.00, 0, 0, 1.0, colour="blue", label_warnings=2),
        bench.StrangerFigures(3, "c", 50, 0.95, 0.98, 1, 2, 1.0, label_warnings=1, finders=2),
    ]
    line = bench.strangers_summary(rows)
    assert line == (
        "strangers (3): detection F1 median 0.9500, worst 0.9000; faces right median 98.00%, "
        "worst 80.00%; unsure 4 of 200 dice (2.00%); wrong and not flagged 3 (1.50%; over "
        "0.5% of their dice on 2 of 3 tables); faces read in a chosen colour on 1; label "
        "warnings (false alarms: the strangers' labels are right) 3 on 2 tables; dice of "
        "several colours found by a finder per colour on 1"
    )
    # a table at the goal is not over it: 1 of 200 dice is 0.5 %
    at_goal = [bench.StrangerFigures(4, "d", 200, 1.0, 1.0, 0, 1, 1.0)]
    assert "on 0 of 1 tables)" in bench.strangers_summary(at_goal)


@pytest.mark.parametrize(
    "flags",
    [
        ["--quick", "--strangers", "2"],
        ["--strangers", "3", "--jobs", "2"],
        ["--phone"],
        ["--leaning", "4"],
        ["--unlabelled", "2"],
        ["--handheld", "3"],
        ["--two-tables"],
        ["--cut-edges"],
    ],
    ids=[
        "strangers",
        "strangers-jobs",
        "phone",
        "leaning",
        "unlabelled",
        "handheld",
        "two",
        "cut",
    ],
)
def test_bench_cli_passes_its_flags_to_the_dice_bench(
    flags: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    seen: list[list[str]] = []

    def dice_bench(argv: list[str]) -> int:  # stands for the bench: only what it was asked
        seen.append(argv)
        return 0

    monkeypatch.setattr(bench, "main", dice_bench)
    assert main(["bench", "dice", *flags]) == 0
    assert seen == [flags]
    assert "== dice" in capsys.readouterr().out


ROW = re.compile(
    r"  stranger (\d+): (\d+) dice: F1 ([\d.]+), faces ([\d.]+)%, unsure (\d+), "
    r"unflagged wrong (\d+); calibration \d+ s(?:, faces read in [a-z ]+)?"
    r"(?:, \d+ label warning\(s\))?(?:, \d+ finders \(dice of \d+ colours\))? \((.+)\)"
)


@pytest.mark.slow  # two calibrations (tiny ones)
@pytest.mark.timeout(900)
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_two_tiny_strangers(jobs: str, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--quick", "--strangers", "2", "--jobs", jobs, "--datasets", "/nonexistent"]
    assert bench.main(argv) == 0
    out = capsys.readouterr().out.splitlines()
    assert "pi-tray: skipped (/nonexistent/pi-tray is absent)" in out
    assert any(line.startswith("catan-webcam: skipped") for line in out)
    rows = [m.groups() for line in out if (m := ROW.fullmatch(line))]
    assert [int(r[0]) for r in rows] == [bench.STRANGER_SEED, bench.STRANGER_SEED + 1]
    assert all(int(r[1]) >= 6 for r in rows)  # 3 photos of 2 or 3 dice
    assert all("320x240" in r[6] for r in rows)
    f1 = [float(r[2]) for r in rows]
    faces = [float(r[3]) / 100 for r in rows]
    dice = sum(int(r[1]) for r in rows)
    summary = re.fullmatch(
        r"strangers \(2\): detection F1 median ([\d.]+), worst ([\d.]+); faces right median "
        r"([\d.]+)%, worst ([\d.]+)%; unsure (\d+) of (\d+) dice \([\d.]+%\); "
        r"wrong and not flagged (\d+) \([\d.]+%; over 0.5% of their dice on (\d+) of 2 tables\); "
        r"faces read in a chosen colour on \d; label warnings \(false alarms: the strangers' "
        r"labels are right\) \d+ on \d tables; dice of several colours found by a finder "
        r"per colour on \d",
        out[-1],
    )
    assert summary is not None, out[-1]
    figures = [float(v) for v in summary.groups()]
    # the rows are rounded for printing: the summary is computed from the figures themselves
    assert figures[0] == pytest.approx(statistics.median(f1), abs=2e-4)
    assert figures[1] == pytest.approx(min(f1), abs=1e-4)
    assert figures[2] / 100 == pytest.approx(statistics.median(faces), abs=2e-4)
    assert figures[3] / 100 == pytest.approx(min(faces), abs=1e-4)
    assert figures[4:7] == [sum(int(r[4]) for r in rows), dice, sum(int(r[5]) for r in rows)]
    assert figures[7] == sum(int(r[5]) > 0.005 * int(r[1]) for r in rows)
