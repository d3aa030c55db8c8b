"""Whether the installed service may write a journal's folder: its unit's sandbox.

The unit runs with ``ProtectSystem=strict`` and ``ProtectHome=yes`` (systemd.exec(5)):
the whole file system is read-only to the service, ``/home``, ``/root`` and
``/run/user`` hidden, except its ``StateDirectory=`` (``/var/lib/toptable``) and the
folders a ``ReadWritePaths=`` line of the unit or one of its drop-ins gives it (not
under a hidden home). A journal elsewhere passes ``config check`` (run outside the
sandbox, as the owner) and is refused by the service, its folder "on a read-only file
system". The check reads the installed unit and its drop-ins in ``/etc`` as they are on
disk (a daemon-reload is the owner's step): the ``[Service]`` section's
``ReadWritePaths=``, ``ProtectSystem=``, ``ProtectHome=`` and ``RestrictAddressFamilies=``
(an empty assignment resets a list; a value with a ``%`` specifier is not read). ``/tmp``
and ``/var/tmp`` are the unit's own private folders (:mod:`controller.system.private_tmp`).
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

from controller.system.unit_files import CONFIG_DIR, STATE_DIR, UNIT_DIR, UNIT_NAME

SANDBOX_HINT = (
    "keep the journal in {state} (the unit's StateDirectory=), or give its folder to the "
    "service in a drop-in (`systemctl edit toptable`: [Service] ReadWritePaths={folder})"
)
HOMES = ("/home", "/root", "/run/user")
"""What ``ProtectHome=`` hides (or makes read-only); ``ReadWritePaths=`` cannot open them."""
PRIVATE = ("/tmp", "/var/tmp")
SERVICE_CONFIG = CONFIG_DIR / "config.toml"
"""The config the service runs: the only one whose journal its sandbox concerns."""


def _settings(unit_dir: Path) -> dict[str, list[str]] | None:
    """The ``[Service]`` settings of the installed unit and its drop-ins, in the order
    systemd reads them (a list setting's empty assignment resets it); None: the service
    is not installed."""
    unit = unit_dir / UNIT_NAME
    if not unit.is_file():
        return None
    out: dict[str, list[str]] = {}
    for path in [unit, *sorted((unit_dir / f"{UNIT_NAME}.d").glob("*.conf"))]:
        try:
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            continue
        section = ""
        for line in lines:
            line = line.strip()
            if line.startswith("[") and line.endswith("]"):
                section = line[1:-1]
                continue
            name, equals, value = line.partition("=")
            if section != "Service" or not equals or line.startswith(("#", ";")):
                continue
            try:
                words = shlex.split(value)
            except ValueError:
                words = value.split()
            key = name.strip()
            out[key] = [*out.get(key, []), *words] if words else []
    return out


def writable_paths(unit_dir: Path = UNIT_DIR) -> list[Path] | None:
    """The folders the installed service may write under ``ProtectSystem=strict`` (None:
    the service is not installed)."""
    settings = _settings(unit_dir)
    if settings is None:
        return None
    given = settings.get("ReadWritePaths", [])
    # "-" ignores a missing path, "+" is relative to the root directory; a "%" specifier
    # is systemd's to fill in
    paths = [Path(v.lstrip("-+")) for v in given if v.lstrip("-+") and "%" not in v]
    return [Path(STATE_DIR), *paths]


def read_only_to_service(journal: Path, unit_dir: Path = UNIT_DIR) -> str | None:
    """Why the installed service could not write ``journal`` (None: it can, or no service
    is installed, or the journal lies in the unit's private /tmp, said elsewhere)."""
    settings = _settings(unit_dir)
    allowed = writable_paths(unit_dir)
    if settings is None or allowed is None:
        return None
    where = Path(os.path.realpath(journal))
    if any(where.is_relative_to(p) for p in PRIVATE):
        return None
    home = (settings.get("ProtectHome") or ["no"])[-1].lower() not in ("no", "false", "0")
    if home and any(where.is_relative_to(h) for h in HOMES):
        return (
            f"{journal}: the installed service cannot write here: its unit's ProtectHome= "
            f"hides {', '.join(HOMES)} from it; keep the journal in {STATE_DIR}"
        )
    strict = (settings.get("ProtectSystem") or ["no"])[-1].lower() == "strict"
    if not strict or any(where.is_relative_to(os.path.realpath(p)) for p in allowed):
        return None
    return (
        f"{journal}: the installed service cannot write here (its unit's ProtectSystem=strict "
        f"makes every folder but its own read-only to it): "
        + SANDBOX_HINT.format(state=STATE_DIR, folder=journal.parent)
    )


def network_closed(unit_dir: Path = UNIT_DIR) -> str | None:
    """Why the installed service cannot reach an MQTT broker: its unit opens no IPv4 or
    IPv6 socket (the events drop-in is installed by ``service install`` only for a config
    with ``[events]`` at that time); None: it can, or no service is installed."""
    settings = _settings(unit_dir)
    families = (settings or {}).get("RestrictAddressFamilies", [])
    if not families or families[0].startswith("~"):  # none set, or a deny-list
        return None
    if {"AF_INET", "AF_INET6"} & set(families):
        return None
    return (
        "the installed service may open no network socket (its unit's "
        f"RestrictAddressFamilies={' '.join(families)}): run `sudo toptable service install` "
        "again, which adds the events drop-in for a config with [events]"
    )


def is_service_config(path: Path) -> bool:
    """Whether ``path`` is the config the installed service runs."""
    return os.path.realpath(path) == os.path.realpath(SERVICE_CONFIG)


def under_systemd() -> bool:
    """Whether this process is a systemd service's (systemd sets INVOCATION_ID for each)."""
    return bool(os.environ.get("INVOCATION_ID"))


def read_only_here(folder: Path) -> str | None:
    """Why this service cannot write in ``folder`` (or the nearest folder above it that
    exists): run by systemd, it lies on a file system read-only to it (its sandbox);
    None otherwise, and outside systemd."""
    if not under_systemd():
        return None
    there = folder
    while not os.path.exists(there) and there != there.parent:  # (False where it may not look)
        there = there.parent
    try:
        read_only = bool(os.statvfs(there).f_flag & os.ST_RDONLY)
    except OSError:  # a folder it may not enter: the folder's own check names it
        return None
    if not read_only:
        return None
    return (
        f"{folder}: read-only to the service (its unit's ProtectSystem=strict and "
        "ProtectHome=yes make every folder but its own read-only to it): "
        + SANDBOX_HINT.format(state=STATE_DIR, folder=folder)
    )
