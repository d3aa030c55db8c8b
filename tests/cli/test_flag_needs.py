"""An option that acts only beside another is refused alone, in one line (exit 2)."""

from __future__ import annotations

import argparse

import pytest

from controller.cli.flag_needs import check_needs, only_with
from controller.cli.main import _Parser


def _parser() -> argparse.ArgumentParser:
    top = _Parser(prog="toptable")
    sub = top.add_subparsers(dest="command", parser_class=_Parser)
    demo = sub.add_parser("demo")
    mqtt = demo.add_argument("--mqtt")
    table_id = demo.add_argument("--table-id", default="demo")
    area = demo.add_argument("area", nargs="?", default="rules")
    strangers = demo.add_argument("--strangers", type=int)
    only_with(demo, table_id, mqtt)
    only_with(demo, strangers, (area, {"dice"}))
    return top


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["demo", "--table-id", "hall"], "--table-id is used only with --mqtt"),
        (["demo", "--strangers", "3"], "--strangers is used only with AREA dice"),
        (["demo", "game", "--strangers", "3"], "--strangers is used only with AREA dice"),
    ],
)
def test_an_option_alone_is_refused_naming_what_it_needs(
    argv: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    args = _parser().parse_args(argv)
    with pytest.raises(SystemExit) as info:
        check_needs(args)
    assert info.value.code == 2
    assert capsys.readouterr().err == f"toptable demo: error: {said}\n"


@pytest.mark.parametrize(
    "argv",
    [
        ["demo"],
        ["demo", "--table-id", "hall", "--mqtt", "mqtt://h"],
        ["demo", "--table-id", "demo"],  # its default typed out changes nothing
        ["demo", "dice", "--strangers", "3"],
    ],
)
def test_an_option_with_what_it_needs_or_left_out_passes(argv: list[str]) -> None:
    check_needs(_parser().parse_args(argv))


def test_a_rule_must_name_what_the_option_needs() -> None:
    parser = argparse.ArgumentParser()
    with pytest.raises(ValueError, match="--x: only_with needs at least one"):
        only_with(parser, parser.add_argument("--x"))
