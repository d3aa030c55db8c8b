"""Open one display as a luma device: luma.oled on I2C (direct or behind a TCA9548A),
SPI, luma's dummy device, or luma.emulator.

:func:`open_displays` opens each one; a display that is absent from the bus, a
bus the user may not open, a pin already taken become a
:class:`DisplayUnavailableError` naming the display, bus, address or pins, and
the other displays go on.

Closing a display (or failing to open one) releases its serial interface even when
the screen no longer answers, and takes back the exit hooks luma registered for it
(see :func:`_collect_exit_hooks`), so a display that keeps failing and is retried
leaks neither.
"""

from __future__ import annotations

import atexit
import errno
import os
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from hardware.displays import companion
from hardware.displays.device_config import DRIVERS, DisplayConfig
from hardware.displays.errors import DisplayUnavailableError
from hardware.displays.i2c_bus import TCA9548A_DEFAULT_ADDRESS, BusPool, MuxChannelInterface
from hardware.displays.model import TableView
from hardware.displays.push import CountingInterface, ScreenPusher
from hardware.displays.screens import pick_screen, render
from hardware.lgpio_errors import lgpio_error, pipe_problem


@dataclass
class TableDisplay:
    """An open display: its config, luma device, byte counter and change-only pusher."""

    config: DisplayConfig
    device: Any
    counter: CountingInterface | None
    pusher: ScreenPusher
    last_screen: str = ""
    closed: bool = field(default=False)
    exit_hooks: list[Callable[[], Any]] = field(default_factory=list)

    @property
    def bytes_sent(self) -> int:
        """Bytes sent to this display so far (0 for devices with no bus)."""
        return self.counter.bytes_sent if self.counter is not None else 0

    def update(self, view: TableView | companion.CompanionView) -> bool:
        """Draw the screen this display should show for ``view`` (the dice table's, or a
        companion mode's); False if nothing was sent.

        Raises:
            DisplayUnavailableError: the display stopped answering (names where it is).
        """
        if isinstance(view, companion.CompanionView):
            name = companion.screen_for(view, self.config.screen)
            image = companion.render(view, name, self.device.size)
        else:
            name = pick_screen(view, self.config.screen, self.config.alerts)
            image = render(view, name, self.device.size)
        try:
            sent = self.pusher.push(image)
        except DisplayUnavailableError as exc:  # e.g. its TCA9548A stopped answering
            raise DisplayUnavailableError(f"{self.config.where()}: {exc}") from None
        except Exception as exc:
            if not _is_device_error(exc):
                raise
            raise DisplayUnavailableError(f"{self.config.where()}: {exc}") from None
        self.last_screen = name
        return sent

    def reinit(self) -> None:
        """Send the driver's start-up commands again, and the next frame whole.

        A screen that lost power for a moment (its connector reseated, a dip of its 3.3 V)
        comes back dark, in its power-on addressing and with its memory blank, and writes
        to it still succeed: luma.oled 3.16.0 sends the init sequence and ``show()`` only in
        ``ssd1306.__init__`` and ``sh1106.__init__``. So that very ``__init__`` runs again
        on the device, over the same bus, without its ``clear()`` (no blank frame) and
        without registering its exit hook again. A device with no bus (dummy, emulators)
        has nothing to do.

        Raises:
            DisplayUnavailableError: the display stopped answering (names where it is).
        """
        if self.counter is None or self.closed:
            return
        device = self.device
        size = {"width": self.config.width, "height": self.config.height}
        persist = device.persist
        hooks: list[Callable[[], Any]] = []  # (the device's own exit hook is in exit_hooks)
        device.clear = lambda: None  # shadows the method for this call alone
        try:
            with _collect_exit_hooks(hooks):
                type(device).__init__(device, self.counter, rotate=self.config.rotate, **size)
        except Exception as exc:
            if not _is_device_error(exc):
                raise
            raise DisplayUnavailableError(f"{self.config.where()}: {exc}") from None
        finally:
            del device.clear
            device.persist = persist
            for hook in hooks:  # registered again by __init__: once is enough
                atexit.unregister(hook)
        self.pusher.forget()

    def keep_on_close(self) -> None:
        """Leave the last frame on the screen when it is closed (the pause, as the daemon
        stops): luma's ``persist``, and an SPI screen's DC and RESET lines left driven.
        luma.core 2.6.0's ``spi.cleanup`` hands them to ``RPi.GPIO.cleanup`` (rpi-lgpio
        0.6: an input with no pull, then freed), and a RESET line left floating may reset
        the screen blank; the process's exit releases the lines as they are."""
        self.device.persist = True
        if self.counter is not None and self.config.interface == "spi":
            self.counter.keep_lines = True

    def close(self) -> None:
        """Blank the display and release it (idempotent; errors on the way are ignored).

        luma.core 2.6.0's ``device.cleanup()`` runs ``hide()`` and ``clear()`` before
        ``serial_interface.cleanup()``: on a screen that stopped answering the first
        raises, so the interface (an SPI handle) is released here in any case. A
        shared I2C bus stays open: luma's ``i2c`` given ``bus=`` never closes it
        (``cleanup`` closes only a bus it opened); the :class:`BusPool` does.
        """
        if self.closed:
            return
        self.closed = True
        try:
            write = getattr(self.device, "write_animation", None)
            if write is not None:  # luma.emulator's gifanim otherwise writes only at exit
                write()
            self.device.cleanup()
        except Exception as exc:
            if not _is_device_error(exc):
                raise
        finally:
            _release(self.counter, self.exit_hooks)


def _release(counter: CountingInterface | None, exit_hooks: list[Callable[[], Any]]) -> None:
    """Release the serial interface (once: luma's cleanup may have done it) and forget the
    exit hooks luma registered for the device (it is closed: nothing is left to do at exit)."""
    try:
        if counter is not None:
            counter.cleanup()
    except Exception as exc:
        if not _is_device_error(exc):
            raise
    finally:
        for hook in exit_hooks:
            atexit.unregister(hook)
        exit_hooks.clear()


_HOOKS_LOCK = threading.Lock()


class _HookRecorder:
    """Stands in for the ``atexit`` module inside luma's modules: registers as ``atexit``
    does and keeps what the collecting thread registers."""

    def __init__(self, into: list[Callable[[], Any]]) -> None:
        self._into = into
        self._thread = threading.get_ident()

    def register(self, func: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        if threading.get_ident() == self._thread:
            self._into.append(func)
        return atexit.register(func, *args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(atexit, name)


@contextmanager
def _collect_exit_hooks(into: list[Callable[[], Any]]) -> Iterator[None]:
    """Collect into ``into`` the exit hooks luma registers while a device is made.

    luma.core 2.6.0's ``device.__init__`` registers a fresh closure per device
    (``atexit.register(shutdown_hook)``, which calls ``cleanup()``), and luma.emulator
    1.7.0's ``gifanim`` registers ``self.write_animation``: without taking them back,
    every device ever made, closed or not, stays referenced until exit. There is no
    way to find them later (``atexit`` has no listing), hence this: while the block
    runs, those modules' ``atexit`` is a recorder. If the block fails (a screen that
    does not answer its init sequence), the hooks are unregistered at once.
    """
    names = ("luma.core.device", "luma.emulator.device")  # imported by the caller first
    with _HOOKS_LOCK:
        patched = [
            module
            for module in map(sys.modules.get, names)
            if module is not None and getattr(module, "atexit", None) is atexit
        ]
        recorder = _HookRecorder(into)
        for module in patched:
            setattr(module, "atexit", recorder)  # noqa: B010 - a module attribute
        try:
            yield
        except BaseException:  # no device to close: its hooks go now
            for hook in into:
                atexit.unregister(hook)
            into.clear()
            raise
        finally:
            for module in patched:
                setattr(module, "atexit", atexit)  # noqa: B010


def _is_device_error(exc: BaseException) -> bool:
    """An OS error, a luma error, or lgpio's: luma's SPI interface sets its DC and RST
    pins up through ``RPi.GPIO`` (rpi-lgpio 0.6 ``setup``), which lets lgpio 0.2.2.0's
    ``lgpio.error`` through (e.g. "GPIO busy": another program holds the pin)."""
    try:
        import luma.core.error as luma_error
    except ImportError:  # pragma: no cover
        return isinstance(exc, OSError)
    held_error = lgpio_error()
    if held_error is not None and isinstance(exc, held_error):
        return True
    return isinstance(exc, OSError | luma_error.Error)


def _serial_for(cfg: DisplayConfig, pool: BusPool) -> Any:
    if cfg.interface == "spi":
        from luma.core.interface.serial import spi

        return spi(
            port=cfg.spi_port,
            device=cfg.spi_device,
            gpio_DC=cfg.gpio_dc,
            gpio_RST=cfg.gpio_rst,
            bus_speed_hz=cfg.spi_speed_hz,
        )
    from luma.core.interface.serial import i2c

    serial = i2c(bus=pool.bus(cfg.bus), address=cfg.address)
    if cfg.mux_channel is not None:
        mux_address = cfg.mux_address if cfg.mux_address is not None else TCA9548A_DEFAULT_ADDRESS
        return MuxChannelInterface(serial, pool.mux(cfg.bus, mux_address), cfg.mux_channel)
    return serial


def open_display(cfg: DisplayConfig, pool: BusPool, serial: Any = None) -> TableDisplay:
    """Open one display; ``serial`` replaces the bus interface (tests, benchmark).

    Raises:
        DisplayUnavailableError: the display, its bus, its mux or its pins are unavailable;
            the message says which, and where.
    """
    size = {"width": cfg.width, "height": cfg.height, "rotate": cfg.rotate}
    hooks: list[Callable[[], Any]] = []
    try:
        if cfg.driver == "dummy":
            from luma.core.device import dummy

            with _collect_exit_hooks(hooks):
                device = dummy(mode="1", **size)
            return TableDisplay(cfg, device, None, ScreenPusher(device), exit_hooks=hooks)
        if cfg.driver in ("pygame", "capture", "gifanim"):
            return _open_emulator(cfg, size)
        from luma.oled.device import sh1106, ssd1306

        counter = CountingInterface(serial if serial is not None else _serial_for(cfg, pool))
        driver = ssd1306 if cfg.driver == "ssd1306" else sh1106
        try:
            with _collect_exit_hooks(hooks):
                device = driver(counter, **size)  # the init sequence: a dead screen fails here
        except BaseException:
            _release(counter, hooks)  # an SPI handle, or a bus luma opened
            raise
        return TableDisplay(cfg, device, counter, ScreenPusher(device), exit_hooks=hooks)
    except DisplayUnavailableError as exc:
        raise DisplayUnavailableError(f"{cfg.where()}: {exc}") from None
    except ImportError as exc:
        raise DisplayUnavailableError(
            f"{cfg.where()}: needs the Python module {exc.name!r} "
            f"({'pip install toptable[emulator]' if cfg.driver in DRIVERS[3:] else 'not installed'})"
        ) from None
    except Exception as exc:
        if not _is_device_error(exc) and not isinstance(exc, RuntimeError):
            raise
        raise DisplayUnavailableError(f"{cfg.where()}: {_explain(exc, cfg)}") from None


def _explain(exc: BaseException, cfg: DisplayConfig) -> str:
    """A short reason for a luma or OS error, with a hint where one helps."""
    name = type(exc).__name__
    if name == "DeviceNotFoundError" and cfg.interface == "spi":
        # luma.core 2.6.0 serial.spi: spidev's open failing ENOENT (no /dev/spidevX.Y)
        return (
            f"no /dev/spidev{cfg.spi_port}.{cfg.spi_device} ({exc}): enable SPI (raspi-config) "
            "or fix 'spi_port'/'spi_device'"
        )
    if (no_pipe := pipe_problem(exc)) is not None:
        return no_pipe
    if name == "DeviceNotFoundError" or getattr(exc, "errno", None) in (errno.EREMOTEIO, errno.EIO):
        return f"no answer ({exc}): check the wiring and the address (i2cdetect)"
    if (
        name == "DevicePermissionError"
        or isinstance(exc, PermissionError)
        or "can not open gpiochip" in str(exc)  # lgpio's: the 'gpio' group is missing
    ):
        return f"permission denied ({exc}): add the user to the 'i2c'/'spi'/'gpio' group"
    if (
        isinstance(exc, RuntimeError)
        or "in use" in str(exc).lower()
        or "busy" in str(exc).lower()  # lgpio's "GPIO busy"
        or getattr(exc, "errno", None) == errno.EBUSY
    ):
        return f"pin or bus busy ({exc}): another program or display uses it"
    return str(exc) or name


def _open_emulator(cfg: DisplayConfig, size: dict[str, int]) -> TableDisplay:
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")  # no banner on stdout
    from luma.emulator import device as emulator

    common: dict[str, Any] = {"mode": "1", "transform": "none", "scale": 1, **size}
    hooks: list[Callable[[], Any]] = []
    with _collect_exit_hooks(hooks):
        if cfg.driver == "capture":
            template = cfg.output or f"{cfg.name}_{{0:06}}.png"
            device = emulator.capture(file_template=template, **common)
        elif cfg.driver == "gifanim":
            gif = cfg.output or f"{cfg.name}.gif"
            device = emulator.gifanim(filename=gif, duration=0.25, **common)
        else:
            common.update(transform="scale2x", scale=2)
            device = emulator.pygame(**common)
    device.persist = True  # closing keeps the last frame (no blank frame in a GIF or capture)
    return TableDisplay(cfg, device, None, ScreenPusher(device), exit_hooks=hooks)


def open_displays(
    configs: Iterable[DisplayConfig], pool: BusPool | None = None
) -> tuple[list[TableDisplay], list[DisplayUnavailableError]]:
    """Open every display that can be opened; return (open ones, one error per failure)."""
    pool = pool or BusPool()
    opened: list[TableDisplay] = []
    failed: list[DisplayUnavailableError] = []
    for cfg in configs:
        try:
            opened.append(open_display(cfg, pool))
        except DisplayUnavailableError as exc:
            failed.append(exc)
    return opened, failed
