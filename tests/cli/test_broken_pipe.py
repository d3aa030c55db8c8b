"""Output cut short by its reader (``toptable ... | head``): the command ends quietly with
the shell's SIGPIPE code, and a broken pipe anywhere else keeps its traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from controller.cli import main as cli
from tests.cli_runner import failing_parser

ROOT = Path(__file__).resolve().parents[2]


def test_a_reader_gone_before_the_output_ends_the_command_quietly() -> None:
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the first line: every write fails
    try:
        done = subprocess.run(
            [sys.executable, "-m", "controller.cli.main", "data", "check"],
            cwd=ROOT, stdout=write_end, stderr=subprocess.PIPE, text=True, timeout=120,
        )  # fmt: skip
    finally:
        os.close(write_end)
    assert done.stderr == ""  # no traceback
    assert done.returncode == 141  # as a shell reports a command ended by SIGPIPE


def test_a_broken_pipe_that_is_not_the_output_keeps_its_traceback(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # a socket or a child's pipe closed under the command is a bug, not a reader gone
    read_end, write_end = os.pipe()
    healthy: Any = os.fdopen(write_end, "w")
    monkeypatch.setattr(sys, "stdout", healthy)
    monkeypatch.setattr(cli, "build_parser", lambda: failing_parser(BrokenPipeError(32, "x")))
    try:
        with pytest.raises(BrokenPipeError):
            cli.main([])
    finally:
        healthy.close()
        os.close(read_end)
