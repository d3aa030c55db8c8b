"""The install's steps (:class:`InstallStep`) and carrying them out: commands run, files written."""

from __future__ import annotations

import contextlib
import grp
import os
import shlex
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import TextIO

from controller.core.durable import replace_durably, sync_folder
from controller.system.unit_files import ServiceError


class StepAction(Enum):
    """What an :class:`InstallStep` does."""

    RUN = "run"  # run ``argv``
    WRITE = "write"  # write ``content`` to ``path`` (``mode``, ``group``)
    REMOVE = "remove"  # remove ``path`` if it is there
    MKDIR = "mkdir"  # make the folder ``path`` (``mode``) and its parents
    NOTE = "note"  # only say ``text``


@dataclass(frozen=True)
class InstallStep:
    """One thing the install does: run a command, write or remove a file, or say something.

    Make one with :func:`run_step`, :func:`write_step`, :func:`remove_step`,
    :func:`mkdir_step` or :func:`note_step`: each sets the fields its action uses."""

    action: StepAction
    argv: tuple[str, ...] = ()
    path: Path | None = None  # None for RUN and NOTE
    content: str = ""
    mode: int = 0o644
    group: str | None = None  # chgrp the written file (a live install as root only)
    text: str = ""

    def describe(self) -> str:
        """The line ``--dry-run`` prints."""
        if self.action is StepAction.RUN:
            return "+ " + shlex.join(self.argv)
        if self.action is StepAction.WRITE:
            extra = f", group {self.group}" if self.group else ""
            return f"+ write {self.path} (mode {self.mode:04o}{extra})"
        if self.action is StepAction.MKDIR:
            return f"+ mkdir -p -m {self.mode:04o} {self.path}"
        if self.action is StepAction.REMOVE:
            return f"+ rm -f {self.path}"
        return f"service install: {self.text}"


def run_step(*argv: str) -> InstallStep:
    """A step running the command ``argv``."""
    return InstallStep(StepAction.RUN, argv=argv)


def write_step(
    path: Path, content: str, mode: int = 0o644, group: str | None = None
) -> InstallStep:
    """A step writing ``content`` to ``path`` whole (with ``group``: chgrp it, as root)."""
    return InstallStep(StepAction.WRITE, path=path, content=content, mode=mode, group=group)


def remove_step(path: Path) -> InstallStep:
    """A step removing the file ``path`` (nothing if it is not there)."""
    return InstallStep(StepAction.REMOVE, path=path)


def mkdir_step(path: Path, mode: int = 0o755) -> InstallStep:
    """A step making the folder ``path`` and its parents."""
    return InstallStep(StepAction.MKDIR, path=path, mode=mode)


def note_step(text: str) -> InstallStep:
    """A step only saying ``text``."""
    return InstallStep(StepAction.NOTE, text=text)


def carry_out(steps: Sequence[InstallStep], out: TextIO, dry_run: bool = False) -> None:
    """Do the steps (or, with ``dry_run``, print them); notes are printed either way.

    Raises:
        ServiceError: a command failed or a file could not be written.
    """
    for step in steps:
        if step.action is StepAction.NOTE or dry_run:
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
    if step.action is StepAction.RUN:
        subprocess.run(list(step.argv), check=True, timeout=120)
        return
    if step.path is None:  # the step makers always give one: a bug, not bad input
        raise ServiceError(f"service install: a {step.action.value} step names no path")
    if step.action is StepAction.MKDIR:
        step.path.mkdir(mode=step.mode, parents=True, exist_ok=True)
        sync_folder(step.path.parent)
    elif step.action is StepAction.REMOVE:
        step.path.unlink(missing_ok=True)
        if step.path.parent.is_dir():
            sync_folder(step.path.parent)
    elif step.action is StepAction.WRITE:
        _write(step.path, step.content, step.mode, step.group)


def _write(path: Path, content: str, mode: int, group: str | None) -> None:
    """Write ``content`` whole: a temporary file renamed over ``path``, on the disk when
    this returns (a Pi is often unplugged right after an install)."""
    tmp = path.with_name(f".{path.name}.new")
    tmp.write_text(content)
    os.chmod(tmp, mode)
    if group is not None and os.geteuid() == 0:
        with contextlib.suppress(KeyError):  # a staged install: the group is made on the target
            os.chown(tmp, 0, grp.getgrnam(group).gr_gid)
    replace_durably(tmp, path)
