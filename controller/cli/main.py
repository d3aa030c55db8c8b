"""The ``toptable`` command line: one entry point, subcommands registered by module.

Each area owns a module with a ``register(subparsers)`` function that adds its
subcommands; every subcommand sets ``func(args) -> int``. Errors the project
raises on purpose (:class:`~controller.core.errors.TopTableError`) become one clear
line on stderr and exit code 2; anything else is a bug and keeps its traceback. Output
cut short by its reader (``toptable dice eval ... | head``) ends the command quietly.
"""

from __future__ import annotations

import argparse
import difflib
import errno
import importlib
import os
import re
import select
import sys
from collections.abc import Mapping, Sequence

from controller import __version__
from controller.cli.flag_needs import check_needs
from controller.core.errors import TopTableError
from controller.core.quoting import NAME_LIMIT, printable
from controller.gamedata import ENV_VAR

# The modules that add subcommands, in the order their commands are listed.
COMMAND_MODULES: tuple[str, ...] = (
    "controller.cli.rules",  # data check, roll, combat
    "controller.cli.game",  # simulate, game export
    "controller.cli.companion",  # companion MODE replay
    "controller.cli.advisor",  # advise, odds
    "controller.cli.dice",  # dice calibrate/eval/read/capture
    "controller.cli.board",  # board sim/watch/stress/map
    "controller.cli.firmware",  # firmware deploy
    "controller.cli.screens",  # screens
    "controller.cli.daemon",  # run, demo
    "controller.cli.scoreboard",  # scoreboard
    "controller.cli.config",  # config check
    "controller.cli.bench",  # bench
    "controller.cli.service",  # service install/identify-board/files
)

EXIT_USAGE = 2
EXIT_PIPE_CLOSED = 128 + 13  # what a shell reports for a command ended by SIGPIPE


class _Parser(argparse.ArgumentParser):
    """argparse that exits with code 2 and one line, like our own errors."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_USAGE, f"{self.prog}: error: {one_line(message)}\n")


LONG_WORD = re.compile(rf"\S{{{NAME_LIMIT + 1},}}")


def one_line(message: str) -> str:
    """argparse's own message (an invalid choice, arguments it does not know) with the
    user's text in it made safe: what does not print escaped (a newline would begin a second
    line), and a word longer than a name may be (a path is one) cut to its start and size,
    as :func:`~controller.core.quoting.printable` cuts a name."""
    return LONG_WORD.sub(lambda m: printable(m.group()), printable(message, limit=None))


def build_parser() -> argparse.ArgumentParser:
    """The full parser with every registered subcommand."""
    parser = _Parser(
        prog="toptable",
        description="The Tournament of Power dice table: rules, dice camera, board, screens, daemon.",
    )
    parser.add_argument("--version", action="version", version=f"toptable {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


KNOWN_VARIABLES = frozenset(
    {ENV_VAR}  # the data folder
    | {  # install.sh and uninstall.sh (which run toptable service install/remove)
        "TOPTABLE_PREFIX",
        "TOPTABLE_CONFIG_DIR",
        "TOPTABLE_UNIT_DIR",
        "TOPTABLE_RULES_DIR",
        "TOPTABLE_MODULES_DIR",
        "TOPTABLE_STATE_DIR",
    }
)
"""The environment variables named TOPTABLE_* that toptable or its scripts read."""
PREFIX = "TOPTABLE_"


def unknown_variables(env: Mapping[str, str]) -> list[str]:
    """A warning for each variable named like toptable's that none reads (a mistyped
    ``TOPTABLE_DAT`` would otherwise leave the demo data in play without a word)."""
    out = []
    for name in sorted(env):
        if name.startswith(PREFIX) and name not in KNOWN_VARIABLES:
            known = sorted(k.removeprefix(PREFIX) for k in KNOWN_VARIABLES)
            near = difflib.get_close_matches(name.removeprefix(PREFIX), known, n=1)
            hint = f" (did you mean ${PREFIX}{near[0]}?)" if near else ""
            out.append(
                f"toptable: warning: ${printable(name)} is set, but toptable reads no such "
                f"variable{hint}"
            )
    return out


PATH_ERRORS = frozenset({errno.ENAMETOOLONG, errno.ELOOP, errno.ENOTDIR, errno.EISDIR})
"""The errors of a path that names no file it could (not of the disk or of the moment)."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the process exit code."""
    for warning in unknown_variables(os.environ):
        print(warning, file=sys.stderr)
    parser = build_parser()
    try:
        try:
            args = parser.parse_args(list(argv) if argv is not None else None)
            check_needs(args)
        except SystemExit as exc:  # argparse printed its one line (or the help) and exits
            return exc.code if isinstance(exc.code, int) else EXIT_USAGE
        try:
            code: int = args.func(args)
        except TopTableError as exc:
            print(f"toptable: error: {exc}", file=sys.stderr)
            return EXIT_USAGE
        except OSError as exc:
            if exc.errno not in PATH_ERRORS or exc.filename is None:
                raise  # a device, a socket, a full or failing card: not the input's
            # a path no file can have, read from a file (pathlib's exists and is_* raise
            # for these in Python 3.11): one line naming it, as for other bad input
            print(
                f"toptable: error: {printable(str(exc.filename))}: {exc.strerror}", file=sys.stderr
            )
            return EXIT_USAGE
        except KeyboardInterrupt:
            return 130
        return code
    except BrokenPipeError:
        if not _stdout_closed():
            raise  # a socket or a child's pipe: a bug, with its traceback
        return EXIT_PIPE_CLOSED


def _stdout_closed() -> bool:
    """Whether standard output is a pipe whose reader has gone (``poll`` reports an error
    on its write end, as Linux does once the read end is closed); if so, it is pointed at
    the null device, so that Python's own flush at exit does not fail again (the recipe
    of the "Note on SIGPIPE" in the Python documentation of ``signal``)."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # replaced by an object without a file
        return False
    poller = select.poll()
    poller.register(fd, select.POLLOUT)
    if not any(events & select.POLLERR for _, events in poller.poll(0)):
        return False
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    return True


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
