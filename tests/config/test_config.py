"""The daemon config schema: defaults, every option checked, all problems at once."""

from __future__ import annotations

import dataclasses
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.config import Config, ConfigProblem, load_config, parse_config
from controller.core.config_schema import options_of
from controller.core.errors import DataError
from controller.game.state import Length
from controller.rules.variants import Variants
from controller.table.settings import DEFAULT_JOURNAL
from hardware.board.settings import BoardBackend
from hardware.controls.settings import ControlsConfig
from hardware.displays.settings import ScreenConfig, ScreenDriver, ScreenInterface, ScreenRole
from tests.config.test_sections import EVENTS_OPTIONS
from tests.paths import REPO
from vision.settings import CameraSource

REPO = REPO
EXAMPLE = REPO / "systemd" / "config.example.toml"
DEMO = REPO / "controller" / "data" / "demo" / "config.toml"

pytestmark = pytest.mark.timeout(30)


def problems_of(data: dict[str, Any], base: Path | None = None) -> list[str]:
    """The problem texts parse_config raises for ``data`` (fails if it does not raise)."""
    with pytest.raises(DataError) as info:
        parse_config(data, "cfg.toml", base or Path("/etc/toptable"))
    return [str(p) for p in info.value.problems]


def one_problem(data: dict[str, Any]) -> str:
    found = problems_of(data)
    assert len(found) == 1, found
    return found[0]


def test_empty_file_gives_the_documented_defaults() -> None:
    cfg = parse_config({}, "cfg.toml", Path("/etc/toptable"))
    assert cfg.table.players == 2
    assert cfg.table.length is Length.ROUNDS10
    assert cfg.table.journal == DEFAULT_JOURNAL == Path("/var/lib/toptable/journal.sqlite")
    assert cfg.camera.source is CameraSource.V4L2
    assert cfg.camera.device_path == "/dev/video0"
    assert cfg.board.backend is BoardBackend.SERIAL
    assert cfg.board.port == "/dev/toptable-board"
    assert cfg.displays.screens == ()
    assert cfg.controls.pins() == {
        "confirm": 5,
        "next": 6,
        "undo": 13,
        "menu": 19,
        "encoder_a": 17,
        "encoder_b": 27,
        "led_link": 22,
        "led_camera": 23,
        "buzzer": 12,
        "led_seats[1]": 16,
        "led_seats[2]": 20,
        "led_seats[3]": 21,
        "led_seats[4]": 26,
    }
    assert cfg.source == "cfg.toml"


def test_config_is_frozen() -> None:
    cfg = parse_config({}, "", Path("/"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.table.players = 3  # type: ignore[misc]


def test_example_config_loads_and_sets_real_hardware() -> None:
    cfg = load_config(EXAMPLE)
    assert cfg.camera.source is CameraSource.V4L2
    assert cfg.board.backend is BoardBackend.SERIAL
    assert [(s.role, s.address) for s in cfg.displays.screens] == [
        (ScreenRole.TURN, 0x3C),
        (ScreenRole.COMBAT, 0x3D),
    ]


def _options_of(cls: type) -> set[str]:
    return set(options_of(cls))


def test_example_config_documents_every_option() -> None:
    text = EXAMPLE.read_text()
    written = set(re.findall(r"^#?\s*([a-z_]+)\s*=", text, flags=re.MULTILINE))
    documented = written | set(re.findall(r"^#\s{3}([a-z_]+)\b", text, flags=re.MULTILINE))
    sections = {
        f.name: f.type for f in dataclasses.fields(Config) if f.name not in ("source", "events")
    }
    assert set(re.findall(r"^\[+([a-z.]+)\]+", text, flags=re.MULTILINE)) == {
        "table",
        "camera",
        "board",
        "displays",
        "displays.screen",
        "controls",
        "log",
    }
    for name in sections:
        cls = type(getattr(Config(), name))
        options = _options_of(cls) - {"screens"}
        missing = options - written
        assert not missing, f"[{name}] options not in the example: {missing}"
    events = text.split("# [events]\n", 1)[1]
    assert set(re.findall(r"^#\s*([a-z_]+)\s*=", events, flags=re.MULTILINE)) == EVENTS_OPTIONS
    missing_screen = _options_of(ScreenConfig) - documented
    assert not missing_screen, f"screen options not documented: {missing_screen}"


def test_example_mux_block_when_uncommented_is_valid() -> None:
    text = EXAMPLE.read_text()
    block = re.search(r"# \[\[displays\.screen\]\]\n((?:# [a-z_]+ = .*\n)+)", text)
    assert block is not None
    screen = tomllib.loads(block.group(1).replace("# ", ""))
    assert "mux_address" in screen
    cfg = parse_config({"displays": {"screen": [screen]}}, "", Path("/"))
    assert cfg.displays.screens[0].mux_address == 0x70


def test_demo_config_uses_only_simulated_backends() -> None:
    cfg = load_config(DEMO)
    assert cfg.camera.source is CameraSource.SYNTHETIC
    assert cfg.board.backend is BoardBackend.SIMULATED
    assert cfg.controls.backend.value == "mock"
    assert {s.driver for s in cfg.displays.screens} == {ScreenDriver.DUMMY}
    assert cfg.board.layout == DEMO.parent / "board.toml"
    assert cfg.board.layout.is_file()
    assert cfg.table.data_dir == DEMO.parent


def test_unknown_option_is_rejected_with_a_suggestion() -> None:
    msg = one_problem({"table": {"lenght": "rounds5"}})
    assert msg.startswith("cfg.toml: Option 'lenght' in section 'table' is not a valid option")
    assert "did you mean 'length'?" in msg


def test_unknown_section_is_rejected_with_a_suggestion() -> None:
    msg = one_problem({"camra": {}})
    assert "Section 'camra' is not a valid section (did you mean 'camera'?)" in msg


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ({"table": {"players": 1}}, "Option 'players' in section 'table' must have minimum of 2"),
        ({"table": {"players": 5}}, "Option 'players' in section 'table' must have maximum of 4"),
        ({"table": {"players": "two"}}, "must be an integer (got 'two')"),
        ({"table": {"players": True}}, "must be an integer (got true)"),
        (
            {"table": {"length": "rounds7"}},
            "Option 'length' in section 'table' must be one of rounds10, rounds5, minutes45",
        ),
        ({"table": {"variants": ["nope"]}}, "has unknown variant 'nope'"),
        ({"table": {"journal": ""}}, "must not be empty"),
        ({"camera": {"fps": 0}}, "Option 'fps' in section 'camera' must have minimum of 1"),
        ({"camera": {"confidence": 1.5}}, "must have maximum of 1 (got 1.5)"),
        ({"camera": {"fps": 10**400}}, "must have maximum of 120 (got 10000000"),  # review fuzz
        ({"camera": {"fps": float("nan")}}, "must be a number (got nan)"),
        ({"board": {"port": "/tmp/ttyACM0"}}, "must be a device path under /dev/"),
        ({"camera": {"device": "video0"}}, "must be a device path under /dev/"),
        ({"camera": {"device": 64}}, "must have maximum of 63"),
        ({"camera": {"source": "folder"}}, "Option 'path' in section 'camera' is required"),
        ({"board": {"backend": "usb"}}, "must be one of serial, simulated (got 'usb')"),
        ({"board": {"port": "COM3"}}, "Option 'port' in section 'board' must be a device path"),
        ({"board": {"baud": 300}}, "must have minimum of 1200"),
        ({"controls": {"confirm": 28}}, "Option 'confirm' in section 'controls' must have maximum"),
        ({"controls": {"buzzer": -1}}, "write false if it is not fitted"),
        ({"controls": {"led_seats": [16, "x"]}}, "item 2 must be an integer"),
        ({"controls": {"pull_up": "yes"}}, "must be true or false"),
        ({"log": {"level": "verbose"}}, "must be one of debug, info, warning, error"),
        ({"table": 3}, "Section 'table' must be a table (got 3)"),
    ],
)
def test_each_bad_value_names_section_option_and_limit(data: dict[str, Any], expected: str) -> None:
    assert expected in one_problem(data)


def test_a_retired_variant_name_is_accepted_as_everywhere_else() -> None:
    """RULES.md §11 names ``six_warriors_in_short_game``: the command line took it (a
    default now: no effect), the config refused it and offered the opposite (review 108)."""
    cfg = parse_config({"table": {"variants": ["six_warriors_in_short_game"]}}, "cfg.toml")
    assert cfg.table.variants == ("six_warriors_in_short_game",)
    assert Variants.from_names(cfg.table.variants) == Variants()
    near = one_problem({"table": {"variants": ["six_warrior_in_short_game"]}})
    assert "did you mean 'six_warriors_in_short_game'?" in near


def test_all_problems_are_reported_at_once() -> None:
    found = problems_of(
        {
            "table": {"players": 9, "typo": 1},
            "camera": {"fps": -1},
            "displays": {"screen": [{"role": "turn", "address": 0x3E}, {"driver": "ssd1306"}]},
            "log": {"level": "loud"},
        }
    )
    assert found == [
        "cfg.toml: Option 'players' in section 'table' must have maximum of 4 (got 9)",
        "cfg.toml: Option 'typo' in section 'table' is not a valid option; "
        "valid options: mode, players, length, variants, data_dir, journal, story",
        "cfg.toml: Option 'fps' in section 'camera' must have minimum of 1 (got -1)",
        "cfg.toml: Option 'address' in section 'displays.screen[1]' must be one of 0x3C, 0x3D "
        "(got 0x3E)",
        "cfg.toml: Option 'role' in section 'displays.screen[2]' is required; "
        "must be one of turn, combat, options, team",
        "cfg.toml: Option 'level' in section 'log' must be one of debug, info, warning, error "
        "(got 'loud')",
    ]


def test_problems_are_config_problems_with_section_and_option() -> None:
    with pytest.raises(DataError) as info:
        parse_config({"displays": {"screen": [{"role": "turn", "address": 0x3E}]}}, "c.toml")
    (problem,) = info.value.problems
    assert isinstance(problem, ConfigProblem)
    assert (problem.file, problem.entry, problem.field) == (
        "c.toml",
        "displays.screen[1]",
        "address",
    )


def test_screen_options() -> None:
    cfg = parse_config(
        {
            "table": {"players": 3},
            "displays": {
                "screen": [
                    {
                        "role": "team",
                        "seat": 3,
                        "driver": "sh1106",
                        "height": 32,
                        "address": "0x3D",
                    },
                    {"role": "turn", "interface": "spi", "spi_device": 1},
                    {"role": "combat", "driver": "emulator", "output": "out/combat.gif"},
                ]
            },
        },
        "",
        Path("/srv"),
    )
    team, turn, combat = cfg.displays.screens
    assert (team.seat, team.driver, team.height, team.address) == (3, ScreenDriver.SH1106, 32, 0x3D)
    assert (turn.interface, turn.bus, turn.spi_device) == (ScreenInterface.SPI, 0, 1)
    assert combat.output == Path("/srv/out/combat.gif")
    assert team.label == "team"


@pytest.mark.parametrize(
    ("screen", "expected"),
    [
        ({"role": "team"}, "Option 'seat' in section 'displays.screen[1]' is required when role"),
        ({"role": "team", "seat": 3}, "must have maximum of 2"),
        ({"role": "turn", "seat": 1}, "is only valid when role is 'team'"),
        (
            {"role": "turn", "height": 48},
            "Option 'height' in section 'displays.screen[1]' must be one of 64, 32",
        ),
        ({"role": "turn", "width": 96}, "must have minimum of 128"),
        (  # review 101: luma swaps width and height: the landscape layouts were cut
            {"role": "turn", "rotate": 1},
            "Option 'rotate' in section 'displays.screen[1]' must be one of 0, 2",
        ),
        (
            {"role": "turn", "mux_address": 0x70},
            "Option 'mux_channel' in section 'displays.screen[1]' is required",
        ),
        ({"role": "turn", "mux_address": 0x69, "mux_channel": 0}, "must be one of 0x70, 0x71"),
        ({"role": "turn", "mux_address": 0x70, "mux_channel": 8}, "must have maximum of 7"),
        (
            {"role": "turn", "interface": "spi", "mux_address": 0x70, "mux_channel": 1},
            "only valid when interface is 'i2c'",
        ),
        ({"role": "turn", "output": "x.gif"}, "only valid when driver is 'emulator'"),
        ({"role": "boss"}, "must be one of turn, combat, options, team (got 'boss')"),
    ],
)
def test_bad_screen(screen: dict[str, Any], expected: str) -> None:
    assert expected in one_problem({"displays": {"screen": [screen]}})


def test_screen_list_must_be_an_array_of_tables() -> None:
    assert "write each screen as [[displays.screen]]" in one_problem(
        {"displays": {"screen": {"role": "turn"}}}
    )


def test_two_screens_at_one_address_are_rejected() -> None:
    msg = one_problem({"displays": {"screen": [{"role": "turn"}, {"role": "combat"}]}})
    assert "Option 'address' in section 'displays.screen[2]'" in msg
    assert "uses I2C bus 1 address 0x3C, as screen[1] does" in msg


def test_same_address_on_other_mux_channels_or_buses_is_fine() -> None:
    screens = [
        {"role": "turn", "mux_address": 0x70, "mux_channel": 0},
        {"role": "combat", "mux_address": 0x70, "mux_channel": 1},
        {"role": "team", "seat": 1, "bus": 3},
        {"role": "team", "seat": 2, "driver": "dummy", "bus": 3},
    ]
    cfg = parse_config({"displays": {"screen": screens}}, "", Path("/"))
    assert len(cfg.displays.screens) == 4


def test_direct_screen_clashes_with_one_behind_the_mux() -> None:
    msg = one_problem(
        {
            "displays": {
                "screen": [
                    {"role": "turn", "mux_address": 0x70, "mux_channel": 0},
                    {"role": "combat"},
                ]
            }
        }
    )
    assert "displays.screen[1]" in msg and "screen[2] has directly on I2C bus 1" in msg


def test_a_pin_used_twice_is_rejected() -> None:
    msg = one_problem({"controls": {"undo": 5}})
    assert msg == (
        "cfg.toml: Option 'undo' in section 'controls' uses GPIO5, already used by 'confirm'; "
        "pick a free pin"
    )


def test_pins_of_the_screens_bus_are_reserved() -> None:
    msg = one_problem({"controls": {"menu": 3}, "displays": {"screen": [{"role": "turn"}]}})
    assert "Option 'menu' in section 'controls' uses GPIO3, which I2C1 (SDA/SCL)" in msg
    # Without an I2C screen on bus 1, GPIO3 is free: none, or one on another bus (tests2 k02)
    parse_config({"controls": {"menu": 3}}, "", Path("/"))
    elsewhere = {"screen": [{"role": "turn", "bus": 3}]}
    parse_config({"controls": {"menu": 3}, "displays": elsewhere}, "", Path("/"))


def test_spi_screen_pins_clash_with_controls() -> None:
    found = problems_of(
        {
            "controls": {"confirm": 24, "next": 10},
            "displays": {"screen": [{"role": "turn", "interface": "spi"}]},
        }
    )
    assert any("Option 'next' in section 'controls' uses GPIO10, which SPI0" in f for f in found)
    assert any(
        "Option 'gpio_dc' in section 'displays.screen[1]' uses GPIO24, already used by 'confirm'"
        in f
        for f in found
    )


def test_two_spi_screens_may_not_share_their_dc_and_reset_lines() -> None:
    """luma.core 2.6's SPI interface pulses RESET as a screen opens (blanking a screen
    already lit on that line) and frees DC and RESET as a screen closes: each SPI screen
    needs its own."""
    two = {"role": "turn", "interface": "spi"}, {
        "role": "combat", "interface": "spi", "spi_device": 1,
    }  # fmt: skip
    found = problems_of({"displays": {"screen": list(two)}})
    assert len(found) == 2
    assert (
        "Option 'gpio_dc' in section 'displays.screen[2]' uses GPIO24, already "
        "'displays.screen[1].gpio_dc': each SPI screen needs its own DC and RESET lines"
    ) in found[0]
    assert "'displays.screen[1].gpio_reset'" in found[1]
    own = dict(two[1], gpio_dc=14, gpio_reset=15)
    parse_config({"displays": {"screen": [two[0], own]}}, "", Path("/"))


def test_an_spi1_screen_reserves_spi1_s_pins() -> None:
    found = problems_of({"displays": {"screen": [{"role": "turn", "interface": "spi", "bus": 1}]}})
    assert any(
        "Option 'menu' in section 'controls' uses GPIO19, which SPI1 for the screens needs" in f
        for f in found
    )
    cfg = {"role": "turn", "interface": "spi", "bus": 1, "spi_device": 1}
    found = problems_of({"controls": {"menu": 26}, "displays": {"screen": [cfg]}})
    assert any("uses GPIO17, which SPI1 for the screens needs" in f for f in found)


def test_optional_parts_can_be_left_out() -> None:
    cfg = parse_config(
        {
            "controls": {
                "encoder_a": False,
                "encoder_b": False,
                "buzzer": False,
                "led_link": False,
                "led_camera": False,
                "led_seats": [],
            }
        },
        "",
        Path("/"),
    )
    assert cfg.controls == dataclasses.replace(
        ControlsConfig(),
        encoder_a=None,
        encoder_b=None,
        buzzer=None,
        led_link=None,
        led_camera=None,
        led_seats=(),
    )
    assert set(cfg.controls.pins()) == {"confirm", "next", "undo", "menu"}


def test_half_an_encoder_and_too_few_seat_leds_are_rejected() -> None:
    found = problems_of(
        {"table": {"players": 4}, "controls": {"encoder_b": False, "led_seats": [16]}}
    )
    assert any("Option 'encoder_b' in section 'controls' is required when" in f for f in found)
    assert any("one pin per player (4 players, 1 pins)" in f for f in found)


def test_relative_paths_resolve_against_the_config_folder(tmp_path: Path) -> None:
    path = tmp_path / "cfg.toml"
    path.write_text('[table]\njournal = "state/j.sqlite"\n[board]\nlayout = "/abs/board.toml"\n')
    cfg = load_config(path)
    assert cfg.table.journal == tmp_path / "state" / "j.sqlite"
    assert cfg.board.layout == Path("/abs/board.toml")


def test_variants_and_camera_index() -> None:
    cfg = parse_config(
        {
            "table": {"variants": ["green_reward_one", "green_reward_one"], "length": "minutes45"},
            "camera": {"device": 2},
        },
        "",
        Path("/"),
    )
    assert cfg.table.variants == ("green_reward_one",)
    assert cfg.table.length is Length.MINUTES45
    assert cfg.camera.device_path == "/dev/video2"


def test_missing_file_and_bad_toml(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="no such config file"):
        load_config(tmp_path / "none.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("[table\nplayers = 2\n")
    with pytest.raises(DataError, match=r"bad\.toml: not valid TOML"):
        load_config(bad)


# --- any TOML at all: a Config or a DataError, never anything else ------------

_KEYS = st.sampled_from(
    [
        "table", "camera", "board", "displays", "screen", "controls", "log", "players",
        "length", "variants", "journal", "source", "device", "path", "fps", "port", "baud",
        "role", "seat", "address", "mux_address", "mux_channel", "interface", "driver",
        "confirm", "undo", "led_seats", "encoder_a", "buzzer", "level", "xyz",
    ]
)  # fmt: skip
_SCALARS = (
    st.integers(-5, 300) | st.floats(allow_nan=True) | st.booleans() | st.text(max_size=8)
    | st.sampled_from(["turn", "team", "0x3D", "/dev/ttyACM0", "rounds5", "spi", "dummy"])
)  # fmt: skip
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_KEYS, inner, max_size=4),
    max_leaves=12,
)


@pytest.mark.timeout(120)  # a hang guard: 300 examples on a loaded core take longer than 30 s
@settings(max_examples=300, deadline=None)
@given(st.dictionaries(_KEYS, _VALUES, max_size=5))
def test_any_document_gives_a_config_or_a_data_error(data: dict[str, Any]) -> None:
    try:
        cfg = parse_config(data, "fuzz.toml", Path("/"))
    except DataError as exc:
        assert exc.problems
        assert all(isinstance(p, ConfigProblem) and p.file == "fuzz.toml" for p in exc.problems)
    else:
        assert isinstance(cfg, Config)


def test_thousands_of_unknown_sections_are_five_named_and_the_rest_counted() -> None:
    with pytest.raises(DataError) as caught:
        parse_config({f"junk{i}": {} for i in range(10_000)}, "cfg.toml")
    lines = str(caught.value).splitlines()
    assert lines[0] == "6 problems:"
    assert lines[1].startswith("  cfg.toml: Section 'junk0' is not a valid section")
    assert lines[6].startswith("  cfg.toml: 9995 more sections that are not valid; valid sections:")


def test_an_emulated_screens_output_never_names_a_file_the_table_keeps(tmp_path: Path) -> None:
    """Review 95: an emulator's output naming the journal passed config check, and the
    daemon wrote its GIF over the game when it stopped."""
    notes = tmp_path / "notes.txt"
    notes.write_text("my own notes\n", encoding="utf-8")
    (tmp_path / "old.gif").write_bytes(b"GIF89a" + bytes(20))

    def screens(*outputs: str) -> dict[str, Any]:
        return {
            "table": {"journal": "game.sqlite"},
            "displays": {"screen": [
                {"role": "turn" if i == 0 else "combat", "driver": "emulator", "output": o}
                for i, o in enumerate(outputs)
            ]},
        }  # fmt: skip

    with pytest.raises(DataError) as info:
        parse_config(screens("game.sqlite", "notes.txt"), "c.toml", tmp_path)
    assert str(info.value).splitlines()[1:] == [
        f"  c.toml: Option 'output' in section 'displays.screen[1]' names {tmp_path}/game.sqlite, "
        "a file the table keeps (its journal or its config): name another file for the "
        "screen's animation",
        f"  c.toml: Option 'output' in section 'displays.screen[2]' names {notes}, a file that "
        "is no GIF: the screen would write its animation over it; name another file",
    ]
    with pytest.raises(DataError, match=r"as displays.screen\[1\] does: give each screen"):
        parse_config(screens("a.gif", "./a.gif"), "c.toml", tmp_path)
    parse_config(screens("old.gif", "new.gif"), "c.toml", tmp_path)  # its own GIF of before
    (tmp_path / "cut.gif").write_bytes(b"")  # a GIF a power cut left empty (review 98)
    parse_config(screens("cut.gif"), "c.toml", tmp_path)
    assert notes.read_text(encoding="utf-8") == "my own notes\n"
