"""The state of one device check: the problems found, the notes, and the helpers every section uses."""

from __future__ import annotations

import errno
import stat
from dataclasses import dataclass
from pathlib import Path

from controller.config.compose import Config
from controller.config.probe import DeviceProbe
from controller.core.config_schema import ConfigProblem
from controller.core.errors import DataProblem


@dataclass
class DeviceChecker:
    """One config's device check in progress: the problems found and the notes."""

    cfg: Config
    probe: DeviceProbe

    def __post_init__(self) -> None:
        self.problems: list[DataProblem] = []
        self.notes: list[str] = []

    def add(self, section: str, option: str, message: str) -> None:
        """Note a problem with ``[section] option``."""
        self.problems.append(ConfigProblem(self.cfg.source, section, option, message))

    def why_not(self, path: str, group: str, what: str) -> str | None:
        """Why ``path`` cannot be opened read-write, or None if it can."""
        try:
            self.probe.open_rw(path)
        except OSError as exc:
            if exc.errno in (errno.EACCES, errno.EPERM):
                return (
                    f"names {path}, which this user may not open: add the service user to "
                    f"the '{group}' group (sudo usermod -aG {group} USER, then log in again)"
                )
            if exc.errno == errno.EBUSY:
                return f"names {path}, which another program is using ({what} busy)"
            return f"names {path}, which cannot be opened: {exc.strerror or exc}"
        return None

    def device(self, section: str, option: str, path: str, group: str, what: str) -> bool:
        """Check a device node exists, is a character device and opens. True if usable."""
        try:
            st = self.probe.stat(path)
        except FileNotFoundError:
            return False
        except OSError as exc:
            self.add(section, option, f"names {path}, which cannot be read: {exc.strerror}")
            return True  # reported
        if not stat.S_ISCHR(st.st_mode):
            self.add(section, option, f"names {path}, which is not a device ({what} expected)")
            return True
        why = self.why_not(path, group, what)
        if why:
            self.add(section, option, why)
        return True

    def file_missing(self, section: str, option: str, path: Path) -> bool:
        """Note ``[section] option`` naming ``path`` when it is no file; True if so."""
        if self.is_file(path):
            return False
        why = "is a folder: name the file" if self.is_dir(path) else "does not exist"
        self.add(section, option, f"names {path}, which {why}")
        return True

    def present(self, pattern: str) -> str:
        """The paths matching ``pattern``, for messages ("none" if none)."""
        found = self.probe.glob(pattern)
        return ", ".join(found) if found else "none"

    # --- sections ---

    def is_dir(self, path: Path) -> bool:
        try:
            return stat.S_ISDIR(self.probe.stat(str(path)).st_mode)
        except OSError:
            return False

    def is_file(self, path: Path) -> bool:
        try:
            return stat.S_ISREG(self.probe.stat(str(path)).st_mode)
        except OSError:
            return False
