"""``toptable config check``: exit 0 and one line when all is well, 2 and every problem if not."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.cli import main as cli
from tests.paths import REPO

REPO = REPO
DEMO = REPO / "controller" / "data" / "demo" / "config.toml"
EXAMPLE = REPO / "systemd" / "config.example.toml"

pytestmark = pytest.mark.timeout(30)


@pytest.fixture(autouse=True)
def only_config_commands(monkeypatch: pytest.MonkeyPatch) -> None:
    """Run the real ``toptable`` main with just this module's commands registered."""
    monkeypatch.setattr(cli, "COMMAND_MODULES", ("controller.cli.config",))


def test_demo_config_passes_file_and_device_checks(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["config", "check", str(DEMO)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{DEMO}: OK (file and devices): 2 players, rounds10; camera synthetic")
    assert "board simulated; 4 screen(s); controls mock" in out


def test_example_config_file_check_only(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["config", "check", "--no-devices", str(EXAMPLE)]) == 0
    assert "OK (file): 2 players, rounds10; camera v4l2 /dev/video0" in capsys.readouterr().out


def test_typo_exits_2_naming_section_and_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[table]\nplayers = 2\nlenght = "rounds5"\n[log]\nlevel = "loud"\n')
    assert cli.main(["config", "check", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("toptable: error: 2 problems:\n")
    assert f"{path}: Option 'lenght' in section 'table' is not a valid option" in err
    assert "(did you mean 'length'?)" in err
    assert f"{path}: Option 'level' in section 'log' must be one of debug" in err


def test_missing_devices_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "config.toml"
    path.write_text(
        f'[table]\njournal = "{tmp_path}/j.sqlite"\n'
        '[camera]\ndevice = "/dev/video-none"\n'
        '[board]\nbackend = "simulated"\n[controls]\nbackend = "mock"\n'
    )
    assert cli.main(["config", "check", str(path)]) == 2
    err = capsys.readouterr().err
    assert "Option 'device' in section 'camera' names /dev/video-none, which does not exist" in err


def test_missing_file_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["config", "check", str(tmp_path / "nope.toml")]) == 2
    assert "no such config file" in capsys.readouterr().err


def test_default_path_is_etc(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from controller.cli import config as command
    from controller.config import DEFAULT_CONFIG_PATH

    assert Path("/etc/toptable/config.toml") == DEFAULT_CONFIG_PATH
    monkeypatch.setattr(command, "DEFAULT_CONFIG_PATH", tmp_path / "etc-config.toml")
    assert cli.main(["config", "check"]) == 2
    assert f"{tmp_path / 'etc-config.toml'}: no such config file" in capsys.readouterr().err
