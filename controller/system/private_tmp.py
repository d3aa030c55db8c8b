"""Whether a file would be lost when the service stops: the unit's private ``/tmp``.

The unit runs with ``PrivateTmp=yes``: systemd mounts a folder of its own
(``/tmp/systemd-private-…-toptable.service-…/tmp``) on the service's ``/tmp`` and
``/var/tmp`` and removes it when the service stops (systemd.exec(5), PrivateTmp=). A
journal kept there is written without a complaint and gone at the next restart, with the
game in it. The process sees the private mount in its own ``/proc/self/mountinfo``
(proc(5): the fourth field is the mount's root within its file system, the fifth where
it is mounted), so the daemon can refuse such a journal before a game is played into it.
"""

from __future__ import annotations

import os
from pathlib import Path

MOUNTINFO = Path("/proc/self/mountinfo")
PRIVATE_MARK = "/systemd-private-"
"""What the root of a PrivateTmp= mount holds (systemd's ``setup_tmp_dirs``)."""


def _unescape(field: str) -> str:
    """A mountinfo path: spaces, tabs, newlines and backslashes are written as octal."""
    for code, char in (("\\040", " "), ("\\011", "\t"), ("\\012", "\n"), ("\\134", "\\")):
        field = field.replace(code, char)
    return field


def _mounts(mountinfo: Path) -> list[tuple[str, str]]:
    """(mount point, root) of each mount the process sees; none when unreadable."""
    try:
        lines = mountinfo.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
    out = []
    for line in lines:
        fields = line.split(" ")
        if len(fields) >= 5:
            out.append((_unescape(fields[4]), _unescape(fields[3])))
    return out


def emptied_when_stopped(path: Path, mountinfo: Path = MOUNTINFO) -> str | None:
    """Why a file at ``path`` is lost when the service stops (it lies in the unit's private
    ``/tmp`` or ``/var/tmp``), or None. A mountinfo that cannot be read says nothing."""
    where = Path(os.path.realpath(path))
    best: tuple[str, str] | None = None
    for point, root in _mounts(mountinfo):
        # the longest mount point holding it; of two at one point the later, mounted over
        # the first (a PrivateTmp= folder over a tmpfs /tmp)
        if where.is_relative_to(point) and (best is None or len(point) >= len(best[0])):
            best = (point, root)
    if best is None or PRIVATE_MARK not in best[1]:
        return None
    return (
        f"lies in {best[0]}, which the unit's PrivateTmp=yes empties each time the service "
        "stops: the game in it would be lost; keep the journal in /var/lib/toptable (the "
        'unit\'s StateDirectory=), e.g. journal = "/var/lib/toptable/journal.sqlite"'
    )
