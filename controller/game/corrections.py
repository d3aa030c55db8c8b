"""Corrections folded into what they correct, before a replay.

A :class:`~controller.game.events.ThrowCorrected` (:class:`~controller.game.events.DieCorrected`)
is journalled as it came; a replay wants the throw (die roll) as corrected instead.
"""

from __future__ import annotations

from controller.game.events import (
    ClockEvent,
    DiceThrown,
    DieCorrected,
    DieRolled,
    GameEvent,
    ThrowCorrected,
)


def fold_corrections(events: list[GameEvent]) -> list[GameEvent]:
    """The events with each :class:`ThrowCorrected` (:class:`DieCorrected`) folded into the
    throw (die roll) it corrects.

    A correction replaces the last throw before it, provided no player action came
    after that throw (what followed was then only the throw's automatic
    consequence, which a replay recomputes). Otherwise the correction is kept as
    is, and replaying it raises the engine's error. The clock's events
    (:class:`ClockEvent`) are the table's, not the game's: they are left out.
    """
    out: list[GameEvent] = []
    for e in events:
        if isinstance(e, ClockEvent):
            continue
        if isinstance(e, DieCorrected):
            j = _last(out, DieRolled)
            if j is not None and not any(x.is_action for x in out[j + 1 :]):
                out[j] = DieRolled(e.values)
                continue
        if isinstance(e, ThrowCorrected):
            j = _last(out, DiceThrown)
            if j is not None and not any(x.is_action for x in out[j + 1 :]):
                old = out[j]
                if isinstance(old, DiceThrown):
                    out[j] = DiceThrown(
                        e.dice, e.evidence or old.evidence, old.corrected_from or old.dice
                    )
                    continue
        out.append(e)
    return out


def open_to_correction(events: list[GameEvent]) -> DiceThrown | DieRolled | None:
    """The last throw or die roll of ``events``, if a correction would still replace it
    (:func:`fold_corrections`: no player action after it); None otherwise."""
    folded = fold_corrections(events)
    for i in range(len(folded) - 1, -1, -1):
        e = folded[i]
        if e.is_action:
            return None
        if isinstance(e, DiceThrown | DieRolled):
            return e
    return None


def _last(events: list[GameEvent], kind: type[GameEvent]) -> int | None:
    """The index of the last event of type ``kind`` (None if there is none)."""
    return next((i for i in range(len(events) - 1, -1, -1) if isinstance(events[i], kind)), None)
