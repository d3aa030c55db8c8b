"""Are the devices and files a config names there and usable? Messages a person can act on.

:func:`check_devices` looks at what :func:`controller.config.load_config`
cannot see in the file itself: the camera device exists and opens, the board's
serial port exists and no other program owns it, each I2C bus exists and is
readable and a screen answers at its address (behind its TCA9548A channel if
any), a GPIO chip is there for the buttons, the layout and model files load.
It returns every problem as a :class:`~controller.config.ConfigProblem` naming
the section and option to change, and touches nothing for simulated backends.

The OS calls go through :class:`DeviceProbe`, so tests pass a fake one.
"""

from __future__ import annotations

import errno
import fcntl
import glob
import importlib.util
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from controller.config import (
    BoardBackend,
    CameraSource,
    Config,
    ConfigProblem,
    ControlsBackend,
    ScreenDriver,
    ScreenInterface,
)
from controller.core.errors import DataError, DataProblem
from controller.gamedata.board import load_board

I2C_SLAVE = 0x0703  # linux/i2c-dev.h: set the address of the next read/write
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp")


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
        """Whether this process may create files in ``path``."""
        return os.access(path, os.W_OK | os.X_OK)

    def glob(self, pattern: str) -> list[str]:
        """Sorted paths matching ``pattern``."""
        return sorted(glob.glob(pattern))

    def serial_exclusive(self, port: str, baud: int) -> None:
        """Open the port the way the daemon will (exclusive lock), then close it.

        Raises:
            OSError: with ``errno`` EBUSY when another program holds the port.
        """
        import serial  # pyserial; imported here so config checks of simulated setups need not

        try:
            link = serial.Serial(port, baud, timeout=0, exclusive=True)
        except serial.SerialException as exc:
            code = getattr(exc, "errno", None)
            if "exclusively lock" in str(exc) or code in (errno.EAGAIN, errno.EBUSY):
                code = errno.EBUSY  # another process holds the lock (or TIOCEXCL)
            raise OSError(code or errno.EIO, str(exc)) from None
        link.close()

    def holders(self, path: str) -> list[str]:
        """Processes that have ``path`` open ("pid 812 (minicom)"), as far as /proc shows."""
        target = os.path.realpath(path)
        found = []
        for fd_dir in glob.glob("/proc/[0-9]*/fd"):
            pid = fd_dir.split("/")[2]
            if pid == str(os.getpid()):
                continue
            try:
                links = [os.readlink(os.path.join(fd_dir, fd)) for fd in os.listdir(fd_dir)]
            except OSError:
                continue  # gone, or another user's process
            if target in links:
                try:
                    name = Path(f"/proc/{pid}/comm").read_text().strip()
                except OSError:
                    name = "?"
                found.append(f"pid {pid} ({name})")
        return found

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


@dataclass
class _Checker:
    cfg: Config
    probe: DeviceProbe

    def __post_init__(self) -> None:
        self.problems: list[DataProblem] = []

    def add(self, section: str, option: str, message: str) -> None:
        self.problems.append(ConfigProblem(self.cfg.source, section, option, message))

    def _why_not(self, path: str, group: str, what: str) -> str | None:
        """Why ``path`` cannot be opened read-write, or None if it can."""
        try:
            self.probe.open_rw(path)
        except OSError as exc:
            if exc.errno in (errno.EACCES, errno.EPERM):
                return (
                    f"names {path}, which this user may not open: add the service user to "
                    f"the '{group}' group (sudo usermod -aG {group} USER, then log in again)"
                )
            if exc.errno == errno.EBUSY:
                return f"names {path}, which another program is using ({what} busy)"
            return f"names {path}, which cannot be opened: {exc.strerror or exc}"
        return None

    def device(self, section: str, option: str, path: str, group: str, what: str) -> bool:
        """Check a device node exists, is a character device and opens. True if usable."""
        try:
            st = self.probe.stat(path)
        except FileNotFoundError:
            return False
        except OSError as exc:
            self.add(section, option, f"names {path}, which cannot be read: {exc.strerror}")
            return True  # reported
        if not stat.S_ISCHR(st.st_mode):
            self.add(section, option, f"names {path}, which is not a device ({what} expected)")
            return True
        why = self._why_not(path, group, what)
        if why:
            self.add(section, option, why)
        return True

    def present(self, pattern: str) -> str:
        found = self.probe.glob(pattern)
        return ", ".join(found) if found else "none"

    # --- sections ---

    def table(self) -> None:
        t = self.cfg.table
        if t.data_dir is not None and not self._is_dir(t.data_dir):
            self.add("table", "data_dir", f"names {t.data_dir}, which is not a folder")
        folder = t.journal.parent
        existing = folder
        while not self._is_dir(existing) and existing != existing.parent:
            existing = existing.parent
        if not self.probe.writable_dir(str(existing)):
            made = "" if existing == folder else f" (which the daemon would create in {existing})"
            self.add(
                "table",
                "journal",
                f"is in {folder}{made}, where this user may not write: the unit's "
                "StateDirectory= makes /var/lib/toptable for the service user; elsewhere "
                "create the folder and chown it to the user running toptable",
            )

    def camera(self) -> None:
        c = self.cfg.camera
        if c.source is CameraSource.V4L2:
            path = c.device_path
            if not self.device("camera", "device", path, "video", "the camera"):
                self.add(
                    "camera",
                    "device",
                    f"names {path}, which does not exist; cameras present: "
                    f"{self.present('/dev/video*')} (plug the camera in or change the device)",
                )
        elif c.source is CameraSource.FILE and c.path is not None:
            if not self._is_file(c.path):
                self.add("camera", "path", f"names {c.path}, which is not a video file")
        elif c.source is CameraSource.FOLDER and c.path is not None:
            if not self._is_dir(c.path):
                self.add("camera", "path", f"names {c.path}, which is not a folder")
            elif not any(self.probe.glob(str(c.path / f"*{suffix}")) for suffix in IMAGE_SUFFIXES):
                self.add(
                    "camera",
                    "path",
                    f"names {c.path}, which holds no images ({', '.join(IMAGE_SUFFIXES)})",
                )
        if c.model is not None and not self._is_file(c.model):
            self.add("camera", "model", f"names {c.model}, which does not exist")

    def board(self) -> None:
        b = self.cfg.board
        if b.layout is not None:
            try:
                load_board(b.layout)
            except DataError as exc:
                self.problems.extend(exc.problems)
        if b.mapping is not None and not self._is_file(b.mapping):
            self.add("board", "mapping", f"names {b.mapping}, which does not exist")
        if b.backend is not BoardBackend.SERIAL:
            return
        try:
            st = self.probe.stat(b.port)
        except FileNotFoundError:
            self.add(
                "board",
                "port",
                f"names {b.port}, which does not exist: is the board's USB cable plugged in, "
                "and the udev rule installed (systemd/99-toptable-board.rules)? "
                f"serial ports present: {self.present('/dev/ttyACM*')}",
            )
            return
        except OSError as exc:
            self.add("board", "port", f"names {b.port}, which cannot be read: {exc.strerror}")
            return
        if not stat.S_ISCHR(st.st_mode):
            self.add("board", "port", f"names {b.port}, which is not a serial device")
            return
        try:
            self.probe.serial_exclusive(b.port, b.baud)
        except OSError as exc:
            if exc.errno in (errno.EACCES, errno.EPERM):
                self.add(
                    "board",
                    "port",
                    f"names {b.port}, which this user may not open: add the service user to "
                    "the 'dialout' group (sudo usermod -aG dialout USER, then log in again)",
                )
            elif exc.errno == errno.EBUSY:
                holders = self.probe.holders(b.port)
                who = f" ({', '.join(holders)})" if holders else ""
                self.add(
                    "board",
                    "port",
                    f"names {b.port}, which another program owns{who}: close it (a serial "
                    "terminal, ModemManager, or a toptable already running) and try again",
                )
            else:
                self.add("board", "port", f"names {b.port}, which cannot be opened: {exc.strerror}")

    def displays(self) -> None:
        buses_ok: dict[int, bool] = {}
        for i, sc in enumerate(self.cfg.displays.screens, start=1):
            section = f"displays.screen[{i}]"
            if sc.driver is ScreenDriver.EMULATOR:
                if sc.output is not None and not self._is_dir(sc.output.parent):
                    self.add(section, "output", f"is in {sc.output.parent}, which does not exist")
                continue
            if sc.driver is ScreenDriver.DUMMY:
                continue
            if sc.interface is ScreenInterface.SPI:
                path = f"/dev/spidev{sc.bus}.{sc.spi_device}"
                if not self.device(section, "bus", path, "spi", "the SPI bus"):
                    self.add(
                        section,
                        "bus",
                        f"names {path}, which does not exist: enable SPI "
                        "(dtparam=spi=on in /boot/firmware/config.txt, or "
                        "sudo raspi-config nonint do_spi 0) and reboot",
                    )
                continue
            if sc.bus not in buses_ok:
                buses_ok[sc.bus] = self._i2c_bus(section, sc.bus)
            if buses_ok[sc.bus]:
                self._i2c_screen(section, sc.bus, sc.address, sc.mux_address, sc.mux_channel)

    def _i2c_bus(self, section: str, bus: int) -> bool:
        path = f"/dev/i2c-{bus}"
        before = len(self.problems)
        if not self.device(section, "bus", path, "i2c", "the I2C bus"):
            self.add(
                section,
                "bus",
                f"names {path}, which does not exist: enable I2C (dtparam=i2c_arm=on in "
                "/boot/firmware/config.txt, or sudo raspi-config nonint do_i2c 0) and reboot; "
                f"buses present: {self.present('/dev/i2c-*')}",
            )
            return False
        return len(self.problems) == before

    def _i2c_screen(
        self, section: str, bus: int, address: int, mux_address: int | None, mux_channel: int | None
    ) -> None:
        mux = None
        where = f"/dev/i2c-{bus}"
        try:
            if mux_address is not None and mux_channel is not None:
                if not self.probe.i2c_answers(bus, mux_address):
                    self.add(
                        section,
                        "mux_address",
                        f"is 0x{mux_address:02X}, where no TCA9548A answers on {where}: check "
                        "its wiring, power and A0-A2 address pins",
                    )
                    return
                mux = (mux_address, mux_channel)
                where += f" behind the TCA9548A at 0x{mux_address:02X} channel {mux_channel}"
            if not self.probe.i2c_answers(bus, address, mux):
                self.add(
                    section,
                    "address",
                    f"is 0x{address:02X}, where no screen answers on {where}: check the wiring "
                    "(SDA, SCL, 3.3 V, GND) and the address the module is set to (0x3C or 0x3D)",
                )
        except OSError as exc:
            if exc.errno == errno.EBUSY:
                self.add(
                    section,
                    "address",
                    f"is 0x{address:02X}, which a kernel driver holds on {where} "
                    "(remove a dtoverlay=ssd1306 line from /boot/firmware/config.txt)",
                )
            else:
                self.add(section, "bus", f"names {where}, which failed: {exc.strerror or exc}")

    def controls(self) -> None:
        if self.cfg.controls.backend is not ControlsBackend.GPIOZERO:
            return
        chips = self.probe.glob("/dev/gpiochip*")
        if not chips:
            self.add(
                "controls",
                "backend",
                "is 'gpiozero', but this machine has no /dev/gpiochip*: on a machine that is "
                "not a Raspberry Pi, use backend = 'mock'",
            )
            return
        why = self._why_not(chips[0], "gpio", "the GPIO chip")
        if why:
            self.add("controls", "backend", why)
        if not self.probe.module_available("lgpio"):
            self.add(
                "controls",
                "backend",
                "is 'gpiozero', but its pin library lgpio is not installed (the unit sets "
                "GPIOZERO_PIN_FACTORY=lgpio): install the 'pi' extra "
                "(/opt/toptable/venv/bin/pip install 'toptable[pi]') or apt install python3-lgpio",
            )

    # --- helpers ---

    def _is_dir(self, path: Path) -> bool:
        try:
            return stat.S_ISDIR(self.probe.stat(str(path)).st_mode)
        except OSError:
            return False

    def _is_file(self, path: Path) -> bool:
        try:
            return stat.S_ISREG(self.probe.stat(str(path)).st_mode)
        except OSError:
            return False

    def run(self) -> Iterator[DataProblem]:
        for part in (self.table, self.camera, self.board, self.displays, self.controls):
            part()
        yield from self.problems


def check_devices(cfg: Config, probe: DeviceProbe | None = None) -> tuple[DataProblem, ...]:
    """Every problem with the devices and files ``cfg`` names; empty when all is well.

    Nothing is raised: the caller decides which problems stop the daemon
    (``toptable config check`` reports them all and exits 2).
    """
    return tuple(_Checker(cfg, probe or DeviceProbe()).run())
