"""``toptable config check [PATH]``: the daemon's config file, the game data and board layout
it names (read as ``toptable run`` reads them) and the devices it names."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from controller.cli.flags import CONFIG_FILE
from controller.config import DEFAULT_CONFIG_PATH, Config, ConfigProblem, load_config
from controller.config.device_checker import DeviceChecker
from controller.config.devices import check_data_folder, check_devices
from controller.config.probe import DeviceProbe
from controller.core.errors import DataError, DataProblem
from controller.daemon.held_problem import held_game_problem
from controller.daemon.journals import game_data_for
from controller.system.sandbox import is_service_config, network_closed, read_only_to_service
from vision.errors import ModelError
from vision.learning.defaults import DEFAULT_MODEL
from vision.reading.domain import camera_fit
from vision.reading.exported import camera_sizes
from vision.reading.model import load_model
from vision.settings import CameraSource


def register(sub: Any) -> None:
    """Add ``config check``."""
    p = sub.add_parser("config", help="check the daemon's config file and devices")
    actions = p.add_subparsers(dest="config_command", metavar="ACTION")
    actions.required = True
    c = actions.add_parser(
        "check",
        help="validate a config and check its devices",
        description="Validate a daemon config (every problem at once, naming section and "
        "option) and the data set and board layout it names, as `toptable run` reads them; "
        "then check that the camera, serial port, I2C buses and GPIO it names are "
        "there and usable, and that the game its journal holds (a companion mode's: "
        "companion-MODE.sqlite beside it), read without writing, is the one it sets up. "
        "Exit 0 if all is well, 2 otherwise.",
    )
    where = c.add_mutually_exclusive_group()
    where.add_argument(
        "path",
        nargs="?",
        type=CONFIG_FILE,
        help=f"the config file (default {DEFAULT_CONFIG_PATH})",
    )
    where.add_argument(
        "--config",
        dest="config_path",
        metavar="PATH",
        type=CONFIG_FILE,
        help="the same, as `toptable run --config PATH` names it",
    )
    c.add_argument(
        "--no-devices",
        action="store_true",
        help="check the file only (e.g. on a laptop, for a config meant for the Pi)",
    )
    c.set_defaults(func=run_check)


def summary(cfg: Config) -> str:
    """One line saying what the config sets up."""
    cam = cfg.camera
    camera = f"{cam.source}" + (f" {cam.device_path}" if cam.source == "v4l2" else "")
    board = f"{cfg.board.backend}" + (f" {cfg.board.port}" if cfg.board.backend == "serial" else "")
    return (
        f"{cfg.table.players} players, {cfg.table.length}; camera {camera}; board {board}; "
        f"{len(cfg.displays.screens)} screen(s); controls {cfg.controls.backend}; "
        f"journal {cfg.table.journal}"
    )


def run_check(args: argparse.Namespace) -> int:
    """Check the file, then the devices; print one line when all is well.

    Raises:
        DataError: every problem found (the CLI prints them and exits 2).
    """
    path = args.path or args.config_path or DEFAULT_CONFIG_PATH
    cfg = load_config(path)
    notes: list[str] = []  # what the devices really deliver (the camera's size, rate, format)
    problems: list[DataProblem] = []
    if cfg.table.mode.plays_dice:
        try:
            game_data_for(cfg)  # the data set and board layout, read as `toptable run` reads them
        except DataError as exc:
            problems.extend(exc.problems)
            problems.extend(_named_by(cfg))  # the option that named a missing one
    if not args.no_devices:
        problems.extend(check_devices(cfg, notes=notes))
        held = held_game_problem(cfg)  # the journal's game, against what the config sets up
        if held is not None:
            problems.append(ConfigProblem(str(path), "table", "journal", held))
        problems.extend(_sandbox_problems(cfg, Path(path)))
    if problems:  # the layout is read as game data and as a device's file: said once
        raise DataError(dict.fromkeys(problems))
    checked = "file" if args.no_devices else "file and devices"
    print(f"{path}: OK ({checked}): {summary(cfg)}")
    for line in notes + model_fit(cfg):
        print(f"  {line}")
    return 0


def _named_by(cfg: Config) -> list[DataProblem]:
    """The config's option naming a data folder or board layout that is not there, as the
    devices' check says it (`--no-devices` named only the missing path)."""
    chk = DeviceChecker(cfg, DeviceProbe())
    check_data_folder(chk)
    if cfg.board.layout is not None:
        chk.file_missing("board", "layout", cfg.board.layout)
    return chk.problems


def _sandbox_problems(cfg: Config, path: Path) -> list[DataProblem]:
    """What the installed service's sandbox refuses of the config it runs (none for
    another config: a test's, a copy being edited)."""
    if not is_service_config(path):
        return []
    out: list[DataProblem] = []
    if (sandboxed := read_only_to_service(cfg.table.journal)) is not None:
        out.append(ConfigProblem(str(path), "table", "journal", sandboxed))
    if cfg.events is not None and (closed := network_closed()) is not None:
        out.append(ConfigProblem(str(path), "events", "", closed))
    return out


def model_fit(cfg: Config) -> list[str]:
    """How the camera's frame size fits what the face model learned from (a line, with its
    warnings), and the faces it never learned, for a camera whose size the config sets; a
    model that cannot be loaded is left to the checks above and to the daemon's start."""
    cam = cfg.camera
    if cam.source not in (CameraSource.V4L2, CameraSource.PICAMERA2):
        return []
    try:
        model = load_model(cam.model or DEFAULT_MODEL)
    except ModelError as exc:
        return [f"face model: cannot be loaded: {exc}"]
    params = model.params
    fit = camera_fit(
        model.domain,
        params.die_frac,
        cam.width,
        cam.height,
        params.oblique,
        camera_sizes(params, model.domain.sizes) if model.domain is not None else (),
    )
    if not model.unlearned:
        return [fit]
    never = ", ".join(repr(name) for name in model.unlearned)
    one = len(model.unlearned) == 1
    return [
        fit,
        f"face model: never learned {never} (no die labeled so in its photos): a die showing "
        f"{'it' if one else 'one of them'} is read as another face or asked about; label "
        f"{'it' if one else 'them'} and calibrate again",
    ]
