"""Limits of a game that both the engine and the screens know (the screens import only
``controller.core``)."""

from __future__ import annotations

MAX_EXTRA_ROUNDS = 3
"""Engine decision (the rules are silent): players still tied after this many extra rounds
share the win; until then a tie of three or more plays one round more (docs/rules.md §11),
so the game's round passes its last: the table shows it as an extra round
(:func:`extra_round`)."""


def extra_round(round_no: int, rounds: int | None) -> int | None:
    """Which extra round of a tie round ``round_no`` of a ``rounds``-round game is (1 for the
    first past the last, up to :data:`MAX_EXTRA_ROUNDS`), or None: one of the game's own
    rounds, or a game without a number of rounds (``rounds`` None, the 45-minute game).

    The engine counts an extra round on from the last (``round`` is ``rounds`` plus the
    engine's ``extra_rounds``); a Story game's ``rounds`` are its squares, never passed.
    """
    if rounds is None or round_no <= rounds:
        return None
    return round_no - rounds
