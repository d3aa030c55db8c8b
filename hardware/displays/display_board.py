"""Every display of the table (:class:`DisplayBoard`): draws a view on each open one,
sending only what changed, and drops a display that fails mid-game."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable

from hardware.displays.companion import CompanionView
from hardware.displays.device_config import DisplayConfig
from hardware.displays.errors import DisplayUnavailableError
from hardware.displays.i2c_bus import BusPool
from hardware.displays.luma_open import TableDisplay, open_display
from hardware.displays.model import Fault, TableView

log = logging.getLogger(__name__)
FAILED_KEPT = 16
"""The last failures kept in :attr:`DisplayBoard.failed` (a connector that flaps all
evening would make the list grow without end)."""


class DisplayBoard:
    """Every display of the table: draws each view on all, drops those that fail
    (they become :attr:`missing`, shown as :meth:`faults`, retried by :meth:`reopen`).

    A context manager; :meth:`close` blanks and releases everything (idempotent).
    """

    def __init__(
        self,
        displays: Iterable[TableDisplay],
        pool: BusPool | None = None,
        missing: Iterable[tuple[DisplayConfig, DisplayUnavailableError]] = (),
    ) -> None:
        self.displays: list[TableDisplay] = list(displays)
        self.failed: list[DisplayUnavailableError] = []
        self._missing: dict[str, tuple[DisplayConfig, DisplayUnavailableError]] = {
            cfg.name: (cfg, err) for cfg, err in missing
        }
        self._pool = pool
        self._last_view: TableView | CompanionView | None = None
        self._refreshed = 0  # refreshes so far: whose turn the next one is

    @classmethod
    def open(cls, configs: Iterable[DisplayConfig], pool: BusPool | None = None) -> DisplayBoard:
        """Open every display that can be; the others are :attr:`missing` and can be retried."""
        pool = pool or BusPool()
        opened: list[TableDisplay] = []
        missing: list[tuple[DisplayConfig, DisplayUnavailableError]] = []
        for cfg in configs:
            try:
                opened.append(open_display(cfg, pool))
            except DisplayUnavailableError as exc:
                missing.append((cfg, _detached(exc)))
        board = cls(opened, pool, missing)
        board.failed = [err for _, err in missing]
        return board

    @property
    def missing(self) -> list[DisplayUnavailableError]:
        """Why each display that is not working now is missing (until :meth:`reopen` finds it)."""
        return [err for _, err in self._missing.values()]

    @property
    def missing_by_name(self) -> dict[str, DisplayUnavailableError]:
        """Why each missing display is missing, by display name."""
        return {name: err for name, (_, err) in self._missing.items()}

    def faults(self) -> tuple[Fault, ...]:
        """The missing displays as faults (source ``display``), for the view's error screen."""
        return tuple(Fault("display", str(err)) for err in self.missing)

    def reopen(self) -> list[str]:
        """Try the missing displays again (e.g. replugged); return the names that came back."""
        if self._pool is None:
            self._pool = BusPool()
        back = []
        for name, (cfg, _) in list(self._missing.items()):
            try:
                display = open_display(cfg, self._pool)
            except DisplayUnavailableError as exc:
                self._missing[name] = (cfg, _detached(exc))
                continue
            del self._missing[name]
            self.displays.append(display)
            back.append(name)
        return back

    def __enter__(self) -> DisplayBoard:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def update(self, view: TableView | CompanionView) -> int:
        """Draw ``view`` (the dice table's, or a companion mode's) on every display; return
        how many displays were sent anything.

        A display that fails is closed and removed; its error goes to :attr:`failed`.
        """
        self._last_view = view
        return self._each(lambda display: display.update(view))

    def refresh(self) -> int:
        """Send the next display in turn its start-up commands and the last view whole
        again: one that lost power for a moment is lit again (:meth:`TableDisplay.reinit`).
        One a call, as a whole frame of four screens at the Pi's default 100 kHz holds the
        loop some 400 ms. Returns how many were sent a frame (0 or 1)."""
        if not self.displays:
            return 0
        view, turn = self._last_view, self.displays[self._refreshed % len(self.displays)]
        self._refreshed += 1

        def again(display: TableDisplay) -> bool:
            display.reinit()
            return view is not None and display.update(view)

        return self._each(again, [turn])

    def _each(
        self, send: Callable[[TableDisplay], bool], displays: list[TableDisplay] | None = None
    ) -> int:
        """``send`` to each of ``displays`` (None: every display); one that fails is
        closed, dropped and said."""
        sent = 0
        for display in list(self.displays) if displays is None else displays:
            try:
                sent += send(display)
            except DisplayUnavailableError as exc:
                exc = _detached(exc)
                # said as it happens (its return was logged, its loss not)
                log.warning("display %r stopped answering: %s (retried until it is back)",
                            display.config.name, exc)  # fmt: skip
                self.failed = [*self.failed[1 - FAILED_KEPT :], exc]
                self._missing[display.config.name] = (display.config, exc)
                self.displays.remove(display)
                display.close()
        return sent

    @property
    def bytes_sent(self) -> dict[str, int]:
        """Bytes sent so far per display name."""
        return {d.config.name: d.bytes_sent for d in self.displays}

    def close(self) -> None:
        """Blank and release every display and close the buses (idempotent)."""
        for display in self.displays:
            display.close()
        if self._pool is not None:
            self._pool.close()


def _detached(exc: DisplayUnavailableError) -> DisplayUnavailableError:
    """``exc`` without its traceback and the luma error it replaced: kept for its message,
    it must not keep their frames alive (the failed device, the previous error of a
    :meth:`DisplayBoard.reopen` loop, and so on for as long as a display keeps failing)."""
    exc.__context__ = exc.__cause__ = None
    return exc.with_traceback(None)
