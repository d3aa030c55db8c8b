"""Every path, module and ``toptable`` command the Markdown files and docstrings name exists.

A newcomer follows the README and the package READMEs word for word, and a
reader follows a docstring's pointers: a file moved, a module renamed or a flag
dropped must take its mentions with it. This test reads every Markdown file of
the repository and every docstring of its packages and checks:

- paths: a link target, or a code span that is a repository path (``a/b.py``,
  ``firmware/README.md``, ``tests/data/``), relative to the file or the
  repository (``../shared/...`` to the shared folder beside it); system paths
  (``/etc``, ``/dev``...) and placeholders (``DIR``, ``<name>``, ``*``) are
  the reader's own, and a path whose first folder is none of ours cites
  another project's source (``picamera2/picamera2.py``);
- modules: a dotted name under a package of the repository
  (``controller.gamedata.bundle.load_game_data``) imports, and the rest of it
  are attributes;
- commands: ``toptable WORDS --flags`` names commands the real parser has
  (:func:`controller.cli.main.build_parser`), and flags those commands take.
"""

from __future__ import annotations

import argparse
import ast
import functools
import importlib
import re
import shlex
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from controller.cli.main import build_parser
from tests.paths import REPO

PACKAGES = ("controller", "vision", "hardware", "firmware")
# ``game.state.Phase`` in docs/ (docs/rules.md's "plays it" column): under controller
CONTROLLER_PACKAGES = tuple(
    sorted(p.parent.name for p in (REPO / "controller").glob("*/__init__.py"))
)
PATH_SUFFIXES = (".py", ".md", ".toml", ".json", ".txt", ".sh", ".rules", ".service", ".conf",
                 ".yaml", ".npz", ".png", ".gif", ".jpg", ".html", ".js", ".css", ".sqlite")  # fmt: skip
# Where a path of the Pi or of the reader's machine starts: not the repository's.
SYSTEM_ROOTS = ("/", "~", "$", "./out", "out/")
# argparse's own flags and the entry point's, accepted after any command.
ANY_COMMAND_FLAGS = frozenset({"--help", "-h"})


@dataclass(frozen=True)
class Mention:
    """One thing a text names: where (file:line) and what."""

    where: str
    text: str
    base: Path  # the folder a relative path is read from

    def __str__(self) -> str:
        return f"{self.where}: {self.text}"


def _markdown_files() -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files", "*.md"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.split()
    return [REPO / name for name in listed if (REPO / name).is_file()]


def _docstrings() -> Iterator[tuple[Path, int, str]]:
    """(file, line, text) of every module, class and function docstring of the packages."""
    for package in PACKAGES:
        for path in sorted((REPO / package).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(
                    node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef
                ):
                    doc = ast.get_docstring(node, clean=False)
                    if doc:
                        line = node.body[0].lineno if node.body else 1
                        yield path, line, doc


SPAN = re.compile(r"``([^`\n]+)``|`([^`\n]+)`")
LINK = re.compile(r"\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.M | re.S)
ROLE = re.compile(r":(?:mod|func|class|meth|attr|data|exc|obj):`~?([\w.]+)`")


def _texts() -> Iterator[tuple[str, Path, str, bool]]:
    """(where, folder, text, is_markdown) for every Markdown file and docstring."""
    for path in _markdown_files():
        yield str(path.relative_to(REPO)), path.parent, path.read_text(encoding="utf-8"), True
    for path, line, doc in _docstrings():
        yield f"{path.relative_to(REPO)}:{line}", path.parent, doc, False


def _line_of(text: str, at: int) -> int:
    return text.count("\n", 0, at) + 1


def _mentions() -> Iterator[tuple[str, Mention]]:
    """("path" | "module" | "command", the mention) for everything the texts name."""
    for where, base, text, markdown in _texts():

        def at(
            i: int, src: str, what: str, _w: str = where, _md: bool = markdown,
            _base: Path = base,
        ) -> Mention:  # fmt: skip
            return Mention(f"{_w}:{_line_of(src, i)}" if _md else _w, what, _base)

        fenced = [(m.start(1), m.group(1)) for m in FENCE.finditer(text)] if markdown else []
        prose = FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), text) if markdown else text
        for m in ROLE.finditer(prose):
            if m.group(1).startswith(tuple(f"{p}." for p in PACKAGES)):  # not a relative one
                yield "module", at(m.start(), prose, m.group(1))
        plain = ROLE.sub(lambda m: " " * len(m.group(0)), prose)
        for m in SPAN.finditer(plain):
            span = (m.group(1) or m.group(2)).strip()
            yield from _classify(at(m.start(), plain, span))
        if markdown:
            for m in LINK.finditer(prose):
                target = m.group(1).split("#", 1)[0]
                if target and not re.match(r"^[a-z]+:", target):
                    yield "path", at(m.start(), prose, target)
        for start, block in fenced:
            for offset, line in enumerate(block.splitlines()):
                if re.match(r"^\s*(\$ )?(\S*/)?toptable\s", line):
                    yield (
                        "command",
                        Mention(f"{where}:{_line_of(text, start) + offset}", line.strip(), base),
                    )


def _classify(m: Mention) -> Iterator[tuple[str, Mention]]:
    text = m.text
    if re.match(r"^(\S*/)?toptable(\s|$)", text):
        yield "command", m
    elif re.fullmatch(rf"(?:{'|'.join(PACKAGES)})(?:\.\w+)+", text) and not text.endswith(
        PATH_SUFFIXES
    ):
        yield "module", m
    elif (
        m.where.startswith("docs/")
        and re.fullmatch(rf"(?:{'|'.join(CONTROLLER_PACKAGES)})(?:\.\w+)+", text)
        and not text.endswith(PATH_SUFFIXES)
    ):
        yield "module", Mention(m.where, f"controller.{text}", m.base)
    elif _looks_like_path(text):
        yield "path", m


def _looks_like_path(text: str) -> bool:
    if " " in text or text.startswith(SYSTEM_ROOTS) or re.search(r"[*<>{}$|=:,()\[\]]", text):
        return False
    if re.search(r"(^|/)[A-Z][A-Z_]+(\.|/|$)", text.replace("README", "").replace("PROTOCOL", "")):
        return False  # a placeholder: DIR, PATH, MODEL.npz
    # two parts at least: "images/" alone is a folder of the reader's dataset
    return "/" in text.rstrip("/") and (text.endswith(PATH_SUFFIXES) or text.endswith("/"))


# ---------------------------------------------------------------- the checks
def _roots(m: Mention) -> list[Path]:
    """The folders a relative path in ``m`` may start from: its file's, the repository's,
    a package's."""
    return [m.base, REPO, *(REPO / pkg for pkg in PACKAGES)]


def _ours(m: Mention) -> bool:
    """Whether ``m`` names a path of this repository (or of ``../shared``): its first
    folder is one of ours. ``picamera2/picamera2.py`` cites another project's source."""
    first = m.text.split("/", 1)[0]
    return first == ".." or any((root / first).exists() for root in _roots(m))


def _path_exists(m: Mention) -> bool:
    target = m.text.rstrip("/")
    candidates = [m.base / target, REPO / target]
    if target.startswith("../shared"):
        candidates.append(REPO / target)  # the shared folder beside the checkout
    # a path named inside a package's docs may be relative to that package's root
    candidates += [REPO / pkg / target for pkg in PACKAGES]
    return any(c.exists() for c in candidates)


def _module_exists(name: str) -> bool:
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            if not hasattr(obj, attr):
                annotations = getattr(obj, "__annotations__", {})
                fields = getattr(obj, "__dataclass_fields__", {})
                return attr in annotations or attr in fields  # an instance attribute
            obj = getattr(obj, attr)
        return True
    return False


PARSER = build_parser()


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _flags(parser: argparse.ArgumentParser) -> set[str]:
    return {flag for action in parser._actions for flag in action.option_strings}


def _command_problem(line: str) -> str | None:
    """What is wrong with the ``toptable ...`` command ``line`` (None: it exists)."""
    line = re.split(r"\s(?:#|\||&&|;|>|2>)\s?", line.split("$ ", 1)[-1], maxsplit=1)[0]
    try:
        words = shlex.split(line)
    except ValueError:
        words = line.split()
    words = words[1:]  # the program
    parser = PARSER
    path = ["toptable"]
    while words and not words[0].startswith("-"):
        subs = _subcommands(parser)
        if not subs:
            break
        word = words[0]
        if word in ("...", "…") or re.fullmatch(r"[A-Z][A-Z_]*|<[^>]+>|\[[^]]+\]", word):
            return None  # "toptable ..." or a placeholder: no command named
        alternatives = re.split(r"[/|]", word)
        unknown = [a for a in alternatives if a not in subs]
        if unknown:
            return f"{' '.join(path)} has no command {unknown[0]!r} (it has {', '.join(subs)})"
        if len(alternatives) > 1:
            return None  # "data check/init": each alternative exists
        parser = subs[word]
        path.append(word)
        words = words[1:]
    known = _flags(parser) | ANY_COMMAND_FLAGS
    for word in words:
        if word.startswith("--") and len(word) > 2:
            for flag in word.split("=", 1)[0].rstrip(".,;:)").split("|"):  # --json|--text
                if flag not in known:
                    return f"{' '.join(path)} has no flag {flag}"
    return None


@functools.cache
def _all_mentions() -> list[tuple[str, Mention]]:
    """Read once per process, by the first test that asks: not while collecting, which
    every xdist worker does (parsing every docstring takes seconds)."""
    return list(_mentions())


def _of(kind: str) -> list[Mention]:
    return [m for k, m in _all_mentions() if k == kind]


def test_the_texts_name_things_of_each_kind() -> None:
    # the reading works: the README's own mentions are found
    assert any(m.where.startswith("README.md") for m in _of("command"))
    assert any(m.where.startswith("README.md") for m in _of("path"))
    assert any(m.where.endswith(".py") or ".py:" in m.where for m in _of("module"))


def test_every_path_named_exists() -> None:
    missing = sorted({str(m) for m in _of("path") if _ours(m) and not _path_exists(m)})
    assert not missing, "paths named that do not exist:\n" + "\n".join(missing)


def test_every_module_named_exists() -> None:
    missing = sorted({str(m) for m in _of("module") if not _module_exists(m.text)})
    assert not missing, "modules named that do not exist:\n" + "\n".join(missing)


def test_every_command_named_exists() -> None:
    wrong = sorted({f"{m}: {p}" for m in _of("command") if (p := _command_problem(m.text))})
    assert not wrong, "commands named that the parser does not have:\n" + "\n".join(wrong)


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("toptable demo --journal J --resume", None),
        ("toptable data check/init", None),
        ("toptable board sim|watch|stress|map", None),
        ("toptable config check --config PATH  # the daemon's", None),
        ("toptable board stres", "toptable board has no command 'stres'"),
        ("toptable config check --conf x", "toptable config check has no flag --conf"),
        ("toptable dice read --expect=4 photo.jpg", None),
        ("toptable game export J --json|--text", None),
        ("toptable game export J --json|--yaml", "toptable game export has no flag --yaml"),
    ],
)
def test_the_command_check_reads_the_parser(line: str, problem: str | None) -> None:
    found = _command_problem(line)
    if problem is None:
        assert found is None
    else:
        assert found is not None and found.startswith(problem)


def test_the_path_and_module_checks_can_fail() -> None:
    here = REPO / "controller"
    assert _path_exists(Mention("x", "controller/gamedata/datadir.py", here))
    assert not _path_exists(Mention("x", "controller/tracker.py", here))
    assert _ours(Mention("x", "controller/tracker.py", here))
    assert not _ours(Mention("x", "picamera2/picamera2.py", here))  # another project's source
    assert _module_exists("controller.gamedata.bundle.GameData.roster")  # a dataclass field
    assert not _module_exists("controller.events.Event")
    assert not _module_exists("controller.gamedata.bundle.GameData.nothing")
    assert [k for k, _ in _classify(Mention("x", "toptable data check", here))] == ["command"]
    assert [k for k, _ in _classify(Mention("x", "DIR/warriors.toml", here))] == []
