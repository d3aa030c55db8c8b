"""Helpers for testing ``toptable run``: a simulated table's config in a temp folder, and
``toptable run`` under a systemd notify socket."""

from __future__ import annotations

import os
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import cv2

from controller.bench.kill import toptable
from controller.gamedata import DEMO_DIR
from vision.synth.scenes import Renderer


def simulated_config(folder: Path, players: int = 2, camera: str | None = None) -> Path:
    """The demo config with absolute paths, its journal in ``folder``, and a still camera
    (a folder holding one picture of the empty tray) unless ``camera`` replaces the section."""
    tray = folder / "tray"
    tray.mkdir(exist_ok=True)
    cv2.imwrite(str(tray / "empty.png"), Renderer(seed=1).render([]))
    text = (DEMO_DIR / "config.toml").read_text(encoding="utf-8")
    text = text.replace('data_dir = "."', f'data_dir = "{DEMO_DIR}"')
    text = text.replace('layout = "board.toml"', f'layout = "{DEMO_DIR / "board.toml"}"')
    text = text.replace(
        'journal = "~/.local/state/toptable/demo-journal.sqlite"',
        f'journal = "{folder / "journal.sqlite"}"',
    )
    text = text.replace("players = 2", f"players = {players}")
    section = camera or f'[camera]\nsource = "folder"\npath = "{tray}"\n'
    start = text.index("[camera]")
    end = text.index("[board]")
    text = text[:start] + section + "\n" + text[end:]
    path = folder / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


@contextmanager
def run_under_systemd(
    config: Path, folder: Path
) -> Iterator[tuple[subprocess.Popen[str], socket.socket]]:
    """``toptable run --config CONFIG`` with a notify socket in ``folder`` (its datagrams
    read with :func:`messages`) and a 2 s watchdog, as systemd starts it; the child is
    killed and reaped when the block ends, whatever happened."""
    address = str(folder / "notify.sock")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(address)
    env = {**os.environ, "NOTIFY_SOCKET": address, "WATCHDOG_USEC": "2000000"}
    env["INVOCATION_ID"] = "test"
    proc = subprocess.Popen(
        toptable("run", "--config", str(config)),
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        yield proc, sock
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        sock.close()


def messages(sock: socket.socket, until: str, timeout: float) -> list[str]:
    """The notify datagrams received until one holds ``until`` (or ``timeout`` s passed)."""
    got: list[str] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        sock.settimeout(max(0.05, deadline - time.monotonic()))
        try:
            data = sock.recv(4096).decode()
        except TimeoutError:
            break
        got.append(data)
        if until in data:
            break
    return got
