"""The ``[log]`` config section: how much the daemon logs.

The system package owns it because it owns the logging setup
(:func:`controller.system.logs.setup_logging` takes the level's value).
:func:`parse_log` reads the section for :mod:`controller.config`.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from controller.core.config_schema import Section, choice


class LogLevel(StrEnum):
    """The daemon's log level."""

    DEBUG = "debug"
    INFO = "info"
    WARNING = "warning"
    ERROR = "error"


@dataclass(frozen=True)
class LogConfig:
    """[log]."""

    level: LogLevel = LogLevel.INFO


def parse_log(s: Section) -> LogConfig:
    """The [log] section; its problems are noted in ``s``."""
    return LogConfig(level=s.get("level", LogConfig().level, choice(LogLevel)))
