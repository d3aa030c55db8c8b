"""Every ``toptable`` command refuses impossible values: exit 2, one line, no traceback.

The commands and their options come from the parser itself, so a new command or
option is covered as soon as it is registered: each option's ``type=`` (a kind
from :mod:`controller.cli.flags`) says which bad values to try. An option that
takes a value but names no kind (a bare ``int``, ``float``, ``str`` or ``Path``)
fails :func:`test_every_value_names_its_kind`.

The walk runs in-process (``main([...])``); a few cases run the real entry point
in a subprocess to prove it prints the same one line.
"""

from __future__ import annotations

import argparse
import os
import struct
import subprocess
import sys
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from controller.cli import flags
from controller.cli.main import build_parser, main
from controller.storage.lock import lock_path

pytestmark = pytest.mark.timeout(120)

KINDS = (
    flags.Whole,
    flags.Number,
    flags.Text,
    flags.Checked,
    flags.Parsed,
    flags.OneOf,
    flags.Host,
    flags.ExistingFile,
    flags.ImageFile,
    flags.ExistingDir,
    flags.OutputFile,
    flags.NewFile,
    flags.JournalFile,
    flags.OutputDir,
    flags.OutputPath,
)


@dataclass(frozen=True)
class Option:
    """One value-taking argument of one command."""

    command: tuple[str, ...]  # the words before it: ("board", "stress")
    action: argparse.Action
    before: tuple[str, ...]  # a positional's: values for the positionals before it

    @property
    def name(self) -> str:
        """How the error message names it: ``--scale``, or the positional's name."""
        if self.action.option_strings:
            return "/".join(self.action.option_strings)
        return str(self.action.metavar or self.action.dest)

    def argv(self, value: str) -> list[str]:
        """The command line giving ``value`` to this argument (argparse checks a value as it
        reads it, so the other arguments are not needed, except the positionals before it)."""
        if self.action.option_strings:
            return [*self.command, f"{self.action.option_strings[0]}={value}"]
        return [*self.command, *self.before, value]

    def __str__(self) -> str:
        return f"toptable {' '.join(self.command)} {self.name}"


def _takes_value(action: argparse.Action) -> bool:
    return action.nargs != 0 and not isinstance(
        action, argparse._SubParsersAction | argparse._HelpAction | argparse._VersionAction
    )


def _walk(parser: argparse.ArgumentParser, command: tuple[str, ...] = ()) -> Iterator[Option]:
    """Every value-taking argument of every command under ``parser``."""
    before: list[str] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _walk(sub, (*command, *before, name))
            continue
        if not _takes_value(action):
            continue
        yield Option(command, action, tuple(before))
        if not action.option_strings:
            before.append(_good_value(action))


def _good_value(action: argparse.Action) -> str:
    """A value a positional accepts, so that the ones after it can be reached."""
    if action.choices is not None:
        return str(next(iter(action.choices)))
    if isinstance(action.type, flags.Whole):
        return str(action.type.lo)
    if isinstance(action.type, flags.ExistingDir | flags.OutputDir):
        return "."
    return "x"


PARSER = build_parser()
OPTIONS = list(_walk(PARSER))


@pytest.fixture(autouse=True)
def one_parser(monkeypatch: pytest.MonkeyPatch) -> None:
    """``main`` parses with the parser built once (a parser keeps no state between parses)."""
    monkeypatch.setattr("controller.cli.main.build_parser", lambda: PARSER)


def test_the_walk_sees_every_command() -> None:
    commands = {o.command for o in OPTIONS}
    for expected in [("board", "stress"), ("dice", "read"), ("screens",), ("scoreboard",),
                     ("companion", "challengers", "replay"), ("config", "check"), ("demo",)]:  # fmt: skip
        assert expected in commands
    assert len(OPTIONS) > 150


@pytest.mark.parametrize("option", OPTIONS, ids=str)
def test_every_value_names_its_kind(option: Option) -> None:
    action = option.action
    assert action.choices is not None or isinstance(action.type, KINDS), (
        f"{option} takes a value of type {action.type!r}: give it a kind from "
        "controller.cli.flags (a range for a number, what a path is for)"
    )
    if isinstance(action.type, flags.Whole | flags.Number):
        assert action.type.lo > -(10**9) and action.type.hi < 10**10  # both bounds, finite


# ---------------------------------------------------------------- bad values, by kind
def _not_utf8(tmp: Path) -> Path:
    path = tmp / "latin1.txt"
    path.write_bytes('{"name": "Végéta"}'.encode("latin-1"))
    return path


def _png_header(path: Path, width: int, height: int) -> Path:
    """A PNG whose header claims ``width`` x ``height`` (no pixel data follows)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    empty = zlib.compress(b"")  # no rows: a decoder would fail, the header alone is read
    path.write_bytes(
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", empty) + chunk(b"IEND", b"")
    )
    return path


def _bad_values(action: argparse.Action, tmp: Path) -> list[str]:
    """Values ``action`` must refuse."""
    kind = action.type
    a_file = tmp / "a-file.txt"
    a_file.write_text("x", encoding="utf-8")
    under_a_file = str(a_file / "inside")
    if action.choices is not None:
        return ["no-such-choice"]
    if isinstance(kind, flags.Whole):
        out = [str(kind.lo - 1), str(kind.hi + 1), str(10**30), "x", "", "1.5"]
        return out + (["0"] if kind.lo > 0 else []) + (["-1"] if kind.lo >= 0 else [])
    if isinstance(kind, flags.Number):
        out = [str(kind.hi * 10 + 1), "1e400", "nan", "inf", "x", "", str(kind.lo - 1)]
        if kind.above:
            out.append(str(kind.lo))
        if kind.below:
            out.append(str(kind.hi))
        return out
    if isinstance(kind, flags.Text | flags.Checked | flags.Parsed):
        return ["", "two\nlines"]
    if isinstance(kind, flags.OneOf):
        return ["no-such-name"]
    if isinstance(kind, flags.Host):
        return ["no-such-host.invalid", ""]
    if isinstance(kind, flags.ImageFile):
        return [str(tmp / "missing.png"), str(tmp), str(a_file),
                str(_png_header(tmp / "huge.png", 100_000, 100_000)),
                str(_png_header(tmp / "big.png", 9_000, 9_000))]  # fmt: skip
    fifo = tmp / "fifo"
    if not fifo.exists():
        os.mkfifo(fifo)  # opened, it would wait for the other end: refused, not waited on
    if isinstance(kind, flags.ExistingFile):
        out = [str(tmp / "missing.txt"), str(tmp), "", str(fifo)]
        return out + ([str(_not_utf8(tmp))] if kind.text else [])
    if isinstance(kind, flags.ExistingDir):
        return [str(tmp / "missing"), str(a_file), ""]
    if isinstance(kind, flags.OutputFile):
        return [str(tmp), under_a_file, "", str(fifo)]
    if isinstance(kind, flags.NewFile):  # and a file already there
        return [str(tmp), under_a_file, "", str(a_file)]
    if isinstance(kind, flags.JournalFile):  # a path SQLite cannot open, too
        too_long = str(tmp / ("j" * 250) / ("j" * 250) / "t.sqlite")
        return [str(tmp), under_a_file, "", too_long, str(fifo)]
    if isinstance(kind, flags.OutputDir):
        return [str(a_file), under_a_file, ""]
    if isinstance(kind, flags.OutputPath):
        return [under_a_file, ""]
    raise AssertionError(f"no bad values known for {kind!r}")


@pytest.mark.parametrize("option", OPTIONS, ids=str)
def test_bad_values_are_one_line_and_exit_2(
    option: Option, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for value in _bad_values(option.action, tmp_path):
        argv = option.argv(value)
        code = main(argv)
        out, err = capsys.readouterr()
        lines = err.splitlines()
        assert code == 2, f"toptable {argv}: exit {code}\n{err}"
        assert len(lines) == 1 and "Traceback" not in err, f"toptable {argv}:\n{err}"
        named = option.name.split("/")[0] if option.action.option_strings else option.name
        assert named in lines[0], f"toptable {argv}: {lines[0]!r} does not name {named}"
        assert out == "", f"toptable {argv} printed {out!r}"


# ---------------------------------------------------------------- the words of a few
def test_messages_name_the_flag_and_the_range(capsys: pytest.CaptureFixture[str]) -> None:
    cases = {
        ("screens", "--scale=-3"): "toptable screens: error: argument --scale: "
        "expected a whole number 0..16, got '-3'",
        ("board", "stress", "--rate=0"): "toptable board stress: error: argument --rate: "
        "expected a number above 0, at most 10000, got '0'",
        ("dice", "synth", "out", "--images=-1"): "toptable dice synth: error: argument --images: "
        "expected a whole number 1..100000, got '-1'",
        ("scoreboard", "--mqtt=mqtt://h", "--port=70000"): "toptable scoreboard: error: "
        "argument --port: expected a TCP port 0..65535, got '70000'",
    }
    for argv, line in cases.items():
        assert main(list(argv)) == 2
        assert capsys.readouterr().err == line + "\n"


def test_an_image_too_large_is_refused_from_its_header(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    big = _png_header(tmp_path / "big.png", 10_000, 8_000)  # 80 MP: a header, no pixels
    assert main(["dice", "read", str(big)]) == 2
    assert capsys.readouterr().err == (
        f"toptable dice read: error: argument image: {big}: 10000x8000 is 80 megapixels; "
        "at most 64 are read (a camera photo is about 12)\n"
    )


def test_a_port_in_use_is_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    import socket

    evening = tmp_path / "evening"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code = main(["scoreboard", "--mqtt", "mqtt://127.0.0.1:1", f"--port={port}",
                     "--state-dir", str(evening)])  # fmt: skip
    assert not lock_path(evening / "evening.sqlite").exists()  # the evening opened is closed
    err = capsys.readouterr().err
    assert code == 2
    assert err == (
        f"toptable: error: cannot serve on 127.0.0.1:{port}: Address already in use "
        "(another program there? pick another --port or --host)\n"
    )


# ---------------------------------------------------------------- the real entry point
@pytest.mark.parametrize(
    "argv",
    [
        ["screens", "--scale", "100000"],
        ["board", "stress", "--rate", "0"],
        ["story", "simulate", "--games", "-5"],
        ["game", "check", "/"],
    ],
)
def test_the_entry_point_prints_one_line(argv: list[str]) -> None:
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    done = subprocess.run(
        [sys.executable, "-m", "controller.cli", *argv],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        check=False,
    )
    assert done.returncode == 2
    assert len(done.stderr.splitlines()) == 1, done.stderr
    assert done.stderr.startswith("toptable ") and "error: argument" in done.stderr
    assert done.stdout == ""
