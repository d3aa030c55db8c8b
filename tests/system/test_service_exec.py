"""``toptable service install``: the unit's ExecStart= runs the installing environment's
toptable, written as systemd reads it (a blank quoted, a ``%`` doubled), and a program
systemd cannot run, or that the unit's sandbox hides, is refused before anything is written.

Split from test_service_install.py (staging into a root, the board's drop-ins and udev rule).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.cli.main import main
from controller.system.service import InstallOptions, plan_install
from controller.system.unit_files import ServiceError

pytestmark = pytest.mark.timeout(30)

EXEC = "/opt/toptable/venv/bin/toptable"


def staged(root: Path) -> list[str]:
    """``toptable service install --root ROOT --exec EXEC``, whose last two words a test
    replaces with its own ``--exec``."""
    return ["service", "install", "--root", str(root), "--exec", EXEC]


def test_exec_start_runs_the_installing_environments_toptable(tmp_path: Path) -> None:
    root = tmp_path / "root"
    assert main([*staged(root)[:-2], "--exec", "/srv/tt/bin/toptable"]) == 0
    unit = (root / "etc/systemd/system/toptable.service").read_text()
    assert "ExecStart=/srv/tt/bin/toptable run --config /etc/toptable/config.toml" in unit


@pytest.mark.parametrize(
    ("exec_path", "word"),
    [
        ("/srv/my venv/bin/toptable", '"/srv/my venv/bin/toptable"'),
        ("/srv/100%/bin/toptable", "/srv/100%%/bin/toptable"),
        ("/srv/tables $1/bin/toptable", '"/srv/tables $1/bin/toptable"'),
        ("/srv/été/bin/toptable", "/srv/été/bin/toptable"),
    ],
)
def test_exec_start_names_a_program_with_a_blank_or_percent_as_systemd_reads_it(
    tmp_path: Path, exec_path: str, word: str
) -> None:
    """systemd splits ExecStart= at blanks (``/srv/my venv/...`` ran ``/srv/my``) and reads
    ``%`` as a specifier: the program is quoted, the ``%`` doubled."""
    root = tmp_path / "root"
    assert main([*staged(root)[:-2], "--exec", exec_path]) == 0
    unit = (root / "etc/systemd/system/toptable.service").read_text(encoding="utf-8")
    assert f"ExecStart={word} run --config /etc/toptable/config.toml\n" in unit


@pytest.mark.parametrize("exec_path", ['/srv/a"b/toptable', "/srv/a'b/toptable", "/srv/a\\b/t"])
def test_a_program_systemd_cannot_run_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], exec_path: str
) -> None:
    # systemd: "Executable name contains special characters", the unit not started
    assert main([*staged(tmp_path / "root")[:-2], "--exec", exec_path]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"toptable: error: --exec {exec_path!r}: systemd runs no program whose path holds a "
        "quote, a backslash or a control character; expected toptable installed at a plainer "
        "path, e.g. /opt/toptable/venv/bin/toptable\n"
    )
    assert not (tmp_path / "root").exists()


@pytest.mark.parametrize(
    ("exec_path", "hidden"),
    [
        ("/home/pi/v/bin/toptable", "ProtectHome=yes hides /home"),
        ("/tmp/v/bin/toptable", "PrivateTmp=yes hides /tmp"),
        ("/var/tmp/v/bin/toptable", "PrivateTmp=yes hides /var/tmp"),
    ],
)
def test_a_toptable_the_sandbox_hides_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], exec_path: str, hidden: str
) -> None:
    args = ["service", "install", "--root", str(tmp_path), "--exec", exec_path]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert f"--exec {exec_path}: the unit's {hidden}" in err


def test_a_live_install_needs_a_real_toptable_program() -> None:
    with pytest.raises(ServiceError) as info:
        plan_install(InstallOptions(exec_path="/nonexistent/bin/toptable"))
    assert str(info.value).startswith("--exec /nonexistent/bin/toptable: no such program; expected")


@pytest.mark.parametrize(
    ("exec_path", "said"),
    [
        ("bin/" + "t" * 100_000, "expected an absolute path to the toptable program"),
        ("/nonexistent/" + "t" * 100_000, "no such program; expected"),
        ("/tmp/" + "t" * 100_000, "the unit's PrivateTmp=yes hides /tmp"),
    ],
)
def test_a_huge_exec_path_is_cut_short(tmp_path: Path, exec_path: str, said: str) -> None:
    live = "no such program" in said  # a staged install looks for no program
    root = Path("/") if live else tmp_path
    with pytest.raises(ServiceError) as info:
        plan_install(InstallOptions(exec_path=exec_path, root=root))
    shown = str(info.value)
    assert len(shown) < 400 and f"... ({len(exec_path)} characters): {said}" in shown
