"""A huge command-line value is quoted in part in the one line a bad one gets
(:func:`controller.core.quoting.short_repr`; a path, a name, is escaped and cut short by
:func:`controller.core.quoting.printable`): exit 2, one short line."""

from __future__ import annotations

import argparse
import io
from pathlib import Path

import pytest

from controller.cli import flags
from controller.cli.bench import run as run_bench
from controller.cli.board import run_sim_commands
from controller.cli.events import people_argument
from controller.cli.main import main
from controller.core.errors import TopTableError
from tests.cli.test_flag_walk import OPTIONS, PARSER, Option

HUGE = "x" * 100_000
LONGEST = 600
PATHS = (flags.ExistingFile, flags.ImageFile, flags.ExistingDir, flags.OutputFile,
         flags.OutputDir, flags.OutputPath)  # fmt: skip


def _huge(option: Option, tmp: Path) -> str | None:
    """A huge value ``option`` refuses (None: its kind has none to try here)."""
    kind = option.action.type
    if option.action.choices is not None:
        return f"two\n{HUGE}"  # argparse's own words, made one short line
    if isinstance(kind, flags.Host):
        return None  # a host is looked up, not read
    if isinstance(kind, flags.Whole | flags.Number | flags.OneOf):
        return HUGE
    if isinstance(kind, flags.Text | flags.Checked | flags.Parsed):
        return f"two\n{HUGE}"
    if isinstance(kind, PATHS):
        return str(tmp / f"a\nb{'y' * 5000}")  # a newline, and a name too long for a disk
    return None


@pytest.mark.parametrize("option", [o for o in OPTIONS if _huge(o, Path()) is not None], ids=str)
def test_a_huge_value_is_one_short_line(
    option: Option,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("controller.cli.main.build_parser", lambda: PARSER)
    value = _huge(option, tmp_path)
    assert value is not None
    assert main(option.argv(value)) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1, err[:300]
    assert len(err) < LONGEST and "characters)" in err, err[:300]


def test_the_words_of_a_huge_number_flag(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["screens", f"--scale={HUGE}"]) == 2
    assert capsys.readouterr().err == (
        "toptable screens: error: argument --scale: expected a whole number 0..16, "
        f"got '{'x' * 40}...' (100000 characters)\n"
    )


def test_a_huge_line_typed_into_the_board_simulator_is_answered_in_part() -> None:
    out = io.StringIO()
    run_sim_commands(object(), io.StringIO(f"{HUGE}\n"), out)
    line = out.getvalue().splitlines()[0]
    assert line.startswith(f"? '{'x' * 40}...' (100000 characters): ") and len(line) < LONGEST


def test_huge_names_and_benchmark_areas_are_named_in_part(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(TopTableError) as err:
        people_argument(f"Ann{' ' * 100_000}")  # one player: too few, the whole text named
    assert len(str(err.value)) < LONGEST and "(100003 characters)" in str(err.value)
    assert run_bench(argparse.Namespace(areas=[HUGE])) == 2  # (the flag refuses it first)
    out = capsys.readouterr().out
    assert out.startswith(f"toptable bench: unknown area '{'x' * 40}...' (100000 characters): ")


@pytest.mark.parametrize(
    "argv",
    [
        ["screens", f"--{HUGE}"],  # an option argparse does not know
        ["screens", "--a\nb"],  # a newline in it
        [f"scr\neens{HUGE}"],  # a command it does not know
    ],
)
def test_argparses_own_messages_are_one_short_line(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and len(err) < LONGEST, err[:LONGEST]
    assert err.startswith("toptable")
