"""The install's steps (:class:`InstallStep`) and carrying them out: commands run, files written."""

from __future__ import annotations

import contextlib
import grp
import os
import shlex
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from controller.system.unit_files import ServiceError


@dataclass(frozen=True)
class InstallStep:
    """One thing the install does: run a command, write or remove a file, or say something."""

    action: str  # "run", "write", "remove", "mkdir" or "note"
    argv: tuple[str, ...] = ()
    path: Path | None = None
    content: str = ""
    mode: int = 0o644
    group: str | None = None  # chgrp the written file (a live install as root only)
    text: str = ""  # "note"

    def describe(self) -> str:
        """The line ``--dry-run`` prints."""
        if self.action == "run":
            return "+ " + shlex.join(self.argv)
        if self.action == "write":
            extra = f", group {self.group}" if self.group else ""
            return f"+ write {self.path} (mode {self.mode:04o}{extra})"
        if self.action == "mkdir":
            return f"+ mkdir -p -m {self.mode:04o} {self.path}"
        if self.action == "remove":
            return f"+ rm -f {self.path}"
        return f"service install: {self.text}"


def run_step(*argv: str) -> InstallStep:
    """A step running the command ``argv``."""
    return InstallStep("run", argv=argv)


def note_step(text: str) -> InstallStep:
    """A step only saying ``text``."""
    return InstallStep("note", text=text)


def carry_out(steps: Sequence[InstallStep], out: TextIO, dry_run: bool = False) -> None:
    """Do the steps (or, with ``dry_run``, print them); notes are printed either way.

    Raises:
        ServiceError: a command failed or a file could not be written.
    """
    for step in steps:
        if step.action == "note" or dry_run:
            print(step.describe(), file=out, flush=True)
            continue
        print(step.describe(), file=out, flush=True)
        try:
            _do(step)
        except OSError as exc:
            raise ServiceError(f"service install: {step.describe()[2:]}: {exc}") from None
        except subprocess.CalledProcessError as exc:
            raise ServiceError(
                f"service install: `{' '.join(step.argv)}` failed (exit {exc.returncode})"
            ) from None


def _do(step: InstallStep) -> None:
    assert step.path is not None or step.action == "run"
    if step.action == "run":
        subprocess.run(list(step.argv), check=True, timeout=120)
    elif step.action == "mkdir":
        assert step.path is not None
        step.path.mkdir(mode=step.mode, parents=True, exist_ok=True)
    elif step.action == "remove":
        assert step.path is not None
        step.path.unlink(missing_ok=True)
    elif step.action == "write":
        assert step.path is not None
        _write(step.path, step.content, step.mode, step.group)


def _write(path: Path, content: str, mode: int, group: str | None) -> None:
    """Write ``content`` whole: a temporary file renamed over ``path``."""
    tmp = path.with_name(f".{path.name}.new")
    tmp.write_text(content)
    os.chmod(tmp, mode)
    if group is not None and os.geteuid() == 0:
        with contextlib.suppress(KeyError):  # a staged install: the group is made on the target
            os.chown(tmp, 0, grp.getgrnam(group).gr_gid)
    os.replace(tmp, path)
