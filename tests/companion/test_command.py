"""``toptable companion MODE replay SCRIPT.json [--json]`` through its ``register`` function."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from controller.cli import main as cli
from controller.cli.companion import register
from controller.core.errors import DataError

SCRIPTS = Path(__file__).resolve().parent.parent / "data" / "companion"


def run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="toptable")
    sub = parser.add_subparsers(dest="command", required=True)
    register(sub)
    args = parser.parse_args(argv)
    code: int = args.func(args)
    return code


def write_script(tmp_path: Path, case: str) -> Path:
    script = json.loads((SCRIPTS / case).read_text(encoding="utf-8"))["script"]
    path = tmp_path / "script.json"
    path.write_text(json.dumps(script), encoding="utf-8")
    return path


def test_replay_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_script(tmp_path, "dbz-tcg/mppv.json")
    assert run(["companion", "dbz-tcg", "replay", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["winner"] == "Vegeta"
    assert out["victory"] == "mppv"
    assert out["refused"][0]["index"] == 5
    assert {"players", "turn", "winner", "eliminated", "refused"} <= set(out)


def test_replay_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_script(tmp_path, "dbs-tournament/first_turn_protection.json")
    assert run(["companion", "dbs-tournament", "replay", str(path)]) == 0
    text = capsys.readouterr().out
    assert "turn Jiren" in text
    assert "refused action 2 (attack)" in text


def test_a_script_that_is_not_json(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"players": [', encoding="utf-8")
    with pytest.raises(DataError, match=r"bad\.json: line 1 column 14: not valid JSON"):
        run(["companion", "challengers", "replay", str(path)])


def test_a_missing_script(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["companion", "challengers", "replay", str(tmp_path / "nope.json")]) == 2
    assert capsys.readouterr().err.endswith(
        f"argument script: {tmp_path / 'nope.json'}: no such file\n"
    )


def test_bad_input_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"players": ["A", "B"], "actions": [{"do": "x"}]}), encoding="utf-8")
    with pytest.raises(DataError, match=r"s.json: actions\[0\]: field 'do': unknown action 'x'"):
        run(["companion", "challengers", "replay", str(path)])


def test_an_unknown_mode_is_a_usage_error() -> None:
    with pytest.raises(SystemExit):
        run(["companion", "uno", "replay", "x.json"])


def test_through_the_toptable_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_script(tmp_path, "challengers/final.json")
    assert cli.main(["companion", "challengers", "replay", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["winner"] == "Cid"
    bad = tmp_path / "bad.json"
    bad.write_text("{", encoding="utf-8")
    assert cli.main(["companion", "challengers", "replay", str(bad)]) == 2
    assert "bad.json" in capsys.readouterr().err
