"""The leave-photos-out check's folds (vision/learning/fold_check.py): which folds are
calibrated, their processes and progress, the default number at once, and the model
written before its check (vision/learning/report.py)."""

from __future__ import annotations

import os
import shutil
import signal
import time
from pathlib import Path

import pytest

from vision.errors import ModelError
from vision.learning import report
from vision.learning.dataset import Dataset, load_dataset
from vision.learning.evaluate import EvalResult
from vision.learning.fold_check import (
    CheckProgress,
    Fold,
    FoldRunner,
    calibration_mb,
    check_jobs,
    plan_folds,
)
from vision.reading.model import FaceModel
from vision.synth.scenes import write_dataset

from . import fold_work


@pytest.fixture(scope="module")
def six(tmp_path_factory: pytest.TempPathFactory) -> Dataset:
    """Six photos of six dice each, every face in every fold's photos."""
    root = tmp_path_factory.mktemp("folds") / "six"
    return load_dataset(write_dataset(root, 6, seed=5, per_image=6))


def test_each_photo_is_read_by_one_fold_that_did_not_learn_it(six: Dataset) -> None:
    plan = plan_folds(six, 3)
    assert [f.number for f in plan] == [1, 2, 3]
    assert [f.test for f in plan] == [(0, 3), (1, 4), (2, 5)]
    for fold in plan:
        assert sorted(fold.train + fold.test) == list(range(6))
    assert plan_folds(six, 1) == [] and plan_folds(six, 4) == []  # (4 folds: 8 photos)


def test_a_fold_without_some_face_is_not_calibrated(six: Dataset, tmp_path: Path) -> None:
    root = tmp_path / "five_alone"
    shutil.copytree(six.root, root)
    # face 5 left on photo 0 alone: the fold that reads photo 0 (fold 1) could not learn it
    for item in six.items[1:]:
        label = root / "labels" / f"{item.image.stem}.txt"
        lines = label.read_text().splitlines()
        label.write_text("".join(f"{'4' if ln[0] == '5' else ln[0]}{ln[1:]}\n" for ln in lines))
    assert 5 in {d.cls for d in six.items[0].dice}
    assert [f.number for f in plan_folds(load_dataset(root), 3)] == [2, 3]


def _heard_from(heard: list[tuple[int, int, int, str]], folds: set[int]) -> None:
    """Wait until each of ``folds`` has said something (its process spawned and started)."""
    waited = time.monotonic()
    while {n for n, *_ in heard} < folds:
        assert time.monotonic() - waited < 120, heard
        time.sleep(0.05)


def _not_here(fold: Fold) -> None:
    raise AssertionError(f"fold {fold.number} was to run in a process")


def test_folds_run_in_processes_of_their_own_and_say_how_far(six: Dataset) -> None:
    plan = plan_folds(six, 3)
    heard: list[tuple[int, int, int, str]] = []
    runner = FoldRunner(2, lambda *said: heard.append(said), work=fold_work.one_step_a_photo)
    try:
        runner.start(six, "six", plan)
        _heard_from(heard, {1, 2, 3})  # (each fold takes no time: the third too is handed out)
        got = runner.results(plan, _not_here)
    finally:
        runner.close()
    assert [r.images if r else None for r in got] == [2, 2, 2]  # (each fold's test photos)
    for fold in plan:
        said = [(done, total, what) for n, done, total, what in heard if n == fold.number]
        assert said[:-1] == [
            (k, 5, six.items[i].image.name) for k, i in enumerate(fold.train, start=1)
        ]
        pid, threads = said[-1][2].split()
        assert int(pid) != os.getpid() and threads == "1"  # a process of its own, one thread


def test_folds_no_process_has_begun_run_here_once_the_model_is_done(six: Dataset) -> None:
    plan = plan_folds(six, 3)
    heard: list[tuple[int, int, int, str]] = []
    here: list[int] = []

    def run_here(fold: Fold) -> EvalResult:
        here.append(fold.number)
        return EvalResult(six.names, images=10 * fold.number)

    runner = FoldRunner(1, lambda *said: heard.append(said), work=fold_work.a_while)
    try:
        runner.start(six, "six", plan)
        _heard_from(heard, {1})  # fold 1 begun in the one process, for three seconds
        got = runner.results(plan, run_here)
    finally:
        runner.close()
    assert here == [2, 3]
    assert [r.images if r else None for r in got] == [2, 20, 30]  # in the plan's order
    assert {n for n, *_ in heard} == {1}


def test_folds_running_are_stopped_when_the_model_fails(six: Dataset) -> None:
    plan = plan_folds(six, 3)
    heard: list[tuple[int, int, int, str]] = []
    runner = FoldRunner(2, lambda *said: heard.append(said), work=fold_work.stuck)
    try:
        runner.start(six, "six", plan)
        _heard_from(heard, {1, 2})
    finally:
        begun = time.monotonic()
        runner.close(stop=True)
    assert time.monotonic() - begun < 60  # not the hour the folds would take


def test_a_fold_process_that_died_is_named_not_a_traceback(six: Dataset) -> None:
    plan = plan_folds(six, 3)
    heard: list[tuple[int, int, int, str]] = []
    runner = FoldRunner(1, lambda *said: heard.append(said), work=fold_work.stuck)
    try:
        runner.start(six, "six", plan)
        _heard_from(heard, {1})
        pid = int(heard[0][3].split()[1])
        os.kill(pid, signal.SIGKILL)  # as the out-of-memory killer does
        with pytest.raises(ModelError, match=r"out of memory\?.*\(--jobs 1\)"):
            runner.results(plan, lambda fold: None)
    finally:
        runner.close()


def test_calibrations_at_once_fit_the_cores_and_the_memory(tmp_path: Path) -> None:
    cores = len(os.sched_getaffinity(0))
    meminfo = tmp_path / "meminfo"
    meminfo.write_text(f"MemTotal: 99999999 kB\nMemAvailable: {64 * 1024 * 1024} kB\n")
    assert check_jobs(3, 440, meminfo) == min(4, cores)
    assert check_jobs(1, 440, meminfo) == min(2, cores)
    # room for two calibrations of 440 dice (652 MB each), not for two of 999 (1,099 MB)
    meminfo.write_text("MemAvailable: 1500000 kB\n")
    assert calibration_mb(440) == 652 and calibration_mb(999) == pytest.approx(1099.2)
    assert check_jobs(3, 440, meminfo) == min(2, cores)
    assert check_jobs(3, 999, meminfo) == 1
    meminfo.write_text("MemAvailable: 700000 kB\n")  # a Pi of 1 GB: one at a time
    assert check_jobs(3, 120, meminfo) == 1
    assert check_jobs(3, 120, tmp_path / "absent") == 1  # not known: one at a time
    meminfo.write_text("MemTotal 12\n")
    assert check_jobs(3, 120, meminfo) == 1


def test_progress_adds_up_the_parts_and_ends_whole(six: Dataset) -> None:
    seen: list[tuple[int, int, str]] = []
    plan = plan_folds(six, 3)
    shares = CheckProgress(lambda *said: seen.append(said), six, plan, 3)
    grand = (2 * 6 + 7) + 3 * (2 * 4 + 7)
    shares.part(0)(19, 19, "done")
    shares.of_fold(2, 4, 15, "measuring x.png")
    assert seen == [
        (19, grand, "calibrating: done"),
        (23, grand, "checking: leaving photos out (2/3): measuring x.png"),
    ]
    shares.finish("checked")
    assert seen[-1] == (grand, grand, "checked")


def test_the_model_is_written_before_its_check(
    six: Dataset, model: FaceModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    order: list[str] = []

    def calibrated(*args: object, **kwargs: object) -> FaceModel:
        order.append("calibrated")
        return model

    def fold(dataset: Dataset, face_set: str | None, f: Fold, progress: object) -> None:
        order.append(f"fold {f.number}")

    monkeypatch.setattr(report, "calibrate", calibrated)
    monkeypatch.setattr(report, "run_fold", fold)
    got, said = report.calibrate_with_report(
        six, written=lambda m, checks: order.append(f"written, {checks} to check")
    )
    assert got is model
    assert order == ["calibrated", "written, 3 to check", "fold 1", "fold 2", "fold 3"]
    assert said.calibrated_seconds is not None and said.calibrated_seconds <= said.seconds
    assert said.cv is None and said.folds == 0  # (no fold gave figures)
