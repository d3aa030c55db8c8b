"""Whether the installed service may write a journal's folder: its unit's sandbox.

The unit runs with ``ProtectSystem=strict`` and ``ProtectHome=yes`` (systemd.exec(5)):
the whole file system is read-only to the service (``/home``, ``/root`` and
``/run/user`` hidden) except its ``StateDirectory=`` (``/var/lib/toptable``) and the
folders a ``ReadWritePaths=`` line of the unit or one of its drop-ins gives it. A journal
elsewhere passes ``config check`` (run outside the sandbox, as the owner) and is refused
by the service, its folder "on a read-only file system". The check reads the installed
unit and drop-ins as they are on disk (a daemon-reload is the owner's step).
"""

from __future__ import annotations

import os
from pathlib import Path

from controller.system.unit_files import STATE_DIR, UNIT_DIR, UNIT_NAME

SANDBOX_HINT = (
    "keep the journal in {state} (the unit's StateDirectory=), or give its folder to the "
    "service in a drop-in (`systemctl edit toptable`: [Service] ReadWritePaths={folder})"
)


def _settings(key: str, unit_dir: Path) -> list[str] | None:
    """The values of ``key`` in the installed unit and its drop-ins, in the order systemd
    reads them, an empty assignment resetting the list (systemd.unit(5)); None: the
    service is not installed."""
    unit = unit_dir / UNIT_NAME
    if not unit.is_file():
        return None
    out: list[str] = []
    for path in [unit, *sorted((unit_dir / f"{UNIT_NAME}.d").glob("*.conf"))]:
        try:
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            continue
        for line in lines:
            name, _, value = line.strip().partition("=")
            if name.strip() == key:
                out = [*out, *value.split()] if value.strip() else []
    return out


def writable_paths(unit_dir: Path = UNIT_DIR) -> list[Path] | None:
    """The folders the installed service may write (None: the service is not installed)."""
    given = _settings("ReadWritePaths", unit_dir)
    if given is None:
        return None
    # a leading "-" ignores a missing path, "+" is relative to the root directory
    return [Path(STATE_DIR), *(Path(v.lstrip("-+")) for v in given if v.lstrip("-+"))]


def network_closed(unit_dir: Path = UNIT_DIR) -> str | None:
    """Why the installed service cannot reach an MQTT broker: its unit opens no IPv4 or
    IPv6 socket (the events drop-in is installed by ``service install`` only for a config
    with ``[events]`` at that time); None: it can, or no service is installed."""
    families = _settings("RestrictAddressFamilies", unit_dir)
    if families is None or not families or {"AF_INET", "AF_INET6"} & set(families):
        return None
    return (
        "the installed service may open no network socket (its unit's "
        f"RestrictAddressFamilies={' '.join(families)}): run `sudo toptable service install` "
        "again, which adds the events drop-in for a config with [events]"
    )


def read_only_to_service(journal: Path, unit_dir: Path = UNIT_DIR) -> str | None:
    """Why the installed service could not write ``journal`` (None: it can, or no service
    is installed)."""
    allowed = writable_paths(unit_dir)
    if allowed is None:
        return None
    where = Path(os.path.realpath(journal))
    if any(where.is_relative_to(os.path.realpath(folder)) for folder in allowed):
        return None
    return (
        f"{journal}: the installed service cannot write here (its unit's ProtectSystem=strict "
        f"and ProtectHome=yes make every folder but its own read-only to it): "
        + SANDBOX_HINT.format(state=STATE_DIR, folder=journal.parent)
    )


def under_systemd() -> bool:
    """Whether this process is a systemd service's (systemd sets INVOCATION_ID for each)."""
    return bool(os.environ.get("INVOCATION_ID"))


def read_only_here(folder: Path) -> str | None:
    """Why this service cannot write in ``folder``: run by systemd, the folder lies on a
    file system read-only to it (its sandbox; None otherwise, and outside systemd)."""
    if not under_systemd():
        return None
    try:
        read_only = bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except OSError:
        return None
    if not read_only:
        return None
    return (
        f"{folder}: read-only to the service (its unit's ProtectSystem=strict and "
        "ProtectHome=yes make every folder but its own read-only to it): "
        + SANDBOX_HINT.format(state=STATE_DIR, folder=folder)
    )
