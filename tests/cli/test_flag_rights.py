"""A path flag under a folder this user cannot open is one line, not a traceback
(``Path.exists`` raises PermissionError there instead of answering False)."""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from controller.cli import flags
from controller.core.errors import TopTableError
from tests.as_nobody import as_nobody

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def closed() -> Iterator[Path]:
    """A folder nobody may open (root's own, 0700; not running as root: no rights at all)."""
    base = Path(tempfile.mkdtemp(prefix="toptable-flags-"))
    base.chmod(0o755)
    folder = base / "closed"
    folder.mkdir(mode=0o700 if os.geteuid() == 0 else 0o000)
    try:
        yield folder
    finally:
        folder.chmod(0o700)
        shutil.rmtree(base)


@pytest.mark.parametrize(
    "kind", [flags.OutputFile(), flags.OutputDir(), flags.OutputPath(), flags.ExistingDir()]
)
def test_a_path_under_a_closed_folder_is_the_flags_one_line(
    closed: Path, kind: Callable[[str], Path]
) -> None:
    raw = str(closed / "inside" / "game.sqlite")

    def check() -> None:
        try:
            kind(raw)
        except argparse.ArgumentTypeError as exc:  # what argparse prints as the flag's line
            raise TopTableError(str(exc)) from None

    code, err = as_nobody(check)
    assert code == 2, err  # refused on purpose: no PermissionError escaped
    assert err.startswith(f"{raw}: cannot look there (Permission denied)") and err.count("\n") == 1
