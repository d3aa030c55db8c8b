"""A journal in the unit's private /tmp (PrivateTmp=yes) is refused before a game is played
into it: systemd removes that folder when the service stops."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.core.kinds import GameKind
from controller.daemon import journals
from controller.system.private_tmp import emptied_when_stopped

ROOT = "26 1 179:2 / / rw,noatime shared:1 - ext4 /dev/root rw"
# as proc(5) shows them inside a unit with PrivateTmp=yes (systemd 252, Debian 12)
PRIVATE = [
    "873 26 179:2 /tmp/systemd-private-5f1c-toptable.service-Ab12/tmp /tmp rw,nosuid,nodev "
    "shared:300 - ext4 /dev/root rw",
    "874 26 179:2 /var/tmp/systemd-private-5f1c-toptable.service-Cd34/tmp /var/tmp rw,nosuid,"
    "nodev shared:301 - ext4 /dev/root rw",
]
PLAIN_TMPFS = "40 26 0:35 / /tmp rw,nosuid,nodev shared:20 - tmpfs tmpfs rw,size=1940000k"


def mountinfo(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "mountinfo"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("journal", ["/tmp/toptable/journal.sqlite", "/var/tmp/j.sqlite"])
@pytest.mark.parametrize("host_tmp", [[], [PLAIN_TMPFS]])  # Debian 13's /tmp is a tmpfs
def test_a_journal_in_the_private_tmp_is_named_lost(
    tmp_path: Path, journal: str, host_tmp: list[str]
) -> None:
    why = emptied_when_stopped(Path(journal), mountinfo(tmp_path, ROOT, *host_tmp, *PRIVATE))
    assert why is not None and "PrivateTmp=yes empties" in why and "/var/lib/toptable" in why


@pytest.mark.parametrize(
    ("journal", "lines"),
    [
        ("/var/lib/toptable/journal.sqlite", [ROOT, *PRIVATE]),
        ("/tmp/j.sqlite", [ROOT]),  # a shell's /tmp, not the unit's
        ("/tmp/j.sqlite", [ROOT, PLAIN_TMPFS]),
        ("/tmpfoo/j.sqlite", [ROOT, *PRIVATE]),  # a folder whose name starts alike
    ],
)
def test_other_places_are_kept(tmp_path: Path, journal: str, lines: list[str]) -> None:
    assert emptied_when_stopped(Path(journal), mountinfo(tmp_path, *lines)) is None


def test_an_unreadable_mountinfo_says_nothing(tmp_path: Path) -> None:
    assert emptied_when_stopped(Path("/tmp/j.sqlite"), tmp_path / "missing") is None


def test_the_daemon_refuses_before_making_anything(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "journals"
    lines = [ROOT, PRIVATE[0].replace(" /tmp ", f" {tmp_path} ", 1)]
    fake = mountinfo(tmp_path, *lines)
    monkeypatch.setattr(journals, "emptied_when_stopped", lambda p: emptied_when_stopped(p, fake))
    with pytest.raises(journals.StartError, match=r"journal .*j\.sqlite lies in .* PrivateTmp=yes"):
        journals.open_companion_table(GameKind.CHALLENGERS, folder / "j.sqlite", ["Ann", "Bob"])
    assert not folder.exists()
