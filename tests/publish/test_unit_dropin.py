"""The systemd drop-in that opens the network only for [events]: exactly AF_INET, AF_INET6."""

from __future__ import annotations

from pathlib import Path

from tests.paths import REPO

UNIT = REPO / "systemd" / "toptable.service"
DROPIN = REPO / "systemd" / "toptable-events.conf"


def _families(path: Path) -> list[list[str]]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("RestrictAddressFamilies="):
            out.append(line.split("=", 1)[1].split())
    return out


def test_the_unit_stays_closed_without_events() -> None:
    assert _families(UNIT) == [["AF_UNIX", "AF_NETLINK"]]


def test_the_dropin_adds_inet_and_nothing_more() -> None:
    settings = _families(DROPIN)
    assert settings[0] == [], "the drop-in must reset the list first"
    effective = settings[-1]
    assert set(effective) == set(_families(UNIT)[0]) | {"AF_INET", "AF_INET6"}
    text = DROPIN.read_text(encoding="utf-8")
    assert "[Service]" in text
    keys = {ln.split("=", 1)[0] for ln in text.splitlines() if "=" in ln and not ln.startswith("#")}
    assert keys == {"RestrictAddressFamilies"}
