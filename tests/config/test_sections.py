"""Each section's schema lives with its package; its dataclass and its reader agree."""

from __future__ import annotations

import re
from collections.abc import Mapping

import pytest

from controller.config import SECTIONS, Config, parse_config
from controller.core.config_schema import options_of
from controller.core.errors import DataError
from controller.core.kinds import GameKind
from controller.table.settings import LEGACY_OPTIONS
from hardware.controls.settings import ControlsConfig
from hardware.displays.settings import ScreenConfig

pytestmark = pytest.mark.timeout(10)


def _valid_options(data: Mapping[str, object]) -> set[str]:
    with pytest.raises(DataError) as err:
        parse_config(data)
    found = re.search(r"is not a valid option; valid options: (.*)$", str(err.value), re.M)
    assert found, str(err.value)
    return set(found.group(1).split(", "))


EVENTS_OPTIONS = {
    "broker", "table_id", "username", "password_file", "ca_file", "keepalive", "players",
}  # fmt: skip
"""[events] is read into a connection and an id, not a dataclass of its options."""


@pytest.mark.parametrize("name", [s for s in SECTIONS if s not in ("displays", "events")])
def test_each_section_reads_exactly_its_dataclass_options(name: str) -> None:
    cls = type(getattr(Config(), name))
    legacy = LEGACY_OPTIONS if name == "table" else frozenset()
    assert _valid_options({name: {"zzz_unknown": 1}}) == set(options_of(cls)) | legacy


def test_events_reads_exactly_its_documented_options() -> None:
    assert _valid_options({"events": {"zzz_unknown": 1}}) == EVENTS_OPTIONS


def test_no_events_section_publishes_nothing() -> None:
    assert parse_config({}).events is None
    cfg = parse_config({"events": {"broker": "mqtt://127.0.0.1:1883", "table_id": "t1"}})
    assert cfg.events is not None and cfg.events.table_id == "t1"


def test_a_screen_reads_exactly_its_dataclass_options() -> None:
    data = {"displays": {"screen": [{"role": "turn", "zzz_unknown": 1}]}}
    assert _valid_options(data) == set(options_of(ScreenConfig))


def test_settings_code_sets_are_not_file_options() -> None:
    options = options_of(ControlsConfig)
    assert {"repeat", "repeat_s", "beep_s"}.isdisjoint(options)
    assert {"confirm", "led_seats", "hold_seconds", "bounce_ms"} <= set(options)
    with pytest.raises(DataError, match="Option 'beep_s' in section 'controls' is not a valid"):
        parse_config({"controls": {"beep_s": 0.2}})


def test_the_table_modes_are_the_game_kinds() -> None:
    for kind in GameKind:
        assert parse_config({"table": {"mode": kind.value}}).table.mode is kind


@pytest.mark.parametrize(
    ("table", "kind"),
    [
        ({"mode": "topdice"}, GameKind.TOURNAMENT),
        ({"mode": "topdice", "story": True}, GameKind.STORY),
        ({"mode": "topdice", "story": False}, GameKind.TOURNAMENT),
        ({"story": True}, GameKind.STORY),
        ({"mode": "story", "story": True}, GameKind.STORY),
        ({"mode": "dbz-tcg", "story": False}, GameKind.DBZ_TCG),
    ],
)
def test_the_first_spelling_of_the_dice_game_is_still_read(
    table: dict[str, object], kind: GameKind
) -> None:
    assert parse_config({"table": table}).table.mode is kind


@pytest.mark.parametrize(
    "table", [{"mode": "tournament", "story": True}, {"mode": "dbz-tcg", "story": True},
              {"mode": "story", "story": False}]
)  # fmt: skip
def test_story_beside_another_mode_is_refused_naming_both(table: dict[str, object]) -> None:
    wording = (
        r"Option 'story' in section 'table' says .*Story mode, but mode is .*: leave story out"
    )
    with pytest.raises(DataError, match=wording):
        parse_config({"table": table})
