"""``toptable run`` in this process, as systemd sees it through its notify socket: a
finished game gives way to the next as the table starts, holding CONFIRM at game over
stops the table (systemd starts it again for the next game), and a table halted by its
journal stops with the error (exit 2) and says why in its last STATUS=."""

from __future__ import annotations

import logging
import os
import signal
import socket
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from controller.config import load_config
from controller.core.errors import TableHaltedError
from controller.core.events import Event
from controller.daemon import run as run_module
from controller.daemon.journals import resume_or_start
from controller.daemon.loop import TableLoop
from controller.daemon.tables import RunningTable
from controller.daemon.tables import open_table as real_open_table
from controller.game.session import TableGame
from controller.game.simulate import play_game
from controller.game.state import Phase
from tests.daemon.helpers import messages, simulated_config

pytestmark = pytest.mark.timeout(120)


@dataclass(frozen=True)
class JournalFailed(Event):
    """Stands for a journal write failing in a handler (a full card)."""


@dataclass
class Run:
    """What ``run_table`` told systemd and returned (or raised)."""

    said: list[str]
    result: int | Exception
    forced: bool  # the test had to send SIGTERM: the table did not stop by itself


@pytest.fixture
def restored() -> Iterator[None]:
    """run_table sets the signal handlers and the root logger: put them back after."""
    handlers = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGINT)}
    root = logging.getLogger()
    kept, level = list(root.handlers), root.level
    yield
    for signum, handler in handlers.items():
        signal.signal(signum, handler)
    for added in [h for h in root.handlers if h not in kept]:
        root.removeHandler(added)
    root.setLevel(level)


def _run(
    config: Path,
    folder: Path,
    monkeypatch: pytest.MonkeyPatch,
    act: Callable[[TableLoop, RunningTable], None],
) -> Run:
    """``run_table(config)`` with a notify socket; ``act`` runs once READY=1 is said (from
    another thread); SIGTERM is sent if STOPPING=1 does not follow within 20 s."""
    address = str(folder / "notify.sock")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(address)
    monkeypatch.setenv("NOTIFY_SOCKET", address)
    monkeypatch.delenv("WATCHDOG_USEC", raising=False)
    opened: dict[str, Any] = {}

    def open_table(*args: Any, **kwargs: Any) -> Any:
        running = real_open_table(*args, **kwargs)
        loop: TableLoop = args[1]

        def journal_failed(_: Event) -> None:
            raise TableHaltedError("the journal cannot be written: disk full")

        loop.on(JournalFailed, journal_failed)
        opened.update(loop=loop, running=running)
        return running

    monkeypatch.setattr(run_module, "open_table", open_table)
    said: list[str] = []
    forced = threading.Event()

    def systemd() -> None:
        said.extend(messages(sock, "READY=1", 60))
        if "loop" in opened:
            act(opened["loop"], opened["running"])
        said.extend(got := messages(sock, "STOPPING=1", 20))
        if not any("STOPPING=1" in m for m in got):
            forced.set()
            os.kill(os.getpid(), signal.SIGTERM)
            said.extend(messages(sock, "STOPPING=1", 20))

    watcher = threading.Thread(target=systemd)
    watcher.start()
    try:
        result: int | Exception = run_module.run_table(config)
    except TableHaltedError as exc:
        result = exc
    finally:
        watcher.join()
        sock.close()
    return Run(said, result, forced.is_set())


def _terminate(loop: TableLoop, running: RunningTable) -> None:
    os.kill(os.getpid(), signal.SIGTERM)


@pytest.mark.usefixtures("restored")
def test_a_finished_game_gives_way_to_the_next_as_the_table_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """systemd started the table again after its game ended: the next game is played."""
    config = simulated_config(tmp_path)
    cfg = load_config(config)
    with resume_or_start(cfg, seed=3) as held:
        assert isinstance(held, TableGame)
        play_game(held.config, held.data, 3, submit=held.submit)
        assert held.state.phase is Phase.OVER
        first = held.journal.game_id
    done = _run(config, tmp_path, monkeypatch, _terminate)
    assert done.result == 0
    ready = [m for m in done.said if "READY=1" in m]
    assert ready and "STATUS=round 1/10, Player 1: first player" in ready[0], done.said
    assert (tmp_path / f"journal-{first[:12]}.sqlite").exists()


@pytest.mark.usefixtures("restored")
def test_the_next_game_asked_at_game_over_stops_the_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Holding CONFIRM at game over asks for the next game: the table stops cleanly by
    itself (exit 0), and systemd's Restart=always starts it on the next game."""

    def next_game(loop: TableLoop, running: RunningTable) -> None:
        on_next_game = running.table.on_next_game
        assert on_next_game is not None
        on_next_game()

    done = _run(simulated_config(tmp_path), tmp_path, monkeypatch, next_game)
    assert (done.result, done.forced) == (0, False)
    assert any("STOPPING=1" in m for m in done.said), done.said


@pytest.mark.usefixtures("restored")
def test_a_table_halted_by_its_journal_stops_with_the_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A journal that cannot be written halts the table: STOPPING=1 says why, and run
    raises it (the CLI's one line, exit 2: RestartPreventExitStatus=2, no restart loop)."""

    def journal_fails(loop: TableLoop, running: RunningTable) -> None:
        loop.post(JournalFailed())

    done = _run(simulated_config(tmp_path), tmp_path, monkeypatch, journal_fails)
    assert isinstance(done.result, TableHaltedError), done.result
    assert str(done.result) == "the journal cannot be written: disk full"
    assert not done.forced
    stopping = [m for m in done.said if "STOPPING=1" in m]
    assert stopping and "STATUS=the journal cannot be written: disk full" in stopping[0]
