"""What the daemon asks of the table of every game kind (:class:`GameTable`).

The dice game's :class:`~controller.table.controller.TableController` and a companion
mode's :class:`~controller.table.companion.CompanionTable` both are one: the daemon
and the demo run either on the same loop and devices, and talk to it only through
these methods and the one callback it calls (``on_next_game``), never by writing its
other fields.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

from controller.core.kinds import GameKind


class GameTable(Protocol):
    """A table keeping one game: what systemd is told, the devices' faults, the pause."""

    on_next_game: Callable[[], None] | None
    """Called when CONFIRM is held once the game is over (the daemon stops the table, to
    start again with the next game); None: the table says how the next game starts."""

    @property
    def kind(self) -> GameKind:
        """The game kept."""
        ...

    def status_line(self) -> str:
        """A short line saying where the game is (systemd's STATUS=)."""
        ...

    def set_device_faults(self, faults: Mapping[str, str]) -> None:
        """What the devices report now (source -> message, replaced whole); shown."""
        ...

    def pause(self) -> Any:
        """The table stops: the screens say so until it starts again."""
        ...
