"""An emulated screen's ``output`` (the GIF written as the daemon stops): the files it may
not name, and the GIFs of before it may write over, whatever their age or length."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from controller.config import load_config, parse_config
from controller.core.errors import DataError

pytestmark = pytest.mark.timeout(30)


def _screen(output: str, mode: str = "tournament") -> dict[str, Any]:
    """A table in ``mode`` journalled at game.sqlite, its one screen emulated into ``output``."""
    return {
        "table": {"journal": "game.sqlite", "mode": mode, "players": 2},
        "displays": {"screen": [{"role": "turn", "driver": "emulator", "output": output}]},
    }


def test_an_output_naming_the_config_itself_is_said_to_be_a_file_the_table_keeps(
    tmp_path: Path,
) -> None:
    """The config file is no GIF to write over: the problem says it is the table's own file."""
    config = tmp_path / "table.toml"
    config.write_text(
        '[table]\njournal = "game.sqlite"\n\n[[displays.screen]]\nrole = "turn"\n'
        'driver = "emulator"\noutput = "table.toml"\n',
        encoding="utf-8",
    )
    with pytest.raises(DataError) as info:
        load_config(config)
    assert [str(p) for p in info.value.problems] == [
        f"{config}: Option 'output' in section 'displays.screen[1]' names {config}, a file the "
        "table keeps (its journal or its config): name another file for the screen's animation"
    ]


def test_an_output_naming_a_companion_modes_journal_is_refused_before_it_exists(
    tmp_path: Path,
) -> None:
    """A companion table keeps its game in companion-MODE.sqlite: a screen may not write there."""
    with pytest.raises(DataError) as info:
        parse_config(_screen("companion-challengers.sqlite", "challengers"), "c.toml", tmp_path)
    (problem,) = info.value.problems
    assert "Option 'output' in section 'displays.screen[1]'" in str(problem)
    assert "a file the table keeps" in str(problem)


@pytest.mark.parametrize(
    ("name", "head"),
    [
        ("gif87.gif", b"GIF87a" + bytes(20)),  # the first GIF version, as old tools write it
        ("cut.gif", b"GIF"),  # a GIF a power cut stopped after a few bytes
        ("cut5.gif", b"GIF89"),
    ],
)
def test_an_output_holding_a_gif_of_before_is_accepted(
    tmp_path: Path, name: str, head: bytes
) -> None:
    """A screen may write its animation over a GIF of its own, however old or cut short."""
    (tmp_path / name).write_bytes(head)
    cfg = parse_config(_screen(name), "c.toml", tmp_path)
    assert cfg.displays.screens[0].output == tmp_path / name


def test_an_output_of_six_bytes_that_are_no_gif_is_refused(tmp_path: Path) -> None:
    """Six bytes are enough to tell a file is no GIF: the screen would write over it."""
    (tmp_path / "notes.txt").write_bytes(b"notes!")
    with pytest.raises(DataError, match="a file that is no GIF"):
        parse_config(_screen("notes.txt"), "c.toml", tmp_path)
