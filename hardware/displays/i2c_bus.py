"""The I2C buses the displays share, opened once each, and the TCA9548A multiplexers on them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hardware.displays.errors import DisplayUnavailableError
from hardware.displays.settings import (
    MUX_ADDRESSES,
)

TCA9548A_DEFAULT_ADDRESS = MUX_ADDRESSES[0]


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
