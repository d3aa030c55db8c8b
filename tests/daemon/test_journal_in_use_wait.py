"""The service's start waits a moment for a journal another toptable holds (a ``game undo``
run as the service starts), then refuses as any other writer is refused."""

from __future__ import annotations

from typing import Any

import pytest

from controller.daemon import journals
from controller.storage.journal import JournalInUseError


def _held_for(tries: int, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Make the journal held for the first ``tries`` opens; the opens made are counted."""
    made: list[int] = []

    def open_(*_: Any) -> str:
        made.append(1)
        if len(made) <= tries:
            raise JournalInUseError("j.sqlite: in use by another toptable (pid 7)")
        return "held"

    monkeypatch.setattr(journals, "_resume_or_start", open_)
    monkeypatch.setattr(journals, "IN_USE_POLL_S", 0.01)
    return made


def test_a_start_waits_for_the_holder_to_let_go(monkeypatch: pytest.MonkeyPatch) -> None:
    made = _held_for(3, monkeypatch)
    held: object = journals.resume_or_start(None, wait_in_use_s=5.0)  # type: ignore[arg-type]
    assert held == "held"
    assert len(made) == 4


def test_a_holder_that_stays_is_refused_after_the_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    made = _held_for(10**6, monkeypatch)
    with pytest.raises(JournalInUseError, match="pid 7"):
        journals.resume_or_start(None, wait_in_use_s=0.05)  # type: ignore[arg-type]
    assert len(made) > 1


def test_without_a_wait_the_refusal_is_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    made = _held_for(1, monkeypatch)
    with pytest.raises(JournalInUseError):
        journals.resume_or_start(None)  # type: ignore[arg-type]
    assert len(made) == 1
