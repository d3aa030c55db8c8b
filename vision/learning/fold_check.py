"""The leave-photos-out check's folds: each a model calibrated without a share of the
photos, reading them; run one after another, or in processes of their own beside the
calibration of the model itself (``dice calibrate --jobs``).

A fold is a whole calibration (about as long as the model's own: with fewer dice, each
is learned in more copies), so on a Pi's four cores the check's three folds and the
model take about the time of the model alone. Each process holds one calibration's
photos in memory.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vision.errors import ModelError
from vision.learning.calibrate import calibrate, calibration_steps
from vision.learning.dataset import Dataset
from vision.learning.evaluate import EvalResult, evaluate
from vision.learning.photo_budget import faces_shown, within_budget
from vision.learning.progress import Progress

# the variables the numeric libraries read at import for their thread pools: a fold's
# process runs on one core, as many processes as cores run at once
_ONE_THREAD = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
# the memory one calibration process reaches, in MB, about BASE_MB and DIE_MB a die learned
# from: measured at the peak of a whole `dice calibrate` on one thread, 371 MB (pi-tray:
# 20 photos, 120 dice), 595 MB (twenty 12 MP photos, 440 dice), 1,060 MB (the photo
# budget's 36 photos of 999 dice, docs/decisions/vision.md)
BASE_MB = 300
DIE_MB = 0.8


def calibration_mb(dice: int) -> float:
    """The memory, in MB, a calibration on ``dice`` labelled dice may reach."""
    return BASE_MB + DIE_MB * dice


def check_jobs(folds: int, dice: int, meminfo: Path = Path("/proc/meminfo")) -> int:
    """How many calibrations of ``dice`` dice to run at once by default: the model's and
    its ``folds`` folds, within the cores free to this process and the memory available
    (a Pi of 1 GB runs them one after another)."""
    cores = len(os.sched_getaffinity(0))
    try:
        fields = dict(line.split(":", 1) for line in meminfo.read_text().splitlines())
        free_mb = int(fields["MemAvailable"].split()[0]) / 1024
    except (OSError, KeyError, ValueError):
        free_mb = 0.0  # not known: one at a time
    return max(1, min(folds + 1, cores, int(free_mb // calibration_mb(dice))))


@dataclass(frozen=True)
class Fold:
    """One fold: the photos (indices into the dataset) it learns from and those it reads."""

    number: int  # 1, 2, ...
    train: tuple[int, ...]
    test: tuple[int, ...]


def plan_folds(dataset: Dataset, folds: int) -> list[Fold]:
    """The folds worth calibrating: photo ``i`` is read by fold ``i % folds``; a fold whose
    training photos do not show every face the set shows is left out (its model could not
    read them). Fewer than two folds, or fewer than two photos a fold: none."""
    n = len(dataset.items)
    if folds < 2 or n < 2 * folds:
        return []
    shown = faces_shown(dataset)
    plan = []
    for k in range(folds):
        train = tuple(i for i in range(n) if i % folds != k)
        if faces_shown(dataset.subset(train)) >= shown:
            plan.append(Fold(k + 1, train, tuple(i for i in range(n) if i % folds == k)))
    return plan


def run_fold(
    dataset: Dataset, face_set: str | None, fold: Fold, progress: Progress
) -> EvalResult | None:
    """Calibrate on the fold's training photos and read its others; None when its photos
    are too few to calibrate on in another way (:class:`ModelError`).

    Raises:
        DataError: a photo cannot be decoded (named).
    """
    try:
        model = calibrate(dataset.subset(fold.train), face_set, progress=progress)
    except ModelError:
        return None
    return evaluate(dataset.subset(fold.test), model)


FoldWork = Callable[[Dataset, "str | None", Fold, Progress], "EvalResult | None"]
"""What a fold does (:func:`run_fold`)."""


class FoldRunner:
    """Folds run in ``workers`` processes of their own (spawned: no thread of this
    process is copied into them), a fold handed to a process when it is free; a fold no
    process has begun when this process is free (its model calibrated) is run here
    (:meth:`results`). Their progress is passed to ``progress(fold number, done, total,
    what)`` from a thread of this process."""

    def __init__(
        self,
        workers: int,
        progress: Callable[[int, int, int, str], None],
        work: FoldWork = run_fold,
    ) -> None:
        self._work = work  # a module's function (processes find it by its name)
        context = multiprocessing.get_context("spawn")
        self._queue: Any = context.Queue()
        self._progress = progress
        self._pool = ProcessPoolExecutor(
            workers, mp_context=context, initializer=_worker_start, initargs=(self._queue,)
        )
        self._free = threading.Semaphore(workers)  # processes free for a fold
        self._lock = threading.Lock()
        self._waiting: list[Fold] = []  # folds no process (nor this one) has begun
        self._begun: dict[int, Future[EvalResult | None]] = {}  # by fold number
        self._pids: list[int] = []
        self._listener = threading.Thread(target=self._listen, name="fold-progress", daemon=True)
        self._listener.start()
        self._handing = threading.Thread(target=self._hand_out, name="fold-hand-out", daemon=True)

    def start(self, dataset: Dataset, face_set: str | None, plan: Sequence[Fold]) -> None:
        """Hand the folds to the processes (each made when first needed, held to one
        thread), one a free process."""
        self._args = (dataset, face_set)
        self._waiting = list(plan)
        self._handing.start()

    def results(
        self, plan: Sequence[Fold], here: Callable[[Fold], EvalResult | None]
    ) -> list[EvalResult | None]:
        """Each fold's result, in ``plan``'s order: the folds no process has begun run
        ``here``, the others are waited for.

        Raises:
            ModelError: a fold's process ended without a result (killed: out of memory?).
            DataError: as :func:`run_fold`.
        """
        mine = {}
        while (fold := self._take()) is not None:
            mine[fold.number] = here(fold)
        try:  # (every other fold is begun: handed out under the lock)
            return [mine[f.number] if f.number in mine else self._begun[f.number].result()
                    for f in plan]  # fmt: skip
        except BrokenProcessPool:
            raise ModelError(
                "a process of the leave-photos-out check ended without its figures (out of "
                "memory? each holds one calibration's photos): check with fewer at once "
                "(--jobs 1)"
            ) from None

    def close(self, stop: bool = False) -> None:
        """End the processes (folds not begun are dropped; with ``stop``, those running
        too: the model's calibration failed) and the threads."""
        with self._lock:
            self._waiting.clear()
            if stop:
                for pid in self._pids:
                    with suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGTERM)
        self._free.release()  # (the hand-out thread, waiting for a free process, ends)
        if self._handing.is_alive():
            self._handing.join()
        self._pool.shutdown(wait=True, cancel_futures=True)
        self._queue.put(None)
        self._listener.join()
        self._queue.close()

    def _take(self) -> Fold | None:
        with self._lock:
            return self._waiting.pop(0) if self._waiting else None

    def _hand_out(self) -> None:
        while True:
            self._free.acquire()
            with self._lock:
                if not self._waiting:
                    return
                fold = self._waiting.pop(0)
                try:
                    with _one_thread_environment():
                        future = self._pool.submit(_worker_fold, self._work, *self._args, fold)
                except BrokenProcessPool as exc:  # (a process died: the pool takes no more)
                    future = Future()
                    future.set_exception(exc)
                self._begun[fold.number] = future
            future.add_done_callback(lambda _: self._free.release())

    def _listen(self) -> None:
        while (message := self._queue.get()) is not None:
            if message[0] == "pid":  # a process started (the pool keeps its own private)
                with self._lock:
                    self._pids.append(message[1])
            else:
                self._progress(*message[1:])


class CheckProgress:
    """One progress over the model's calibration (part 0) and its folds' (parts 1, 2, ...),
    which may report at once from threads of their own: the steps done in all, of all."""

    def __init__(
        self, progress: Progress, dataset: Dataset, plan: Sequence[Fold], folds: int
    ) -> None:
        self._progress = progress
        self._steps = {0: calibration_steps(len(within_budget(dataset).dataset.items))}
        for fold in plan:
            learned = within_budget(dataset.subset(fold.train)).dataset
            self._steps[fold.number] = calibration_steps(len(learned.items))
        self._folds = folds
        self._done = dict.fromkeys(self._steps, 0)
        self._lock = threading.Lock()

    def part(self, number: int) -> Progress:
        """The progress callback of the model (0) or of fold ``number``."""
        return lambda done, total, what: self.of_fold(number, done, total, what)

    def of_fold(self, number: int, done: int, total: int, what: str) -> None:
        """Part ``number`` has done ``done`` of its steps (its ``total`` is known already)."""
        label = f"checking: leaving photos out ({number}/{self._folds})" if number else ""
        with self._lock:
            self._done[number] = min(done, self._steps[number])
            grand = sum(self._steps.values())
            said = f"{label or 'calibrating'}: {what}"
            self._progress(min(grand, sum(self._done.values())), grand, said)

    def finish(self, what: str) -> None:
        """Every part is done: the whole bar, ``what`` said (unless the parts' steps made
        it whole already: a part may end with fewer steps than it was counted for)."""
        with self._lock:
            grand = sum(self._steps.values())
            if sum(self._done.values()) < grand:
                self._progress(grand, grand, what)


@contextmanager
def _one_thread_environment() -> Iterator[None]:
    """This process's environment asks for one thread while processes are made."""
    before = {name: os.environ.get(name) for name in _ONE_THREAD}
    os.environ.update(dict.fromkeys(_ONE_THREAD, "1"))
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


_worker_queue: Any = None  # in a fold's process: where its progress goes


def _worker_start(queue: Any) -> None:
    import cv2

    global _worker_queue
    _worker_queue = queue
    queue.put(("pid", os.getpid()))
    cv2.setNumThreads(1)


def _worker_fold(
    work: FoldWork, dataset: Dataset, face_set: str | None, fold: Fold
) -> EvalResult | None:
    def progress(done: int, total: int, what: str) -> None:
        _worker_queue.put(("progress", fold.number, done, total, what))

    return work(dataset, face_set, fold, progress)
