"""Why a board sent no frame after its port opened, told from the bytes it sent instead
(the MicroPython prompt, bytes of no frame, or nothing): the link's reason to give up."""

from __future__ import annotations

from firmware import wire

REPL_MARKS = (b"MicroPython v", b">>>", b"raw REPL", b"Traceback")
"""What only MicroPython's prompt prints (its banner, prompts, a traceback)."""


def unheard_reason(waited_s: float, tail: bytes, bytes_invalid: int) -> str:
    """The reason, given the last bytes read (``tail``) and how many made no frame."""
    waited = f"no frame from the board within {waited_s:.0f} s of opening its port"
    if any(mark in tail for mark in REPL_MARKS):
        lines = [ln.strip() for ln in tail.decode("ascii", "replace").splitlines()]
        last = next((ln for ln in reversed(lines) if ln), "")
        return (
            f"{waited}: it answers as the MicroPython prompt (last line {last!r}), so "
            "the toptable firmware is not running; unplug the board and plug it back in, "
            "or deploy the firmware again (`toptable firmware deploy`)"
        )
    if tail:
        return (
            f"{waited}: {bytes_invalid} bytes came that make no frame of board protocol "
            f"{wire.PROTOCOL_VERSION} (another firmware, or another protocol version?); "
            "deploy the firmware again (`toptable firmware deploy`)"
        )
    return (
        f"{waited} (a running firmware sends a heartbeat every 0.25 s): is the toptable "
        "firmware deployed (`toptable firmware deploy`)?"
    )
