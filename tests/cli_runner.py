"""``toptable ARGS`` run in the test's process: its exit code, stdout and stderr."""

from __future__ import annotations

import argparse
from collections.abc import Callable

import pytest

from controller.cli import main as cli

Run = Callable[..., tuple[int, str, str]]
"""Runs ``toptable *argv``; returns (exit code, stdout, stderr)."""


def cli_runner(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *modules: str
) -> Run:
    """The real ``main`` with only ``modules``' commands registered (e.g. ``controller.cli.advisor``)."""
    monkeypatch.setattr(cli, "COMMAND_MODULES", modules)

    def run(*argv: str) -> tuple[int, str, str]:
        try:
            code = cli.main(list(argv))
        except SystemExit as exc:  # argparse's usage errors
            code = int(exc.code or 0)
        out, err = capsys.readouterr()
        return code, out, err

    return run


def failing_parser(error: BaseException) -> argparse.ArgumentParser:
    """A parser whose only command raises ``error`` (for ``main``'s handling of it)."""

    def fail(_: argparse.Namespace) -> int:
        raise error

    parser = argparse.ArgumentParser()
    parser.set_defaults(func=fail)
    return parser
