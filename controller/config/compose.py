"""The daemon's whole config: each section read by the package that owns it, then checked together.

``load_config(path)`` reads ``/etc/toptable/config.toml`` (or any path) and
returns a :class:`Config`, or raises :class:`~controller.core.errors.DataError`
listing *every* problem at once, each naming the section, the option and the
allowed range or values, in Klipper's words::

    Option 'address' in section 'displays.screen[1]' must be one of 0x3C, 0x3D (got 0x3E)

Unknown sections and options are rejected (with a "did you mean" for typos).
Relative paths are resolved against the config file's folder; ``~`` expands.
Every section and option is optional except a screen's ``role``; the defaults
are the ones documented in ``systemd/config.example.toml``.

What this module adds to the sections' own checks is what spans sections: no
GPIO used twice or taken from a bus a screen needs, one seat LED per player, as many
players as a companion mode allows (its own check, as the table starts a game).
Whether the devices named are there is :mod:`controller.config.devices`' job.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from controller.companion.registry import players_problem
from controller.core.checked import UNKNOWN_SHOWN, Problems
from controller.core.config_schema import (
    I2C1_PINS,
    SPI0_PINS,
    SPI1_CHIP_SELECTS,
    SPI1_PINS,
    Section,
    config_problems,
    did_you_mean,
    shown,
)
from controller.core.errors import DataError
from controller.core.tomlfile import read_toml
from controller.publish.settings import EventsSettings, parse_events
from controller.storage.sqlite_file import sidecars
from controller.system.settings import LogConfig, parse_log
from controller.table.settings import TableConfig, parse_table
from hardware.board.settings import BoardConfig, parse_board
from hardware.controls.settings import ControlsConfig, parse_controls
from hardware.displays.settings import (
    DisplaysConfig,
    ScreenDriver,
    ScreenInterface,
    parse_displays,
)
from vision.settings import CameraSettings, parse_camera

DEFAULT_CONFIG_PATH = Path("/etc/toptable/config.toml")
MISSING_CONFIG = (
    "no such config file (copy systemd/config.example.toml there, or pass --config PATH)"
)

EMPTY_CONFIG = (
    "sets nothing: a table's config names at least its [table] (start from "
    "systemd/config.example.toml; every option left out keeps its default)"
)

SECTIONS = ("table", "camera", "board", "displays", "controls", "log", "events")

T = TypeVar("T")


@dataclass(frozen=True)
class Config:
    """The whole daemon config. ``source`` is the file it came from ('' if built in code)."""

    table: TableConfig = field(default_factory=TableConfig)
    camera: CameraSettings = field(default_factory=CameraSettings)
    board: BoardConfig = field(default_factory=BoardConfig)
    displays: DisplaysConfig = field(default_factory=DisplaysConfig)
    controls: ControlsConfig = field(default_factory=ControlsConfig)
    log: LogConfig = field(default_factory=LogConfig)
    events: EventsSettings | None = None  # None: this table publishes nothing
    source: str = ""


SPI_LINES = ("gpio_dc", "gpio_reset")
"""An SPI screen's own control lines (data/command, reset)."""


def _check_pins(cfg: Config, problems: Problems) -> None:
    """No pin used twice; none taken from a bus a configured screen needs."""
    owners: dict[int, str] = {}
    uses: list[tuple[str, str, int]] = [
        ("controls", name, pin) for name, pin in cfg.controls.pins().items()
    ]
    if (cfg.controls.encoder_a is None) != (cfg.controls.encoder_b is None):
        missing, other = ("encoder_a", "encoder_b")
        if cfg.controls.encoder_b is None:
            missing, other = other, missing
        problems.add(
            "controls",
            missing,
            f"is required when {other} is set (an encoder has two pins), or both false",
        )
    real = [
        (i, sc)
        for i, sc in enumerate(cfg.displays.screens, start=1)
        if sc.driver in (ScreenDriver.SSD1306, ScreenDriver.SH1106)
    ]
    spi = [(i, sc) for i, sc in real if sc.interface is ScreenInterface.SPI]
    for i, sc in spi:
        # each screen its own DC and RESET: luma.core 2.6's SPI interface (serial.py,
        # bitbang.__init__ / cleanup) pulses RESET as a screen opens, which blanks a
        # screen already lit on the same line, and frees both lines as one closes
        uses += [(f"displays.screen[{i}]", "gpio_dc", sc.gpio_dc)]
        uses += [(f"displays.screen[{i}]", "gpio_reset", sc.gpio_reset)]
    reserved: dict[int, str] = {}
    if any(sc.interface is ScreenInterface.I2C and sc.bus == 1 for _, sc in real):
        reserved.update({p: "I2C1 (SDA/SCL) for the screens" for p in I2C1_PINS})
    if any(sc.bus == 0 for _, sc in spi):
        reserved.update({p: "SPI0 for the screens" for p in SPI0_PINS})
    for _, sc in spi:
        if sc.bus == 1:  # SPI1 takes its chip-select lines by the overlay (spi1-1cs, -2cs)
            pins = SPI1_PINS + SPI1_CHIP_SELECTS[: sc.spi_device + 1]
            reserved.update({p: "SPI1 for the screens" for p in pins})
    for section, opt, p in uses:
        label = f"{section}.{opt}" if section != "controls" else opt
        if p in reserved:
            problems.add(section, opt, f"uses GPIO{p}, which {reserved[p]} needs")
        elif p in owners and opt in SPI_LINES and owners[p].endswith(SPI_LINES):
            problems.add(
                section,
                opt,
                f"uses GPIO{p}, already '{owners[p]}': each SPI screen needs its own DC and "
                "RESET lines (opening a screen resets every screen on its RESET line, and "
                "closing one frees its lines under the other); pick a free pin",
            )
        elif p in owners:
            problems.add(
                section, opt, f"uses GPIO{p}, already used by '{owners[p]}'; pick a free pin"
            )
        else:
            owners[p] = label
    seats = cfg.controls.led_seats
    if seats and len(seats) < cfg.table.players:
        problems.add(
            "controls",
            "led_seats",
            f"must have one pin per player ({cfg.table.players} players, "
            f"{len(seats)} pins), or be [] for no seat LEDs",
        )


def parse_config(data: Mapping[str, Any], file: str = "", base_dir: Path | None = None) -> Config:
    """A :class:`Config` from parsed TOML.

    ``file`` names the source in messages; relative paths resolve against ``base_dir``
    (the current folder if None).

    Raises:
        DataError: every problem found, each a :class:`ConfigProblem`.
    """
    problems = config_problems(file)
    base = base_dir if base_dir is not None else Path.cwd()

    def section(name: str) -> Section:
        return Section(name, data.get(name, {}), problems, base)

    strange = [name for name in data if name not in SECTIONS]
    valid = f"valid sections: {', '.join(SECTIONS)}"
    for name in strange[:UNKNOWN_SHOWN]:
        problems.add(name, "", f"is not a valid section{did_you_mean(name, SECTIONS)}; {valid}")
    if len(strange) > UNKNOWN_SHOWN:  # (the first few named; a garbled file's thousands counted)
        problems.add(
            "", "", f"{len(strange) - UNKNOWN_SHOWN} more sections that are not valid; {valid}"
        )

    def read(name: str, reader: Callable[[Section], T]) -> T:
        s = section(name)
        value = reader(s)
        s.finish()
        return value

    table = read("table", parse_table)
    camera = read("camera", parse_camera)
    board = read("board", parse_board)
    displays = parse_displays(section("displays"), table.players)
    controls = read("controls", parse_controls)
    log = read("log", parse_log)
    events = read("events", parse_events)
    cfg = Config(
        table=table,
        camera=camera,
        board=board,
        displays=displays,
        controls=controls,
        log=log,
        events=events,
        source=file,
    )
    _check_pins(cfg, problems)
    _check_outputs(cfg, problems)
    if events is not None and events.people and len(events.people) != table.players:
        problems.add(
            "events",
            "players",
            f"names {len(events.people)} players but [table] players = {table.players}: "
            "name every player at the table, or none",
        )
    why = None if table.mode.plays_dice else players_problem(table.mode, table.players)
    if why is not None:
        problems.add("table", "players", f"does not suit mode {shown(table.mode.value)}: {why}")
    problems.check()
    return cfg


def _check_outputs(cfg: Config, problems: Problems) -> None:
    """An emulated screen's ``output`` (written when the daemon stops) names no file the
    table keeps or another screen writes, and no file already there but a GIF of its own
    (review 95: a GIF was written over the game's journal)."""
    t = cfg.table
    kept = {*sidecars(t.journal), *sidecars(t.game_journal)}
    if cfg.source:
        kept.add(Path(cfg.source))
    kept = {_same_file_key(k) for k in kept}
    written: dict[Path, int] = {}
    for i, sc in enumerate(cfg.displays.screens, start=1):
        if sc.driver is not ScreenDriver.EMULATOR or sc.output is None:
            continue
        section, out = f"displays.screen[{i}]", sc.output
        key = _same_file_key(out)
        if key in kept:
            problems.add(section, "output", f"names {out}, a file the table keeps (its journal "
                         "or its config): name another file for the screen's animation")  # fmt: skip
        elif key in written:
            problems.add(section, "output", f"names {out}, as displays.screen[{written[key]}] "
                         "does: give each screen a file of its own")  # fmt: skip
        elif out.is_file() and not _is_gif(out):
            problems.add(section, "output", f"names {out}, a file that is no GIF: the screen "
                         "would write its animation over it; name another file")  # fmt: skip
        written.setdefault(key, i)


def _same_file_key(path: Path) -> Path:
    """``path`` as the file it names (symbolic links and ``..`` followed where they lead)."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path


def _is_gif(path: Path) -> bool:
    """Whether ``path`` holds a GIF, or too few bytes to be anything (a GIF cut short at its
    first byte by a power cut as the daemon stopped)."""
    try:
        with path.open("rb") as fh:
            head = fh.read(6)
    except OSError:
        return False
    return len(head) < 6 or head in (b"GIF87a", b"GIF89a")


def load_config(path: str | Path = DEFAULT_CONFIG_PATH) -> Config:
    """Read and check a config file.

    Raises:
        DataError: the file cannot be read, is not TOML, sets nothing, or has any problem
            (all listed).
    """
    p = Path(path)
    data = read_toml(p, missing=MISSING_CONFIG)
    if not data:
        raise DataError.single(str(p), "", "", EMPTY_CONFIG)
    return parse_config(data, str(p), p.resolve().parent)
