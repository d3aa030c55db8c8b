"""The daemon's TOML config: a typed, frozen schema checked whole at start.

``load_config(path)`` reads ``/etc/toptable/config.toml`` (or any path) and
returns a :class:`Config`, or raises :class:`~controller.core.errors.DataError`
listing *every* problem at once, each naming the section, the option and the
allowed range or values, in Klipper's words::

    Option 'address' in section 'displays.screen[1]' must be one of 0x3C, 0x3D (got 0x3E)

Unknown sections and options are rejected (with a "did you mean" for typos).
Relative paths are resolved against the config file's folder; ``~`` expands.
Every section and option is optional except a screen's ``role``; the defaults
are the ones documented in ``systemd/config.example.toml``.

This module only checks the file. Whether the devices it names are there and
usable is :mod:`controller.config_devices`' job (``toptable config check`` runs both).
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any, TypeVar

from controller.core.errors import DataError, DataProblem
from controller.core.tomlfile import read_toml
from controller.rules.variants import Variants

DEFAULT_CONFIG_PATH = Path("/etc/toptable/config.toml")
DEFAULT_JOURNAL = Path("/var/lib/toptable/journal.sqlite")
DEFAULT_BOARD_PORT = "/dev/toptable-board"

MIN_PLAYERS = 2
MAX_PLAYERS = 4
MAX_SCREENS = 8
SCREEN_ADDRESSES = (0x3C, 0x3D)  # SSD1306/SH1106 I2C addresses (SA0 low/high)
MUX_ADDRESSES = tuple(range(0x70, 0x78))  # TCA9548A, A0..A2
MUX_CHANNELS = 8
MAX_BCM_PIN = 27  # GPIO0..GPIO27 on the Pi's 40-pin header
I2C1_PINS = (2, 3)  # SDA, SCL of /dev/i2c-1 on the header
SPI0_PINS = (7, 8, 9, 10, 11)  # CE1, CE0, MISO, MOSI, SCLK


class GameLength(StrEnum):
    """RULES.md §11: 10 rounds, 5 rounds, or 45 minutes."""

    ROUNDS10 = "rounds10"
    ROUNDS5 = "rounds5"
    MINUTES45 = "minutes45"


class CameraSource(StrEnum):
    """Where frames come from: a V4L2 device, a video file, a folder of images, or rendered."""

    V4L2 = "v4l2"
    FILE = "file"
    FOLDER = "folder"
    SYNTHETIC = "synthetic"


class BoardBackend(StrEnum):
    """The board link: the Pico on a serial port, or the firmware simulated in-process."""

    SERIAL = "serial"
    SIMULATED = "simulated"


class ScreenDriver(StrEnum):
    """The luma device behind a screen."""

    SSD1306 = "ssd1306"
    SH1106 = "sh1106"
    DUMMY = "dummy"
    EMULATOR = "emulator"


class ScreenInterface(StrEnum):
    """How a real screen is wired."""

    I2C = "i2c"
    SPI = "spi"


class ScreenRole(StrEnum):
    """What a screen shows: whose turn and the clock, the fight, or one seat's team."""

    TURN = "turn"
    COMBAT = "combat"
    TEAM = "team"


class ControlsBackend(StrEnum):
    """gpiozero with the Pi's pin factory, or gpiozero's MockFactory."""

    GPIOZERO = "gpiozero"
    MOCK = "mock"


class LogLevel(StrEnum):
    """The daemon's log level."""

    DEBUG = "debug"
    INFO = "info"
    WARNING = "warning"
    ERROR = "error"


@dataclass(frozen=True)
class TableConfig:
    """[table]: the game played at this table."""

    players: int = 2
    length: GameLength = GameLength.ROUNDS10
    variants: tuple[str, ...] = ()
    data_dir: Path | None = None  # None: the bundled rulebook data
    journal: Path = DEFAULT_JOURNAL


@dataclass(frozen=True)
class CameraConfig:
    """[camera]: the camera over the dice tray."""

    source: CameraSource = CameraSource.V4L2
    device: str | int = "/dev/video0"  # a path, or an index N for /dev/videoN
    path: Path | None = None  # the video file or image folder (file/folder sources)
    width: int = 1280
    height: int = 960
    fps: float = 30.0
    model: Path | None = None  # None: the bundled face model
    confidence: float = 0.6

    @property
    def device_path(self) -> str:
        """The device as a path: an index N means ``/dev/videoN``."""
        if isinstance(self.device, int):
            return f"/dev/video{self.device}"
        return self.device


@dataclass(frozen=True)
class BoardConfig:
    """[board]: the sensor board and its layout."""

    backend: BoardBackend = BoardBackend.SERIAL
    port: str = DEFAULT_BOARD_PORT
    baud: int = 115200
    layout: Path | None = None  # None: the bundled example layout
    mapping: Path | None = None  # sensor -> space mapping from the wizard, if any


@dataclass(frozen=True)
class ScreenConfig:
    """One [[displays.screen]]."""

    role: ScreenRole
    name: str = ""
    driver: ScreenDriver = ScreenDriver.SSD1306
    width: int = 128
    height: int = 64
    rotate: int = 0  # luma's rotate: 0..3 quarter turns
    seat: int | None = None  # the seat a "team" screen shows (1..players)
    interface: ScreenInterface = ScreenInterface.I2C
    bus: int = 1  # I2C bus N (/dev/i2c-N), or SPI port N (default 0 for SPI)
    address: int = 0x3C
    mux_address: int | None = None  # a TCA9548A in front of the screen
    mux_channel: int | None = None
    spi_device: int = 0  # SPI chip select (CE0/CE1)
    gpio_dc: int = 24  # SPI data/command pin (BCM)
    gpio_reset: int = 25  # SPI reset pin (BCM)
    output: Path | None = None  # emulator: the GIF written; None: a pygame window

    @property
    def label(self) -> str:
        """How messages name this screen."""
        return self.name or self.role.value


@dataclass(frozen=True)
class DisplaysConfig:
    """[displays]: the screens at the table edge."""

    screens: tuple[ScreenConfig, ...] = ()


@dataclass(frozen=True)
class ControlsConfig:
    """[controls]: buttons, encoder, LEDs and buzzer (BCM pin numbers; 0 pins are unused)."""

    backend: ControlsBackend = ControlsBackend.GPIOZERO
    confirm: int = 5
    next: int = 6
    undo: int = 13
    menu: int = 19
    encoder_a: int | None = 17
    encoder_b: int | None = 27
    led_link: int | None = 22
    led_camera: int | None = 23
    led_seats: tuple[int, ...] = (16, 20, 21, 26)
    buzzer: int | None = 12
    pull_up: bool = True
    bounce_ms: int = 20
    hold_seconds: float = 1.0

    def pins(self) -> dict[str, int]:
        """Every pin in use, by option name (``led_seats[2]`` for list items)."""
        named: dict[str, int | None] = {
            "confirm": self.confirm,
            "next": self.next,
            "undo": self.undo,
            "menu": self.menu,
            "encoder_a": self.encoder_a,
            "encoder_b": self.encoder_b,
            "led_link": self.led_link,
            "led_camera": self.led_camera,
            "buzzer": self.buzzer,
        }
        for i, pin in enumerate(self.led_seats, start=1):
            named[f"led_seats[{i}]"] = pin
        return {k: v for k, v in named.items() if v is not None}


@dataclass(frozen=True)
class LogConfig:
    """[log]."""

    level: LogLevel = LogLevel.INFO


@dataclass(frozen=True)
class Config:
    """The whole daemon config. ``source`` is the file it came from ('' if built in code)."""

    table: TableConfig = field(default_factory=TableConfig)
    camera: CameraConfig = field(default_factory=CameraConfig)
    board: BoardConfig = field(default_factory=BoardConfig)
    displays: DisplaysConfig = field(default_factory=DisplaysConfig)
    controls: ControlsConfig = field(default_factory=ControlsConfig)
    log: LogConfig = field(default_factory=LogConfig)
    source: str = ""


@dataclass(frozen=True)
class ConfigProblem(DataProblem):
    """A DataProblem worded the Klipper way: "Option 'k' in section 's' ..."."""

    def __str__(self) -> str:
        if self.field:
            where = f"Option '{self.field}' in section '{self.entry}'"
        elif self.entry:
            where = f"Section '{self.entry}'"
        else:
            where = ""
        text = f"{where} {self.message}" if where else self.message
        return f"{self.file}: {text}" if self.file else text


# --- reading ----------------------------------------------------------------

T = TypeVar("T")
E = TypeVar("E", bound=StrEnum)


class _InvalidError(Exception):
    """Internal: one option's value is wrong; the message is the problem's text."""


def _hex(value: int) -> str:
    return f"0x{value:02X}"


def _did_you_mean(name: str, known: Sequence[str]) -> str:
    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


def _shown(value: Any) -> str:
    """A TOML value as the person wrote it, near enough."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, dict):
        return "a table"
    return str(value)


class _Section:
    """Reads one TOML table option by option, collecting problems instead of stopping."""

    def __init__(
        self,
        file: str,
        name: str,
        data: Any,
        problems: list[DataProblem],
        base_dir: Path,
    ) -> None:
        self.file = file
        self.name = name
        self.problems = problems
        self.base_dir = base_dir
        self.used: list[str] = []
        if isinstance(data, Mapping):
            self.data: Mapping[str, Any] = data
        else:
            self.data = {}
            self.problem("", f"must be a table (got {_shown(data)})")

    def problem(self, key: str, message: str) -> None:
        self.problems.append(ConfigProblem(self.file, self.name, key, message))

    def get(self, key: str, default: T, convert: Callable[[Any], T]) -> T:
        """The option converted, or ``default`` if absent or wrong (the problem is noted)."""
        self.used.append(key)
        if key not in self.data:
            return default
        try:
            return convert(self.data[key])
        except _InvalidError as exc:
            self.problem(key, str(exc))
            return default

    def finish(self) -> None:
        """Note every option this section does not know."""
        for key in self.data:
            if key not in self.used:
                self.problem(
                    key,
                    f"is not a valid option{_did_you_mean(key, self.used)}; "
                    f"valid options: {', '.join(self.used)}",
                )


# Converters: each raises _InvalidError with the Klipper-style tail of the message.


def _int(lo: int | None = None, hi: int | None = None) -> Callable[[Any], int]:
    def convert(value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise _InvalidError(f"must be an integer (got {_shown(value)})")
        if lo is not None and value < lo:
            raise _InvalidError(f"must have minimum of {lo} (got {value})")
        if hi is not None and value > hi:
            raise _InvalidError(f"must have maximum of {hi} (got {value})")
        return value

    return convert


def _float(lo: float, hi: float) -> Callable[[Any], float]:
    def convert(value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
            raise _InvalidError(f"must be a number (got {_shown(value)})")
        number = float(value)
        if number < lo:
            raise _InvalidError(f"must have minimum of {lo:g} (got {number:g})")
        if number > hi:
            raise _InvalidError(f"must have maximum of {hi:g} (got {number:g})")
        return number

    return convert


def _bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise _InvalidError(f"must be true or false (got {_shown(value)})")
    return value


def _choice(enum: type[E]) -> Callable[[Any], E]:
    names = [m.value for m in enum]

    def convert(value: Any) -> E:
        if not isinstance(value, str) or value not in names:
            raise _InvalidError(f"must be one of {', '.join(names)} (got {_shown(value)})")
        return enum(value)

    return convert


def _address(allowed: Sequence[int]) -> Callable[[Any], int]:
    """An I2C address as an integer (``0x3C``) or a string (``"0x3C"``)."""
    text = ", ".join(_hex(a) for a in allowed)

    def convert(value: Any) -> int:
        number: int | None = None
        if isinstance(value, int) and not isinstance(value, bool):
            number = value
        elif isinstance(value, str):
            try:
                number = int(value, 0)
            except ValueError:
                number = None
        if number is None or number not in allowed:
            got = _hex(number) if number is not None and number >= 0 else _shown(value)
            raise _InvalidError(f"must be one of {text} (got {got})")
        return number

    return convert


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise _InvalidError(f"must be a string (got {_shown(value)})")
    return value


def _device_path(value: Any) -> str:
    path = _text(value)
    if not path.startswith("/dev/"):
        raise _InvalidError(f"must be a device path under /dev/ (got {path!r})")
    return path


def _camera_device(value: Any) -> str | int:
    if isinstance(value, int) and not isinstance(value, bool):
        return _int(0, 63)(value)
    if isinstance(value, str):
        return _device_path(value)
    raise _InvalidError(
        f"must be a device path such as '/dev/video0' or an index 0..63 (got {value!r})"
    )


def _path(base_dir: Path) -> Callable[[Any], Path]:
    def convert(value: Any) -> Path:
        text = _text(value)
        if not text:
            raise _InvalidError("must not be empty (leave the option out for the default)")
        path = Path(text).expanduser()
        return path if path.is_absolute() else base_dir / path

    return convert


def _variants(value: Any) -> tuple[str, ...]:
    known = Variants.names()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _InvalidError(f"must be a list of variant names (got {_shown(value)})")
    wrong = [v for v in value if v not in known]
    if wrong:
        raise _InvalidError(
            f"has unknown variant {wrong[0]!r}{_did_you_mean(wrong[0], known)}; "
            f"must be any of {', '.join(known)}"
        )
    return tuple(dict.fromkeys(value))


def _optional_pin(value: Any) -> int | None:
    """A BCM pin 0..27, or ``false`` for a part that is not fitted."""
    if value is False:
        return None
    try:
        return _int(0, MAX_BCM_PIN)(value)
    except _InvalidError as exc:
        raise _InvalidError(f"{exc}; write false if it is not fitted") from None


def _pin_list(value: Any) -> tuple[int, ...]:
    if not isinstance(value, list):
        raise _InvalidError(f"must be a list of BCM pin numbers (got {_shown(value)})")
    pins = []
    for i, item in enumerate(value, start=1):
        try:
            pins.append(_int(0, MAX_BCM_PIN)(item))
        except _InvalidError as exc:
            raise _InvalidError(f"item {i} {exc}") from None
    return tuple(pins)


# --- sections ---------------------------------------------------------------

SECTIONS = ("table", "camera", "board", "displays", "controls", "log")


def _table(s: _Section) -> TableConfig:
    d = TableConfig()
    return TableConfig(
        players=s.get("players", d.players, _int(MIN_PLAYERS, MAX_PLAYERS)),
        length=s.get("length", d.length, _choice(GameLength)),
        variants=s.get("variants", d.variants, _variants),
        data_dir=s.get("data_dir", d.data_dir, _path(s.base_dir)),
        journal=s.get("journal", d.journal, _path(s.base_dir)),
    )


def _camera(s: _Section) -> CameraConfig:
    d = CameraConfig()
    cfg = CameraConfig(
        source=s.get("source", d.source, _choice(CameraSource)),
        device=s.get("device", d.device, _camera_device),
        path=s.get("path", d.path, _path(s.base_dir)),
        width=s.get("width", d.width, _int(160, 4096)),
        height=s.get("height", d.height, _int(120, 4096)),
        fps=s.get("fps", d.fps, _float(1, 120)),
        model=s.get("model", d.model, _path(s.base_dir)),
        confidence=s.get("confidence", d.confidence, _float(0, 1)),
    )
    if cfg.source in (CameraSource.FILE, CameraSource.FOLDER) and cfg.path is None:
        s.problem("path", f"is required when source is '{cfg.source}'")
    return cfg


def _board(s: _Section) -> BoardConfig:
    d = BoardConfig()
    return BoardConfig(
        backend=s.get("backend", d.backend, _choice(BoardBackend)),
        port=s.get("port", d.port, _device_path),
        baud=s.get("baud", d.baud, _int(1200, 4_000_000)),
        layout=s.get("layout", d.layout, _path(s.base_dir)),
        mapping=s.get("mapping", d.mapping, _path(s.base_dir)),
    )


def _screen(s: _Section, players: int) -> ScreenConfig:
    d = ScreenConfig(role=ScreenRole.TURN)
    role: ScreenRole | None = s.get("role", None, _choice(ScreenRole))
    if "role" not in s.data:
        s.problem("role", f"is required; must be one of {', '.join(r.value for r in ScreenRole)}")
    interface = s.get("interface", d.interface, _choice(ScreenInterface))
    cfg = ScreenConfig(
        role=role or ScreenRole.TURN,
        name=s.get("name", d.name, _text),
        driver=s.get("driver", d.driver, _choice(ScreenDriver)),
        width=s.get("width", d.width, _int(128, 128)),
        height=s.get("height", d.height, _choice_int((64, 32))),
        rotate=s.get("rotate", d.rotate, _int(0, 3)),
        seat=s.get("seat", d.seat, _int(1, players)),
        interface=interface,
        bus=s.get("bus", 0 if interface is ScreenInterface.SPI else d.bus, _int(0, 31)),
        address=s.get("address", d.address, _address(SCREEN_ADDRESSES)),
        mux_address=s.get("mux_address", d.mux_address, _address(MUX_ADDRESSES)),
        mux_channel=s.get("mux_channel", d.mux_channel, _int(0, MUX_CHANNELS - 1)),
        spi_device=s.get("spi_device", d.spi_device, _int(0, 1)),
        gpio_dc=s.get("gpio_dc", d.gpio_dc, _int(0, MAX_BCM_PIN)),
        gpio_reset=s.get("gpio_reset", d.gpio_reset, _int(0, MAX_BCM_PIN)),
        output=s.get("output", d.output, _path(s.base_dir)),
    )
    if ("mux_address" in s.data) != ("mux_channel" in s.data):
        missing = "mux_address" if "mux_channel" in s.data else "mux_channel"
        s.problem(missing, "is required when the other mux option is set (a TCA9548A needs both)")
    if cfg.role is ScreenRole.TEAM and "seat" not in s.data:
        s.problem("seat", f"is required when role is 'team'; must be 1..{players}")
    if cfg.role is not ScreenRole.TEAM and "seat" in s.data:
        s.problem("seat", "is only valid when role is 'team'")
    if cfg.interface is ScreenInterface.SPI and cfg.mux_address is not None:
        s.problem("mux_address", "is only valid when interface is 'i2c'")
    if cfg.driver is not ScreenDriver.EMULATOR and "output" in s.data:
        s.problem("output", "is only valid when driver is 'emulator'")
    return cfg


def _choice_int(allowed: Sequence[int]) -> Callable[[Any], int]:
    def convert(value: Any) -> int:
        if isinstance(value, bool) or value not in allowed:
            raise _InvalidError(
                f"must be one of {', '.join(map(str, allowed))} (got {_shown(value)})"
            )
        return int(value)

    return convert


def _displays(s: _Section, players: int) -> DisplaysConfig:
    raw: Any = s.get("screen", [], lambda v: v)
    s.finish()
    if not isinstance(raw, list):
        s.problem("screen", "must be a list of tables: write each screen as [[displays.screen]]")
        return DisplaysConfig()
    if len(raw) > MAX_SCREENS:
        s.problem("screen", f"must have at most {MAX_SCREENS} screens (got {len(raw)})")
    screens = []
    clean: set[int] = set()  # screens with no problem of their own, checked against each other
    for i, item in enumerate(raw, start=1):
        before = len(s.problems)
        sub = _Section(s.file, f"displays.screen[{i}]", item, s.problems, s.base_dir)
        screens.append(_screen(sub, players))
        sub.finish()
        if len(s.problems) == before:
            clean.add(i)
    _check_screens_apart(s, screens, clean)
    return DisplaysConfig(screens=tuple(screens))


def _check_screens_apart(s: _Section, screens: Sequence[ScreenConfig], clean: set[int]) -> None:
    """Two screens on the same bus, mux channel and address would both draw the same pixels."""
    seen: dict[tuple[object, ...], int] = {}
    for i, sc in enumerate(screens, start=1):
        if i not in clean or sc.driver in (ScreenDriver.DUMMY, ScreenDriver.EMULATOR):
            continue
        if sc.interface is ScreenInterface.I2C:
            key: tuple[object, ...] = ("i2c", sc.bus, sc.mux_address, sc.mux_channel, sc.address)
            where = f"I2C bus {sc.bus} address {_hex(sc.address)}"
            if sc.mux_address is not None:
                where += f" behind the TCA9548A at {_hex(sc.mux_address)} channel {sc.mux_channel}"
        else:
            key = ("spi", sc.bus, sc.spi_device)
            where = f"SPI port {sc.bus} device {sc.spi_device}"
        if key in seen:
            s.problems.append(
                ConfigProblem(
                    s.file,
                    f"displays.screen[{i}]",
                    "address" if sc.interface is ScreenInterface.I2C else "spi_device",
                    f"uses {where}, as screen[{seen[key]}] does; each screen needs its own "
                    "(the second SSD1306 address is 0x3D, or put them behind a TCA9548A)",
                )
            )
        else:
            seen[key] = i
    for key, i in seen.items():
        if key[0] == "i2c" and key[2] is not None:
            direct = ("i2c", key[1], None, None, key[4])
            if direct in seen:
                s.problems.append(
                    ConfigProblem(
                        s.file,
                        f"displays.screen[{i}]",
                        "address",
                        f"is 0x{key[4]:02X} behind the TCA9548A, the address screen[{seen[direct]}] "
                        f"has directly on I2C bus {key[1]}: when the channel opens both would "
                        "answer; give one the other address or put both behind the mux",
                    )
                )


def _controls(s: _Section) -> ControlsConfig:
    d = ControlsConfig()
    pin = _int(0, MAX_BCM_PIN)
    return ControlsConfig(
        backend=s.get("backend", d.backend, _choice(ControlsBackend)),
        confirm=s.get("confirm", d.confirm, pin),
        next=s.get("next", d.next, pin),
        undo=s.get("undo", d.undo, pin),
        menu=s.get("menu", d.menu, pin),
        encoder_a=s.get("encoder_a", d.encoder_a, _optional_pin),
        encoder_b=s.get("encoder_b", d.encoder_b, _optional_pin),
        led_link=s.get("led_link", d.led_link, _optional_pin),
        led_camera=s.get("led_camera", d.led_camera, _optional_pin),
        led_seats=s.get("led_seats", d.led_seats, _pin_list),
        buzzer=s.get("buzzer", d.buzzer, _optional_pin),
        pull_up=s.get("pull_up", d.pull_up, _bool),
        bounce_ms=s.get("bounce_ms", d.bounce_ms, _int(0, 500)),
        hold_seconds=s.get("hold_seconds", d.hold_seconds, _float(0.1, 10)),
    )


def _check_pins(file: str, cfg: Config, problems: list[DataProblem]) -> None:
    """No pin used twice; none taken from a bus a configured screen needs."""
    owners: dict[int, str] = {}
    uses: list[tuple[str, str, int]] = [
        ("controls", name, pin) for name, pin in cfg.controls.pins().items()
    ]
    if (cfg.controls.encoder_a is None) != (cfg.controls.encoder_b is None):
        missing, other = ("encoder_a", "encoder_b")
        if cfg.controls.encoder_b is None:
            missing, other = other, missing
        problems.append(
            ConfigProblem(
                file,
                "controls",
                missing,
                f"is required when {other} is set (an encoder has two pins), or both false",
            )
        )
    real = [
        (i, sc)
        for i, sc in enumerate(cfg.displays.screens, start=1)
        if sc.driver in (ScreenDriver.SSD1306, ScreenDriver.SH1106)
    ]
    spi_pins: dict[tuple[int, str], str] = {}
    for i, sc in real:
        if sc.interface is ScreenInterface.SPI:
            for opt, p in (("gpio_dc", sc.gpio_dc), ("gpio_reset", sc.gpio_reset)):
                # Screens on one SPI bus may share DC and reset lines; count each line once.
                spi_pins.setdefault((p, opt), f"displays.screen[{i}]")
    uses += [(section, opt, p) for (p, opt), section in spi_pins.items()]
    reserved: dict[int, str] = {}
    if any(sc.interface is ScreenInterface.I2C and sc.bus == 1 for _, sc in real):
        reserved.update({p: "I2C1 (SDA/SCL) for the screens" for p in I2C1_PINS})
    if any(sc.interface is ScreenInterface.SPI and sc.bus == 0 for _, sc in real):
        reserved.update({p: "SPI0 for the screens" for p in SPI0_PINS})
    for section, opt, p in uses:
        label = f"{section}.{opt}" if section != "controls" else opt
        if p in reserved:
            problems.append(
                ConfigProblem(file, section, opt, f"uses GPIO{p}, which {reserved[p]} needs")
            )
        elif p in owners:
            problems.append(
                ConfigProblem(
                    file,
                    section,
                    opt,
                    f"uses GPIO{p}, already used by '{owners[p]}'; pick a free pin",
                )
            )
        else:
            owners[p] = label
    seats = cfg.controls.led_seats
    if seats and len(seats) < cfg.table.players:
        problems.append(
            ConfigProblem(
                file,
                "controls",
                "led_seats",
                f"must have one pin per player ({cfg.table.players} players, "
                f"{len(seats)} pins), or be [] for no seat LEDs",
            )
        )


def _log(s: _Section) -> LogConfig:
    return LogConfig(level=s.get("level", LogConfig().level, _choice(LogLevel)))


def parse_config(data: Mapping[str, Any], file: str = "", base_dir: Path | None = None) -> Config:
    """A :class:`Config` from parsed TOML.

    ``file`` names the source in messages; relative paths resolve against ``base_dir``
    (the current folder if None).

    Raises:
        DataError: every problem found, each a :class:`ConfigProblem`.
    """
    problems: list[DataProblem] = []
    base = base_dir if base_dir is not None else Path.cwd()

    def section(name: str) -> _Section:
        return _Section(file, name, data.get(name, {}), problems, base)

    for name in data:
        if name not in SECTIONS:
            problems.append(
                ConfigProblem(
                    file,
                    name,
                    "",
                    f"is not a valid section{_did_you_mean(name, SECTIONS)}; "
                    f"valid sections: {', '.join(SECTIONS)}",
                )
            )

    def read(name: str, reader: Callable[[_Section], T]) -> T:
        s = section(name)
        value = reader(s)
        s.finish()
        return value

    table = read("table", _table)
    camera = read("camera", _camera)
    board = read("board", _board)
    displays = _displays(section("displays"), table.players)
    controls = read("controls", _controls)
    log = read("log", _log)
    cfg = Config(
        table=table,
        camera=camera,
        board=board,
        displays=displays,
        controls=controls,
        log=log,
        source=file,
    )
    _check_pins(file, cfg, problems)
    if problems:
        raise DataError(problems)
    return cfg


def load_config(path: str | Path = DEFAULT_CONFIG_PATH) -> Config:
    """Read and check a config file.

    Raises:
        DataError: the file cannot be read, is not TOML, or has any problem (all listed).
    """
    p = Path(path)
    data = read_toml(
        p,
        missing="no such config file (copy systemd/config.example.toml there, or pass --config PATH)",
    )
    return parse_config(data, str(p), p.resolve().parent)
