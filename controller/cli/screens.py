"""``toptable screens``: render every table screen as PNG, or regenerate the test references."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from controller.cli.flag_needs import not_with, only_with
from controller.cli.flags import ExistingFile, FlagError, OutputPath, Text, Whole
from controller.core.quoting import printable
from hardware.displays.errors import DisplayError


def register(sub: Any) -> None:
    """Add the ``screens`` subcommand."""
    p = sub.add_parser(
        "screens",
        help="render every screen of a table state as PNG",
        description=(
            "Render every screen of a table state as PNG (1:1 and scaled up). "
            "'toptable screens references --out DIR' deliberately regenerates the test reference PNGs "
            "from the bundled example state."
        ),
    )
    action = p.add_argument(
        "action",
        nargs="?",
        choices=("render", "references", "play"),
        default="render",
        help=(
            "render (default); references (rewrite the test references in --out); "
            "play (a simulated fight on a luma.emulator device)"
        ),
    )
    state = p.add_argument("--state", type=ExistingFile(text=True),
                   help="a TableView JSON (default: the bundled example)")  # fmt: skip
    p.add_argument("--out", type=OutputPath(),
                   help="output folder (required for render; play: a .gif file or a folder)")  # fmt: skip
    scale = p.add_argument("--scale", type=Whole(0, 16), default=4,
                   help="also write NAME@Nx.png, 0..16 (0: no; default 4)")  # fmt: skip
    emulator = p.add_argument(
        "--emulator",
        choices=("gifanim", "capture", "pygame"),
        default="gifanim",
        help="play: a GIF (--out FILE.gif), PNG frames (--out DIR) or a pygame window",
    )
    screen = p.add_argument("--screen", default="turn", type=Text(),
                   help="play: the screen to show (default turn)")  # fmt: skip
    seconds = p.add_argument("--seconds", type=Whole(1, 3_600), default=20,
                   help="play: simulated seconds (default 20)")  # fmt: skip
    only_with(p, scale, (action, ("render",)))
    for option in (emulator, screen, seconds):
        only_with(p, option, (action, ("play",)))
    not_with(p, state, (action, ("references",)))  # the tests compare with the bundled state
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Render the screens; return 0, or 2 if an argument is missing.

    Raises:
        DataError: the state file is unreadable or malformed.
    """
    from hardware.displays.companion import write_readme_pictures
    from hardware.displays.gallery import cases, every_case, write_cases
    from hardware.displays.view_json import EXAMPLE_STATE, load_view

    view = load_view(args.state or EXAMPLE_STATE)
    if args.action == "references":
        if args.out is None:
            raise FlagError(
                "screens references needs --out DIR (in a checkout: tests/data/references/screens)"
            )
        out = args.out
        written = write_cases(cases(view), out, scale=0)
        print(f"wrote {len(written)} reference PNGs to {out}")
        return 0
    if args.action == "play":
        return _play(args, view)
    if args.out is None:
        raise FlagError("screens render needs --out DIR (the folder the PNGs go to)")
    try:
        written = write_cases(every_case(view), args.out, scale=args.scale)
        written += write_readme_pictures(args.out, max(args.scale, 1))  # the README's
    except OSError as exc:
        raise DisplayError(
            f"cannot write PNGs to {printable(str(args.out))}: {exc.strerror or exc}"
        ) from None
    print(f"wrote {len(written)} PNGs to {args.out}")
    return 0


def _play(args: argparse.Namespace, view: Any) -> int:
    """Push a simulated fight (4 Hz, running clock) to one emulator display.

    Raises:
        DisplayUnavailableError: the emulator cannot start (luma.emulator or pygame missing).
        FlagError: no --out, or one the emulator cannot write (see :func:`_play_output`).
    """
    import time

    from controller.bench.screens import fight
    from hardware.displays.device_config import DisplayConfig
    from hardware.displays.i2c_bus import BusPool
    from hardware.displays.luma_open import open_display

    if args.emulator != "pygame" and args.out is None:
        raise FlagError("screens play needs --out (a .gif file, or a folder for capture)")
    output = _play_output(args.emulator, args.out)
    cfg = DisplayConfig("emulator", driver=args.emulator, screen=args.screen, output=output)
    display = open_display(cfg, BusPool())
    pushed = 0
    try:
        for v in fight(view, args.seconds, 4):
            pushed += display.update(v)
            if args.emulator == "pygame":
                time.sleep(0.25)
    finally:
        display.close()
    print(f"played {args.seconds} simulated seconds on {args.emulator}: {pushed} frames pushed")
    return 0


def _play_output(emulator: str, out: Path | None) -> str:
    """What the emulator writes to: capture's frames in the folder ``out`` (made), the GIF
    ``out`` (its folder made); "" for a window. Checked before the play: the emulator's own
    failure to write comes at its close, where it is lost.

    Raises:
        FlagError: capture given a file; gifanim given a folder, or a file not named .gif
            (an existing file of another kind would be written over with a GIF).
    """
    if emulator == "capture" and out is not None:
        if out.exists() and not out.is_dir():
            raise FlagError(
                f"argument --out: {printable(str(out))} is a file; capture writes PNG frames to a folder"
            )
        out.mkdir(parents=True, exist_ok=True)
        return str(out / "frame_{0:04}.png")
    if emulator == "gifanim" and out is not None:
        if out.is_dir():
            raise FlagError(
                f"argument --out: {printable(str(out))} is a folder; expected a .gif file "
                "(or --emulator capture for PNG frames in a folder)"
            )
        if out.suffix.lower() != ".gif":
            raise FlagError(f"argument --out: {printable(str(out))}: expected a file named .gif")
        out.parent.mkdir(parents=True, exist_ok=True)
        return str(out)
    return ""
