"""An option that acts only beside another is refused alone, in one line (exit 2)."""

from __future__ import annotations

import argparse

import pytest

from controller.cli.flag_needs import check_needs, not_with, only_with
from controller.cli.main import _Parser, build_parser, main


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
    areas = demo.add_argument("--areas", nargs="*", default=[])
    only_with(demo, demo.add_argument("--jobs", type=int), (areas, {"dice"}))
    not_with(demo, demo.add_argument("--seed", type=int), mqtt, (area, {"game"}))
    return top


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["demo", "--table-id", "hall"], "--table-id is used only with --mqtt"),
        (["demo", "--strangers", "3"], "--strangers is used only with AREA dice"),
        (["demo", "game", "--strangers", "3"], "--strangers is used only with AREA dice"),
        (["demo", "--areas", "rules", "--jobs", "2"], "--jobs is used only with --areas dice"),
        (["demo", "--seed", "2", "--mqtt", "m"], "--seed is not used with --mqtt"),
        (["demo", "game", "--seed", "2"], "--seed is not used with AREA game"),
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
        ["demo", "--jobs", "2"],  # every area, dice among them
        ["demo", "--areas", "rules", "dice", "--jobs", "2"],
        ["demo", "--seed", "2"],
    ],
)
def test_an_option_with_what_it_needs_or_left_out_passes(argv: list[str]) -> None:
    check_needs(_parser().parse_args(argv))


def test_a_rule_must_name_what_the_option_needs() -> None:
    parser = argparse.ArgumentParser()
    with pytest.raises(ValueError, match="--x: a rule needs at least one"):
        only_with(parser, parser.add_argument("--x"))


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["simulate", "--journals", "/tmp/j", "--games", "1"],
         "toptable simulate: error: --journals is used only with --tables"),
        (["simulate", "--pace", "2"], "toptable simulate: error: --pace is used only with --tables"),
        (["simulate", "--tables", "1", "--story", "--mqtt", "mqtt://127.0.0.1:1"],
         "toptable simulate: error: --story is not used with --tables"),
        (["demo", "--table-id", "hall", "--fast"],
         "toptable demo: error: --table-id is used only with --mqtt"),
        (["demo", "--username", "u", "--fast"],
         "toptable demo: error: --username is used only with --mqtt"),
        (["demo", "--mode", "tournament", "--story"],
         "toptable demo: error: --story is not used with --mode tournament"),
        (["scoreboard", "--mqtt", "mqtt://127.0.0.1:1", "--password-file", "/etc/hostname"],
         "toptable scoreboard: error: --password-file is used only with --username"),
        (["advise", "--warrior", "Goku", "--dice", "kick", "--rerolls-made", "0", "--no-risk"],
         "toptable: error: --no-risk is used only with --defender (without one there is no "
         "answer, risk or KO to count)"),
        (["odds", "Goku", "--all"], "toptable odds: error: WARRIOR is not used with --all"),
        (["advise", "--warrior", "Goku", "--dice", "kick", "--rerolls-made", "0",
          "--objective", "ko"],
         "toptable: error: --objective ko is used only with --defender (without one there is "
         "no answer, risk or KO to count)"),
        (["dice", "calibrate", "--synthetic", "--images", "1", "--out", "/tmp/m.npz"],
         "toptable dice calibrate: error: argument --images: expected a whole number "
         "2..100000, got '1'"),
        (["dice", "calibrate", "--synthetic", "--split", "val", "--out", "/tmp/m.npz"],
         "toptable dice calibrate: error: --split is not used with --synthetic"),
        (["dice", "calibrate", "--images", "3", "--out", "/tmp/m.npz"],
         "toptable dice calibrate: error: --images is used only with --synthetic"),
        (["dice", "watch", "--seed", "3"],
         "toptable dice watch: error: --seed is used only with --synthetic"),
        (["dice", "watch", "--synthetic", "--device", "/dev/video2"],
         "toptable dice watch: error: --device is not used with --synthetic"),
        (["bench", "rules", "--strangers", "2"],
         "toptable bench: error: --strangers is used only with AREA dice"),
        (["screens", "render", "--seconds", "3"],
         "toptable screens: error: --seconds is used only with ACTION play"),
        (["screens", "play", "--scale", "2"],
         "toptable screens: error: --scale is used only with ACTION render"),
    ],
)  # fmt: skip
def test_the_commands_refuse_an_option_that_would_do_nothing(
    argv: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Review 104's inventory: each was accepted and read by nobody (exit 0, nothing said)."""
    assert main(argv) == 2
    assert capsys.readouterr().err == said + "\n"


@pytest.mark.parametrize(
    "argv",
    [
        ["bench", "--strangers", "2"],  # every area: dice among them
        ["bench", "dice", "rules", "--phone"],
        ["dice", "watch", "--synthetic", "--seed", "3"],
        ["demo", "--story"],
        ["demo", "--mode", "story", "--story"],
    ],
)
def test_an_option_beside_what_it_needs_is_parsed(argv: list[str]) -> None:
    check_needs(build_parser().parse_args(argv))  # passes
