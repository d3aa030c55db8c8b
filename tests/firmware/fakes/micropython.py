"""Fake ``micropython`` module: the calls the firmware makes, recorded."""

from __future__ import annotations

calls: list[tuple[str, object]] = []
kbd_intr_char = 3  # Ctrl-C interrupts by default


def reset() -> None:
    """Forget what was called (a fresh board)."""
    global kbd_intr_char
    calls.clear()
    kbd_intr_char = 3


def kbd_intr(chr: int) -> None:
    """Set the character that raises KeyboardInterrupt on stdin; -1 disables it."""
    global kbd_intr_char
    calls.append(("kbd_intr", chr))
    kbd_intr_char = chr


def const(expr: int) -> int:
    """``micropython.const``: the value itself at run time."""
    return expr


def alloc_emergency_exception_buf(size: int) -> None:
    calls.append(("alloc_emergency_exception_buf", size))
