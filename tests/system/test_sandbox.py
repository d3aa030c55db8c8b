"""A journal the installed service may not write (its unit's ProtectSystem=strict) is named
by ``config check``, and by the service itself with the fix: it said "make the folder
writable for root", a folder that was writable, and stayed down (exit 2)."""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace

import pytest

from controller.system.sandbox import (
    network_closed,
    read_only_here,
    read_only_to_service,
    writable_paths,
)
from tests.as_nobody import as_nobody

SHIPPED_UNIT = Path(__file__).resolve().parents[2] / "systemd" / "toptable.service"


def _installed(tmp_path: Path, *drop_ins: str) -> Path:
    units = tmp_path / "units"
    (units / "toptable.service.d").mkdir(parents=True)
    (units / "toptable.service").write_text(SHIPPED_UNIT.read_text())
    for n, text in enumerate(drop_ins):
        (units / "toptable.service.d" / f"{n}-owner.conf").write_text(f"[Service]\n{text}\n")
    return units


def test_a_journal_outside_the_state_directory_is_read_only_to_the_service(
    tmp_path: Path,
) -> None:
    units = _installed(tmp_path)
    assert read_only_to_service(Path("/var/lib/toptable/journal.sqlite"), units) is None
    said = read_only_to_service(Path("/srv/games/journal.sqlite"), units)
    assert said is not None and said.startswith("/srv/games/journal.sqlite: the installed")
    assert "ReadWritePaths=/srv/games" in said and "/var/lib/toptable" in said
    assert read_only_to_service(Path("/srv/games/j.sqlite"), tmp_path / "none") is None


def test_a_drop_in_gives_the_service_a_folder_and_an_empty_line_takes_them_back(
    tmp_path: Path,
) -> None:
    given = _installed(tmp_path / "a", "ReadWritePaths=-/srv/games /mnt/usb")
    assert read_only_to_service(Path("/srv/games/j.sqlite"), given) is None
    assert read_only_to_service(Path("/mnt/usb/day1/j.sqlite"), given) is None
    reset = _installed(tmp_path / "b", "ReadWritePaths=/srv/games", "ReadWritePaths=")
    assert writable_paths(reset) == [Path("/var/lib/toptable")]


def test_the_service_names_its_sandbox_on_a_read_only_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(os, "statvfs", lambda p: SimpleNamespace(f_flag=os.ST_RDONLY))
    monkeypatch.delenv("INVOCATION_ID", raising=False)
    assert read_only_here(tmp_path) is None  # outside systemd: the usual message says it
    monkeypatch.setenv("INVOCATION_ID", "0123abcd")
    said = read_only_here(tmp_path)
    assert said is not None and "ProtectSystem=strict" in said and "systemctl edit" in said


def test_an_installed_service_without_the_events_drop_in_can_reach_no_broker(
    tmp_path: Path,
) -> None:
    closed = _installed(tmp_path / "a")
    said = network_closed(closed)
    assert said is not None and "AF_UNIX AF_NETLINK" in said and "service install" in said
    events = SHIPPED_UNIT.parent / "toptable-events.conf"
    opened = _installed(tmp_path / "b", events.read_text().replace("[Service]\n", ""))
    assert network_closed(opened) is None
    assert network_closed(tmp_path / "none") is None


def test_the_units_settings_are_read_as_systemd_reads_them(tmp_path: Path) -> None:
    home = _installed(tmp_path / "a", "ReadWritePaths=/home/pi/games")
    said = read_only_to_service(Path("/home/pi/games/j.sqlite"), home)
    assert said is not None and "ProtectHome=" in said  # a drop-in cannot open a hidden home
    quoted = _installed(tmp_path / "b", 'ReadWritePaths="/srv/my games"')
    assert read_only_to_service(Path("/srv/my games/j.sqlite"), quoted) is None
    elsewhere = _installed(tmp_path / "c", "[Install]\nReadWritePaths=/srv/games")
    assert read_only_to_service(Path("/srv/games/j.sqlite"), elsewhere) is not None
    full = _installed(tmp_path / "d", "ProtectSystem=full")
    assert read_only_to_service(Path("/srv/games/j.sqlite"), full) is None
    assert read_only_to_service(Path("/tmp/j.sqlite"), full) is None  # private_tmp's to say
    denied = _installed(
        tmp_path / "e", "RestrictAddressFamilies=\nRestrictAddressFamilies=~AF_PACKET"
    )
    assert network_closed(denied) is None


def test_a_folder_the_service_may_not_enter_is_left_to_the_folders_own_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under a home the sandbox hides (or any folder it may not enter), looking for the
    nearest folder raised PermissionError: the service crashed and was restarted every
    3 s instead of exiting 2 with the folder's own line."""
    closed = tmp_path / "home"
    (closed / "pi").mkdir(parents=True)
    closed.chmod(0o700)
    monkeypatch.setenv("INVOCATION_ID", "0123abcd")
    code, text = as_nobody(lambda: read_only_here(closed / "pi" / "games"))
    assert (code, text) == (0, "")
