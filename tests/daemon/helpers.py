"""Helpers for testing ``toptable run``: a simulated table's config in a temp folder."""

from __future__ import annotations

from pathlib import Path

import cv2

from controller.gamedata import DEMO_DIR
from vision.synth.scenes import Renderer


def simulated_config(folder: Path, players: int = 2, camera: str | None = None) -> Path:
    """The demo config with absolute paths, its journal in ``folder``, and a still camera
    (a folder holding one picture of the empty tray) unless ``camera`` replaces the section."""
    tray = folder / "tray"
    tray.mkdir(exist_ok=True)
    cv2.imwrite(str(tray / "empty.png"), Renderer(seed=1).render([]))
    text = (DEMO_DIR / "config.toml").read_text(encoding="utf-8")
    text = text.replace('data_dir = "."', f'data_dir = "{DEMO_DIR}"')
    text = text.replace('layout = "board.toml"', f'layout = "{DEMO_DIR / "board.toml"}"')
    text = text.replace(
        'journal = "~/.local/state/toptable/demo-journal.sqlite"',
        f'journal = "{folder / "journal.sqlite"}"',
    )
    text = text.replace("players = 2", f"players = {players}")
    section = camera or f'[camera]\nsource = "folder"\npath = "{tray}"\n'
    start = text.index("[camera]")
    end = text.index("[board]")
    text = text[:start] + section + "\n" + text[end:]
    path = folder / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path
