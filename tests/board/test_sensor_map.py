"""The mapping wizard and the sensor map file."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.board.sensor_map import (
    MappingWizard,
    WizardStep,
    apply_sensor_map,
    load_sensor_map,
    save_sensor_map,
)
from controller.core.errors import DataError, IllegalActionError
from controller.gamedata.board import BoardLayout, load_board, parse_board


@pytest.fixture
def layout(demo_data: Path) -> BoardLayout:
    return load_board(demo_data / "board.toml")


def test_wizard_learns_saves_and_loads_a_map(layout: BoardLayout, tmp_path: Path) -> None:
    w = MappingWizard(layout, order=[0, 1, 2])
    assert w.prompt() == "[1/3] place a token on space 0 (red)"
    assert w.on_sensor(17, False).message == ""  # lifts are ignored
    assert w.on_sensor(17, True) == WizardStep("space 0 = sensor 17", True)
    step = w.on_sensor(17, True)
    assert not step.done and "already space 0" in step.message
    assert w.rejected == 1
    w.on_sensor(5, True)
    w.back()
    assert w.current == 1
    w.on_sensor(6, True)
    w.skip()
    assert w.current is None and w.prompt() == "all 2 spaces mapped"
    path = w.save(tmp_path / "sensors.toml")
    mapping = load_sensor_map(path, layout)
    assert mapping == {0: 17, 1: 6}
    mapped = apply_sensor_map(layout, mapping)
    assert mapped.space_for_sensor(17) == 0 and mapped.space_for_sensor(2) is None
    with pytest.raises(IllegalActionError):
        MappingWizard(layout).back()


def test_a_malformed_map_names_every_problem(layout: BoardLayout, tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('board = "other"\ncolour = 1\n[sensors]\n0 = 3\n1 = 3\nx = 4\n99 = 5\n2 = 200\n')
    with pytest.raises(DataError) as info:
        load_sensor_map(bad, layout)
    text = str(info.value)
    assert "6 problems" in text
    for part in (
        "field 'colour': unknown key",
        "this map is for board 'other'",
        "space 1: field 'sensor': sensor 3 is already used by space 0",
        "space x: expected a space id",
        "board 'example-grid-7x6' has no space 99",
        "space 2: field 'sensor': expected a sensor index 0..127, got 200",
    ):
        assert part in text
    bad.write_text("not = [toml")
    with pytest.raises(DataError, match="not valid TOML"):
        load_sensor_map(bad)
    with pytest.raises(DataError, match="cannot read"):
        load_sensor_map(tmp_path / "missing.toml")


@pytest.mark.parametrize("key", ["05", "1_0", "+3", " 4", "٣"])
def test_a_second_spelling_of_a_space_id_is_refused(
    layout: BoardLayout, tmp_path: Path, key: str
) -> None:
    """``int()`` reads each of these as a space the map may already name: the second
    would silently replace that space's sensor."""
    path = tmp_path / "sensors.toml"
    lines = "".join(f"{i} = {i}\n" for i in range(12))
    path.write_text(f'board = "{layout.name}"\n[sensors]\n{lines}"{key}" = 60\n', "utf-8")
    with pytest.raises(DataError) as info:
        load_sensor_map(path, layout)
    assert str(info.value) == (
        f"{path}: space {key}: expected a space id written as a whole number (0, 1, 2...), "
        f"got {key!r}"
    )


@pytest.mark.parametrize(
    ("text", "piece"),
    [
        ("[sensors]\n" + "1" * 5000 + " = 3\n", "expected a space id 0..999999999, got '1111"),
        ("[sensors]\n" + "k" * 100_000 + " = 3\n", "got 'kkkk"),
        ("[sensors]\n0 = [" + "1, " * 5000 + "]\n", "expected a sensor index 0..127, got [1, 1, "),
    ],
)  # fmt: skip
def test_a_huge_key_or_value_is_named_in_part(
    layout: BoardLayout, tmp_path: Path, text: str, piece: str
) -> None:
    """A space id of 5,000 digits is refused (int() raised ValueError: a traceback), and a
    huge key or value is quoted by its start and size."""
    path = tmp_path / "sensors.toml"
    path.write_text(f'board = "{layout.name}"\n{text}', "utf-8")
    with pytest.raises(DataError) as info:
        load_sensor_map(path, layout)
    assert piece in str(info.value) and len(str(info.value)) < 500
    path.write_text('board = "' + "y" * 100_000 + '"\n[sensors]\n0 = 0\n', "utf-8")
    with pytest.raises(DataError, match=r"for board 'yyy.*' \(100000 characters\), the layout"):
        load_sensor_map(path, layout)


def test_every_space_id_a_board_may_have_reads_back_from_its_map(tmp_path: Path) -> None:
    """The board's largest space id, 999,999,999, is saved and read back; one more, which
    the board refuses too, is refused naming the bound (it was 'expected a space id written
    as a whole number, got '1000000000'', of a map written for a board that was loaded)."""
    far = 999_999_999
    spaces = [
        {"id": 0, "colour": "red", "neighbours": [far]},
        {"id": far, "colour": "blue", "neighbours": [0]},
    ]
    board = parse_board({"name": "far", "space": spaces}, "far.toml")
    path = save_sensor_map(tmp_path / "sensors.toml", board.name, {0: 1, far: 2})
    assert load_sensor_map(path, board) == {0: 1, far: 2}
    for key in ("1000000000", "9999999999"):
        path.write_text(f'board = "far"\n[sensors]\n0 = 1\n{key} = 2\n', "utf-8")
        with pytest.raises(DataError) as info:
            load_sensor_map(path)
        assert (
            str(info.value) == f"{path}: space {key}: expected a space id 0..999999999, got {key!r}"
        )


def test_going_back_forgets_the_sensor_so_it_may_be_learned_again(layout: BoardLayout) -> None:
    """The owner went back because the token was on the wrong space: its sensor is free."""
    w = MappingWizard(layout, order=[0, 1, 2])
    w.on_sensor(17, True)
    w.on_sensor(5, True)
    w.back()
    assert w.mapping() == {0: 17} and w.current == 1
    assert w.on_sensor(5, True) == WizardStep("space 1 = sensor 5", True)


def test_saving_over_a_map_keeps_its_mode_and_its_link(layout: BoardLayout, tmp_path: Path) -> None:
    """A map made 0640 for the config's group stays so; a link to it stays the owner's link
    (the map it leads to is the one replaced)."""
    real = save_sensor_map(tmp_path / "maps" / "real.toml", layout.name, {0: 1})
    real.chmod(0o640)
    link = tmp_path / "sensors.toml"
    link.symlink_to(real)
    assert save_sensor_map(link, layout.name, {0: 2}) == real
    assert link.is_symlink() and load_sensor_map(link, layout) == {0: 2}
    assert real.stat().st_mode & 0o777 == 0o640
