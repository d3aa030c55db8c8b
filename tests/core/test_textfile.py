"""Data, config and script files read as text: every way they can be wrong is one named line."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from controller.core.errors import DataError
from controller.core.jsonfile import read_json
from controller.core.tomlfile import read_toml


def test_a_bom_is_named(tmp_path: Path) -> None:
    toml = tmp_path / "warriors.toml"
    toml.write_text("invented = true\n", encoding="utf-8-sig")  # what "UTF-8 with BOM" saves
    with pytest.raises(DataError) as err:
        read_toml(toml)
    assert str(err.value) == (
        f'{toml}: starts with a UTF-8 byte-order mark (BOM): save it as plain "UTF-8", '
        'not "UTF-8 with BOM"'
    )
    js = tmp_path / "scenario.json"
    js.write_text("{}", encoding="utf-8-sig")
    with pytest.raises(DataError, match=r"scenario\.json: starts with a UTF-8 byte-order mark"):
        read_json(js)
    toml.write_text("invented = true\n", encoding="utf-8")
    assert read_toml(toml) == {"invented": True}


@pytest.mark.parametrize("read", [read_toml, read_json])
def test_missing_folder_and_not_utf8(read: Callable[[Path], object], tmp_path: Path) -> None:
    with pytest.raises(DataError, match=r"absent: cannot read: No such file or directory$"):
        read(tmp_path / "absent")
    with pytest.raises(DataError, match=r": is a folder; expected a file$"):
        read(tmp_path)
    latin = tmp_path / "latin1"
    latin.write_bytes("name = 'Végéta'".encode("latin-1"))
    with pytest.raises(DataError, match=r"latin1: not UTF-8 text \(byte 9\)$"):
        read(latin)


def test_syntax_errors_say_where(tmp_path: Path) -> None:
    js = tmp_path / "s.json"
    js.write_text('{\n  "a": 1,\n}', encoding="utf-8")
    with pytest.raises(DataError, match=r"s\.json: line 3 column 1: not valid JSON: "):
        read_json(js)
    toml = tmp_path / "c.toml"
    toml.write_text("[table\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"c\.toml: not valid TOML: .*line 1"):
        read_toml(toml)


def test_what_the_parsers_give_up_on_is_one_named_line(tmp_path: Path) -> None:
    # tomllib and json recurse per nesting level and convert integers with Python's
    # 4300-digit guard: both raise outside their own error class
    deep = tmp_path / "warriors.toml"
    deep.write_text("x = " + "[" * 5000 + "]" * 5000 + "\n", encoding="utf-8")
    with pytest.raises(DataError) as err:
        read_toml(deep)
    assert str(err.value) == f"{deep}: not valid TOML: nested too deeply"
    long = tmp_path / "board.toml"
    long.write_text("endurance = " + "9" * 5000 + "\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"board\.toml: not valid TOML: a number of more than "):
        read_toml(long)
    js = tmp_path / "scenario.json"
    js.write_text("[" * 100_000, encoding="utf-8")
    with pytest.raises(DataError, match=r"scenario\.json: not valid JSON: nested too deeply$"):
        read_json(js)
    js.write_text('{"damage": ' + "1" * 5000 + "}", encoding="utf-8")
    with pytest.raises(DataError, match=r"scenario\.json: not valid JSON: a number of more "):
        read_json(js)


def test_a_json_key_named_twice_is_refused(tmp_path: Path) -> None:
    # json.loads keeps the last of two equal keys, silently: the first attack is lost
    js = tmp_path / "scenario.json"
    js.write_text('{"attack": "sum", "defender": {"damage": 1, "damage": 2}}', encoding="utf-8")
    with pytest.raises(DataError) as err:
        read_json(js)
    assert str(err.value) == f"{js}: field 'damage': named twice in one object"
    js.write_text('{"attack": "sum", "defender": {"damage": 1}}', encoding="utf-8")
    assert read_json(js) == {"attack": "sum", "defender": {"damage": 1}}


def test_a_fifo_is_refused_not_waited_on(tmp_path: Path) -> None:
    fifo = tmp_path / "config.toml"
    os.mkfifo(fifo)  # opening it for reading would wait for a writer
    with pytest.raises(DataError) as err:
        read_toml(fifo)
    assert str(err.value) == f"{fifo}: is not a regular file; expected a file"
