"""Open the table's displays: luma.oled on I2C (direct or behind a TCA9548A),
SPI, luma's dummy device, or luma.emulator; report the ones that fail.

:class:`DisplayConfig` is this package's typed settings for one display, not a
file format: the one TOML schema is ``[[displays.screen]]`` in
:mod:`controller.config` (checked there, every problem named), mapped here by
``controller.daemon.devices.display_configs``; the defaults the two share (the
size, the I2C bus and address, the SPI pins) are taken from that schema.
:func:`open_displays` opens each one; a display that
is absent from the bus, a bus the user may not open, a pin already taken become
a :class:`DisplayUnavailableError` naming the display, bus, address or pins, and
the other displays go on. :class:`DisplayBoard` draws a view on every open
display, sending only what changed, and drops a display that fails mid-game.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from controller.config import MUX_ADDRESSES, ScreenConfig, ScreenRole
from hardware.displays.errors import DisplayConfigError, DisplayUnavailableError
from hardware.displays.model import Fault, TableView
from hardware.displays.push import CountingInterface, ScreenPusher
from hardware.displays.screens import pick_screen, render, screen_by_name

DRIVERS = ("ssd1306", "sh1106", "dummy", "pygame", "capture", "gifanim")
"""luma.oled drivers, luma.core's dummy device, and luma.emulator's three devices."""
INTERFACES = ("i2c", "spi")
TCA9548A_DEFAULT_ADDRESS = MUX_ADDRESSES[0]

_SCHEMA = ScreenConfig(role=ScreenRole.TURN)
"""The documented [[displays.screen]] defaults: the one source of the shared ones."""


@dataclass(frozen=True)
class DisplayConfig:
    """One display. ``screen`` is what it shows (alerts, if on, take it over)."""

    name: str
    driver: str = _SCHEMA.driver.value
    interface: str = _SCHEMA.interface.value
    width: int = _SCHEMA.width
    height: int = _SCHEMA.height
    rotate: int = _SCHEMA.rotate
    bus: int = _SCHEMA.bus
    address: int = _SCHEMA.address
    mux_address: int | None = None
    mux_channel: int | None = None
    spi_port: int = 0
    spi_device: int = _SCHEMA.spi_device
    gpio_dc: int = _SCHEMA.gpio_dc
    gpio_rst: int = _SCHEMA.gpio_reset
    spi_speed_hz: int = 8_000_000
    screen: str = _SCHEMA.role.value
    alerts: bool = True
    output: str = ""
    """File (gifanim) or file template (capture) for the emulators."""

    def __post_init__(self) -> None:
        """Raises: DisplayConfigError (a driver or interface this package does not know),
        UnknownScreenError (no such screen)."""
        if self.driver not in DRIVERS:
            raise DisplayConfigError(
                f"display {self.name!r}: driver {self.driver!r} is not one of {', '.join(DRIVERS)}"
            )
        if self.interface not in INTERFACES:
            raise DisplayConfigError(
                f"display {self.name!r}: interface {self.interface!r} is not one of "
                f"{', '.join(INTERFACES)}"
            )
        screen_by_name(self.screen)

    def where(self) -> str:
        """Where the display is wired, for messages (bus, address, mux channel or SPI pins)."""
        kind = f"{self.driver} {self.width}x{self.height}"
        if self.driver in ("dummy", "pygame", "capture", "gifanim"):
            return f"display {self.name!r} ({kind})"
        if self.interface == "spi":
            return (
                f"display {self.name!r} ({kind}) on SPI port {self.spi_port} device "
                f"{self.spi_device} (DC GPIO{self.gpio_dc}, RST GPIO{self.gpio_rst})"
            )
        text = (
            f"display {self.name!r} ({kind}) on I2C bus {self.bus} at address 0x{self.address:02X}"
        )
        if self.mux_channel is not None:
            mux = self.mux_address if self.mux_address is not None else TCA9548A_DEFAULT_ADDRESS
            text += f" behind TCA9548A 0x{mux:02X} channel {self.mux_channel}"
        return text


class Tca9548a:
    """A TCA9548A I2C multiplexer on an open bus: :meth:`select` writes the channel mask."""

    def __init__(self, bus: Any, bus_number: int, address: int = TCA9548A_DEFAULT_ADDRESS) -> None:
        self.bus = bus
        self.bus_number = bus_number
        self.address = address
        self.selects = 0

    def select(self, channel: int) -> None:
        """Route the bus to ``channel`` (0..7) by writing ``1 << channel`` to the mux.

        Raises:
            DisplayUnavailableError: the mux does not answer (absent, unplugged).
        """
        try:
            self.bus.write_byte(self.address, 1 << channel)
        except OSError as exc:
            raise DisplayUnavailableError(
                f"TCA9548A multiplexer not answering on I2C bus {self.bus_number} at address "
                f"0x{self.address:02X} ({exc.strerror or exc})"
            ) from None
        self.selects += 1


class MuxChannelInterface:
    """A luma serial interface for one display behind a TCA9548A.

    Wraps luma's ``i2c`` interface: every transfer first selects the display's
    channel on the mux, so displays that share an address on different channels
    never see each other's bytes.
    """

    def __init__(self, inner: Any, mux: Tca9548a, channel: int) -> None:
        self.inner = inner
        self.mux = mux
        self.channel = channel

    def command(self, *cmd: int) -> None:
        """Select the channel, then send command bytes."""
        self.mux.select(self.channel)
        self.inner.command(*cmd)

    def data(self, data: Any) -> None:
        """Select the channel, then send data bytes."""
        self.mux.select(self.channel)
        self.inner.data(data)

    def cleanup(self) -> None:
        """Clean up the wrapped interface (the shared bus is closed by its owner)."""
        self.inner.cleanup()


BusOpener = Callable[[int], Any]


def _smbus(number: int) -> Any:
    import smbus2

    return smbus2.SMBus(number)


class BusPool:
    """Opens each I2C bus (and each mux on it) once, shared by every display on it."""

    def __init__(self, opener: BusOpener = _smbus) -> None:
        self._opener = opener
        self._buses: dict[int, Any] = {}
        self._muxes: dict[tuple[int, int], Tca9548a] = {}

    def bus(self, number: int) -> Any:
        """The open bus ``/dev/i2c-N``.

        Raises:
            DisplayUnavailableError: the bus device is missing or not permitted.
        """
        if number not in self._buses:
            path = f"/dev/i2c-{number}"
            try:
                self._buses[number] = self._opener(number)
            except PermissionError:
                raise DisplayUnavailableError(
                    f"permission denied on I2C bus {number} ({path}): add the user to the "
                    "'i2c' group"
                ) from None
            except FileNotFoundError:
                raise DisplayUnavailableError(
                    f"I2C bus {number} not found ({path}): enable I2C (raspi-config) or fix 'bus'"
                ) from None
            except OSError as exc:
                raise DisplayUnavailableError(
                    f"cannot open I2C bus {number} ({path}): {exc.strerror or exc}"
                ) from None
        return self._buses[number]

    def mux(self, number: int, address: int) -> Tca9548a:
        """The shared :class:`Tca9548a` at ``address`` on bus ``number``.

        Raises:
            DisplayUnavailableError: the bus cannot be opened.
        """
        key = (number, address)
        if key not in self._muxes:
            self._muxes[key] = Tca9548a(self.bus(number), number, address)
        return self._muxes[key]

    def close(self) -> None:
        """Close every bus opened (idempotent)."""
        buses, self._buses = self._buses, {}
        self._muxes = {}
        for bus in buses.values():
            close = getattr(bus, "close", None)
            if close is not None:
                close()


@dataclass
class TableDisplay:
    """An open display: its config, luma device, byte counter and change-only pusher."""

    config: DisplayConfig
    device: Any
    counter: CountingInterface | None
    pusher: ScreenPusher
    last_screen: str = ""
    closed: bool = field(default=False)

    @property
    def bytes_sent(self) -> int:
        """Bytes sent to this display so far (0 for devices with no bus)."""
        return self.counter.bytes_sent if self.counter is not None else 0

    def update(self, view: TableView) -> bool:
        """Draw the screen this display should show for ``view``; False if nothing was sent.

        Raises:
            DisplayUnavailableError: the display stopped answering (names where it is).
        """
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

    def close(self) -> None:
        """Blank the display and release it (idempotent; errors on the way are ignored)."""
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


def _is_device_error(exc: BaseException) -> bool:
    try:
        import luma.core.error as luma_error
    except ImportError:  # pragma: no cover
        return isinstance(exc, OSError)
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
    try:
        if cfg.driver == "dummy":
            from luma.core.device import dummy

            device = dummy(mode="1", **size)
            return TableDisplay(cfg, device, None, ScreenPusher(device))
        if cfg.driver in ("pygame", "capture", "gifanim"):
            return _open_emulator(cfg, size)
        from luma.oled.device import sh1106, ssd1306

        counter = CountingInterface(serial if serial is not None else _serial_for(cfg, pool))
        driver = ssd1306 if cfg.driver == "ssd1306" else sh1106
        device = driver(counter, **size)
        return TableDisplay(cfg, device, counter, ScreenPusher(device))
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
        raise DisplayUnavailableError(f"{cfg.where()}: {_explain(exc)}") from None


def _explain(exc: BaseException) -> str:
    """A short reason for a luma or OS error, with a hint where one helps."""
    name = type(exc).__name__
    if name == "DeviceNotFoundError" or getattr(exc, "errno", None) in (errno.EREMOTEIO, errno.EIO):
        return f"no answer ({exc}): check the wiring and the address (i2cdetect)"
    if name == "DevicePermissionError" or isinstance(exc, PermissionError):
        return f"permission denied ({exc}): add the user to the 'i2c'/'spi'/'gpio' group"
    if (
        isinstance(exc, RuntimeError)
        or "in use" in str(exc).lower()
        or getattr(exc, "errno", None) == errno.EBUSY
    ):
        return f"pin or bus busy ({exc}): another program or display uses it"
    return str(exc) or name


def _open_emulator(cfg: DisplayConfig, size: dict[str, int]) -> TableDisplay:
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")  # no banner on stdout
    from luma.emulator import device as emulator

    common: dict[str, Any] = {"mode": "1", "transform": "none", "scale": 1, **size}
    if cfg.driver == "capture":
        device = emulator.capture(file_template=cfg.output or f"{cfg.name}_{{0:06}}.png", **common)
    elif cfg.driver == "gifanim":
        device = emulator.gifanim(filename=cfg.output or f"{cfg.name}.gif", duration=0.25, **common)
    else:
        common.update(transform="scale2x", scale=2)
        device = emulator.pygame(**common)
    device.persist = True  # closing keeps the last frame (no blank frame in a GIF or capture)
    return TableDisplay(cfg, device, None, ScreenPusher(device))


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
                missing.append((cfg, exc))
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
                self._missing[name] = (cfg, exc)
                continue
            del self._missing[name]
            self.displays.append(display)
            back.append(name)
        return back

    def __enter__(self) -> DisplayBoard:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def update(self, view: TableView) -> int:
        """Draw ``view`` on every display; return how many displays were sent anything.

        A display that fails is closed and removed; its error goes to :attr:`failed`.
        """
        sent = 0
        for display in list(self.displays):
            try:
                sent += display.update(view)
            except DisplayUnavailableError as exc:
                self.failed.append(exc)
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
