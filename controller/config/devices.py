"""Are the devices and files a config names there and usable? Messages a person can act on.

:func:`check_devices` looks at what :func:`controller.config.load_config`
cannot see in the file itself: the camera device exists, opens and delivers
frames of the configured size (picamera2: the package is installed), the board's
serial port exists and no other program owns it, each I2C bus exists and is
readable and a screen answers at its address (behind its TCA9548A channel if
any), a GPIO chip is there for the buttons, the layout and model files load.
It returns every problem as a :class:`~controller.core.config_schema.ConfigProblem` naming
the section and option to change, and touches nothing for simulated backends.

The OS calls go through :class:`DeviceProbe`, so tests pass a fake one.
"""

from __future__ import annotations

import sqlite3
import ssl
import stat
from pathlib import Path

from controller.config.board_check import check_board
from controller.config.camera_check import check_camera
from controller.config.compose import Config
from controller.config.controls_check import check_controls
from controller.config.device_checker import DeviceChecker
from controller.config.display_check import check_displays
from controller.config.probe import DeviceProbe
from controller.core.errors import DataProblem
from controller.publish.client import ca_file_problem
from controller.publish.settings import CredentialsError
from controller.storage.place import too_long_for_sqlite
from controller.storage.sqlite_file import read_only


def check_data_folder(chk: DeviceChecker) -> None:
    """``[table] data_dir``: the folder exists."""
    t = chk.cfg.table
    if t.data_dir is not None and not chk.is_dir(t.data_dir):
        chk.add("table", "data_dir", f"names {t.data_dir}, which is not a folder")


def check_table(chk: DeviceChecker) -> None:
    """``[table]``: the data folder exists and the journal's folder is writable."""
    t = chk.cfg.table
    check_data_folder(chk)
    kept = t.game_journal
    if (long := too_long_for_sqlite(kept, creating=not chk.is_file(kept))) is not None:
        said = "is" if kept == t.journal else f"keeps the {t.mode.value} game in {kept.name},"
        chk.add("table", "journal", f"{said} {long}")
    elif chk.is_dir(t.journal):
        chk.add("table", "journal", f"names {t.journal}, which is a folder: name the file")
    elif _special(chk, t.journal):
        chk.add("table", "journal", f"names {t.journal}, which is not a regular file (a FIFO "
                "or a device): the daemon would refuse it; name a file")  # fmt: skip
    elif chk.is_file(t.journal) and (why := _not_a_journal(t.journal)) is not None:
        chk.add("table", "journal", f"names {t.journal}, {why}: the daemon would refuse it")
    folder = t.journal.parent
    if (under := next((p for p in (folder, *folder.parents) if chk.is_file(p)), None)) is not None:
        chk.add("table", "journal", f"is in {folder}, but {under} is a file, so no folder can "
                "be made there: name a path in a folder")  # fmt: skip
        return
    existing = folder
    while not chk.is_dir(existing) and existing != existing.parent:
        existing = existing.parent
    if not chk.probe.writable_dir(str(existing)):
        made = "" if existing == folder else f" (which the daemon would create in {existing})"
        chk.add(
            "table",
            "journal",
            f"is in {folder}{made}, where this user cannot create a file (tried): the unit's "
            "StateDirectory= makes /var/lib/toptable for the service user; elsewhere "
            "create the folder and chown it to the user running toptable",
        )


def _special(chk: DeviceChecker, path: Path) -> bool:
    """Whether something neither a file nor a folder is at ``path`` (a FIFO, a device)."""
    try:
        mode = chk.probe.stat(str(path)).st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def _not_a_journal(path: Path) -> str | None:
    """Why the existing file at ``path`` is no journal the daemon resumes (read only,
    nothing written; the daemon's own open checks it whole), or None."""
    try:
        with read_only(path) as conn:
            conn.execute("SELECT key, value FROM meta LIMIT 1").fetchall()
            conn.execute("SELECT seq FROM events LIMIT 1").fetchall()
    except sqlite3.DatabaseError as exc:
        return f"which is not a journal ({exc})"
    except OSError as exc:
        return f"which cannot be read ({exc.strerror or exc})"
    return None


def check_events(chk: DeviceChecker) -> None:
    """``[events]``: the password file reads, and the CA file loads as paho will load it
    (:func:`controller.publish.client.make_client`)."""
    events = chk.cfg.events
    if events is None:
        return
    conn = events.connection
    try:
        conn.password()
    except CredentialsError as exc:
        chk.add("events", "password_file", f"names {exc}")
    else:
        if (shown := _readable_by_all(conn.password_file)) is not None:
            chk.notes.append(shown)
    if conn.tls:
        try:
            ssl.create_default_context(cafile=str(conn.ca_file) if conn.ca_file else None)
        except (OSError, ssl.SSLError) as exc:
            chk.add("events", "ca_file", f"names {ca_file_problem(conn.ca_file, exc)}")


def _readable_by_all(path: Path | None) -> str | None:
    """A warning when the password file ``path`` is readable by every user of the machine
    (``echo PW | sudo tee FILE`` leaves 0644): on a club's Pi, a guest account reads the
    password that lets it publish as the table."""
    try:
        mode = path.stat().st_mode if path is not None else 0
    except OSError:
        return None
    if path is None or not mode & stat.S_IROTH:
        return None
    return (
        f"warning: [events] password_file {path} can be read by every user of this machine "
        f"(mode {stat.S_IMODE(mode):04o}): sudo chgrp toptable {path} && sudo chmod 0640 {path}"
    )


def check_devices(
    cfg: Config, probe: DeviceProbe | None = None, notes: list[str] | None = None
) -> tuple[DataProblem, ...]:
    """Every problem with the devices and files ``cfg`` names; empty when all is well.

    Nothing is raised: the caller decides which problems stop the daemon
    (``toptable config check`` reports them all and exits 2). ``notes``, when
    given, receives what was found working, a line each (the camera: what it
    really delivers, size, rate and format).
    """
    checker = DeviceChecker(cfg, probe or DeviceProbe())
    checks = (check_table, check_camera, check_board, check_displays, check_controls, check_events)
    for check in checks:
        check(checker)
    problems = tuple(checker.problems)
    if notes is not None:
        notes.extend(checker.notes)
    return problems
