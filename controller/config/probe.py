"""The OS calls the device checks make (:class:`DeviceProbe`); tests pass a fake one."""

from __future__ import annotations

import errno
import fcntl
import glob
import importlib.util
import os
import tempfile
from typing import Any

from vision.settings import CameraConfig
from vision.sources.delivery import measure_delivery
from vision.sources.source import open_source

I2C_SLAVE = 0x0703  # linux/i2c-dev.h: set the address of the next read/write


class DeviceProbe:
    """The OS calls the checks make. Every method raises OSError as the OS does."""

    def stat(self, path: str) -> os.stat_result:
        """``os.stat`` (follows symlinks)."""
        return os.stat(path)

    def open_rw(self, path: str) -> None:
        """Open read-write without blocking, then close."""
        fd = os.open(path, os.O_RDWR | os.O_NONBLOCK | os.O_NOCTTY)
        os.close(fd)

    def writable_dir(self, path: str) -> bool:
        """Whether this process can create a file in ``path``: tried, not asked of the
        permission bits (root passes those everywhere, /proc and read-only mounts too)."""
        try:
            with tempfile.TemporaryFile(dir=path):
                return True
        except OSError:
            return False

    def glob(self, pattern: str) -> list[str]:
        """Sorted paths matching ``pattern``."""
        return sorted(glob.glob(pattern))

    def serial_exclusive(self, port: str, baud: int) -> None:
        """Open the port the way the daemon will (exclusive lock, no other program having
        it open), then close it.

        Raises:
            OSError: with ``errno`` EBUSY when another program holds the port.
        """
        import serial  # pyserial; imported here so config checks of simulated setups need not

        from hardware.board.port_hold import port_holders

        try:
            link = serial.Serial(port, baud, timeout=0, exclusive=True)
        except serial.SerialException as exc:
            code = getattr(exc, "errno", None)
            if "exclusively lock" in str(exc) or code in (errno.EAGAIN, errno.EBUSY):
                code = errno.EBUSY  # another process holds the lock (or TIOCEXCL)
            raise OSError(code or errno.EIO, str(exc)) from None
        others = port_holders(port)  # (programs that take no lock: a terminal, mpremote)
        link.close()
        if others:
            raise OSError(errno.EBUSY, f"{port} is open in {', '.join(others)}")

    def holders(self, path: str) -> list[str]:
        """Processes that have ``path`` open ("pid 812 (minicom)"), as far as /proc shows
        (:func:`hardware.board.port_hold.port_holders`)."""
        from hardware.board.port_hold import port_holders

        return port_holders(path)

    def i2c_answers(self, bus: int, address: int, mux: tuple[int, int] | None = None) -> bool:
        """Whether a device acknowledges a one-byte read at ``address`` on ``/dev/i2c-<bus>``.

        With ``mux`` = (TCA9548A address, channel) the channel is selected first and
        deselected after.

        Raises:
            OSError: the bus cannot be opened, or a kernel driver holds the address (EBUSY).
        """
        fd = os.open(f"/dev/i2c-{bus}", os.O_RDWR)
        try:
            if mux is not None:
                fcntl.ioctl(fd, I2C_SLAVE, mux[0])
                os.write(fd, bytes([1 << mux[1]]))
            fcntl.ioctl(fd, I2C_SLAVE, address)
            try:
                os.read(fd, 1)
            except OSError as exc:
                if exc.errno in (errno.ENXIO, errno.EREMOTEIO, errno.EIO, errno.ETIMEDOUT):
                    return False
                raise
            return True
        finally:
            if mux is not None:
                try:
                    fcntl.ioctl(fd, I2C_SLAVE, mux[0])
                    os.write(fd, b"\x00")
                except OSError:
                    pass  # the mux did not answer; already reported by the caller
            os.close(fd)

    def module_available(self, name: str) -> bool:
        """Whether a Python module can be imported."""
        return importlib.util.find_spec(name) is not None

    def open_camera(self, config: CameraConfig) -> dict[str, Any]:
        """Open the camera as the daemon will, time a few frames, close it.

        Returns what :func:`vision.sources.delivery.measure_delivery` measures.

        Raises:
            CameraError: it does not open or delivers nothing
                (:class:`~vision.settings.CameraOptionError`: it cannot do what an option asks).
        """
        source = open_source(config)
        try:
            return measure_delivery(source)
        finally:
            source.close()
