"""A FIFO or a device named where a file is written (a journal, a map): refused in one line,
exit 2, never opened (opening a FIFO waits for a writer: ``demo --journal FIFO`` hung), and
``config check`` says what ``run`` then refuses (review of bad inputs)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import pytest

from controller.cli import flags
from controller.config import parse_config
from controller.config.devices import check_devices
from controller.config.probe import DeviceProbe
from tests.cli_runner import cli_runner

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "fifo"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize("kind", [flags.OutputFile(), flags.JournalFile()], ids=repr)
def test_a_fifo_or_a_device_is_no_file_to_write(kind: object, fifo: Path) -> None:
    for path in (str(fifo), os.devnull):
        with pytest.raises(argparse.ArgumentTypeError) as raised:
            kind(path)  # type: ignore[operator]
        assert str(raised.value) == f"{path} is not a regular file; expected a file"


def test_game_play_on_a_fifo_is_one_line(
    fifo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    run = cli_runner(monkeypatch, capsys, "controller.cli.game")
    code, out, err = run("game", "play", str(fifo))
    assert (code, out) == (2, "")
    assert err == (
        f"toptable game play: error: argument journal: {fifo} is not a regular file; "
        "expected a file\n"
    )


def test_config_check_refuses_a_journal_that_is_a_fifo_or_a_device(
    tmp_path: Path, fifo: Path
) -> None:
    for journal in (fifo, Path(os.devnull)):
        cfg = parse_config(
            {"table": {"journal": str(journal)}, "camera": {"source": "synthetic"},
             "board": {"backend": "simulated"}, "controls": {"backend": "mock"}},
            "cfg.toml",
            tmp_path,
        )  # fmt: skip
        assert [str(p) for p in check_devices(cfg, DeviceProbe())] == [
            f"cfg.toml: Option 'journal' in section 'table' names {journal}, which is not a "
            "regular file (a FIFO or a device): the daemon would refuse it; name a file"
        ]


def test_a_link_left_to_a_device_is_a_place_for_the_simulator_s_link(tmp_path: Path) -> None:
    # the simulator's link, left by a killed run, may lead to a pseudo-terminal still there
    link = tmp_path / "ttyTOP"
    link.symlink_to(os.devnull)
    assert flags.OutputFile(link=True)(str(link)) == link
    with pytest.raises(argparse.ArgumentTypeError):
        flags.OutputFile()(str(link))
