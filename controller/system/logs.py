"""Logging to stderr, in the journald style when systemd runs us.

Under systemd (``$INVOCATION_ID`` set, or ``$JOURNAL_STREAM`` naming our
stderr) the journal stamps each line itself, so lines carry no timestamp and
start with a ``<N>`` syslog priority that journald reads as the level
(``journalctl -p warning`` then works); every line of a multi-line message (a
traceback) gets the prefix. Elsewhere lines start with a timestamp.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Mapping
from typing import TextIO

from controller.core.quoting import short_repr
from controller.system.settings import LogLevel

# logging level -> syslog priority (sd-daemon.h: SD_ERR=3, SD_WARNING=4, SD_INFO=6, SD_DEBUG=7)
PRIORITIES = (
    (logging.CRITICAL, 2),
    (logging.ERROR, 3),
    (logging.WARNING, 4),
    (logging.INFO, 6),
)
DEBUG_PRIORITY = 7
LEVELS: dict[str, int] = {  # keyed by the [log] level names
    LogLevel.DEBUG: logging.DEBUG,
    LogLevel.INFO: logging.INFO,
    LogLevel.WARNING: logging.WARNING,
    LogLevel.ERROR: logging.ERROR,
}
_NOISY = ("PIL",)  # libraries whose debug lines drown ours


def syslog_priority(levelno: int) -> int:
    """The syslog priority for a logging level (custom levels round down to the next one)."""
    for level, priority in PRIORITIES:
        if levelno >= level:
            return priority
    return DEBUG_PRIORITY


def under_journal(env: Mapping[str, str] | None = None, stream: TextIO | None = None) -> bool:
    """Whether stderr goes to systemd's journal (or systemd started us): no timestamps then.

    ``$JOURNAL_STREAM`` ("device:inode") counts only when it names ``stream``
    (default stderr), as systemd documents; ``$INVOCATION_ID`` counts always.
    """
    source = os.environ if env is None else env
    if source.get("INVOCATION_ID"):
        return True
    journal = source.get("JOURNAL_STREAM", "")
    if not journal:
        return False
    try:
        dev, ino = (int(part) for part in journal.split(":"))
        st = os.fstat((stream or sys.stderr).fileno())
    except (ValueError, OSError, AttributeError):
        return True  # cannot tell (a stream without a file descriptor): trust the variable
    return (st.st_dev, st.st_ino) == (dev, ino)


class JournalFormatter(logging.Formatter):
    """``<N>logger: message``, the prefix repeated on every line."""

    def __init__(self) -> None:
        super().__init__("%(name)s: %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        prefix = f"<{syslog_priority(record.levelno)}>"
        return "\n".join(prefix + line for line in super().format(record).splitlines())


def level_number(level: str | int) -> int:
    """A logging level from a config name ("debug"...) or number.

    Raises:
        ValueError: an unknown level name.
    """
    if isinstance(level, int):
        return level
    try:
        return LEVELS[level.lower()]
    except KeyError:
        raise ValueError(
            f"unknown log level {short_repr(level)}: expected one of {', '.join(LEVELS)}"
        ) from None


def setup_logging(
    level: str | int = "info",
    stream: TextIO | None = None,
    env: Mapping[str, str] | None = None,
) -> logging.Handler:
    """Send the root logger to ``stream`` (stderr) at ``level``, journald style under systemd.

    Calling it again replaces the handler it installed before (not anyone else's).

    Raises:
        ValueError: an unknown level name.
    """
    number = level_number(level)
    out = stream if stream is not None else sys.stderr
    handler = logging.StreamHandler(out)
    if under_journal(env, out):
        handler.setFormatter(JournalFormatter())
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)-7s %(name)s: %(message)s"))
    handler.set_name("toptable")
    root = logging.getLogger()
    for old in list(root.handlers):
        if old.get_name() == "toptable":
            root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(number)
    for name in _NOISY:
        logging.getLogger(name).setLevel(max(number, logging.INFO))
    return handler
