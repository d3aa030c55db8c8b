"""``toptable dice table-photos``: the throws played at the table, as labelled photos.

    toptable dice table-photos JOURNAL [JOURNAL ...] --out DIR
    toptable dice calibrate OWNER_PHOTOS --also DIR --out MODEL.npz

Each game's journal names the frame of every throw and the faces the table settled on;
the frames' dice boxes lie beside them. The photos written learn beside the owner's own
(``--also``): a table asks less once its played throws are learned.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from controller.cli.flags import ExistingFile, OutputDir
from controller.core.symbols import SYMBOL_NAMES
from controller.game.journal import Journal
from controller.game.played_throws import frame_path, played_throws
from vision.learning.table_photos import PlayedThrow, write_table_photos


def cmd_table_photos(args: argparse.Namespace) -> int:
    """Write the played throws of the journals given as a labelled set."""
    throws: list[PlayedThrow] = []
    for path in args.journal:
        with Journal.open(path, writable=False) as journal:
            events, game = journal.events(), journal.game_id
        throws.extend(
            PlayedThrow(frame_path(played.evidence, Path(path), game), played.faces, game)
            for played in played_throws(events)
        )
    report = write_table_photos(throws, SYMBOL_NAMES, args.out)
    for line in report.lines():
        print(line)
    if report.photos:
        print(f"learn from them with: toptable dice calibrate OWNER_PHOTOS --also {args.out} "
              "--out MODEL.npz")  # fmt: skip
    return 0


def add_table_photos(dice: Any) -> None:
    """Register ``dice table-photos`` on the ``dice`` subparsers."""
    t = dice.add_parser(
        "table-photos",
        help="turn the throws played at the table into labelled photos to learn from",
        description="Write every throw of the games' journals whose frame was kept as a "
        "labelled photo (YOLO layout), each die labelled with the face the table settled "
        "on: read sure, answered when asked, or corrected. A throw whose dice were counted "
        "by hand, or whose frame is gone, is left out and named. Learn from them beside "
        "your own photos with `toptable dice calibrate OWNER_PHOTOS --also DIR`.",
    )
    t.add_argument("journal", nargs="+", type=ExistingFile(), help="a game's journal")
    t.add_argument("--out", required=True, type=OutputDir(), help="folder to write the photos to")
    t.set_defaults(func=cmd_table_photos)
