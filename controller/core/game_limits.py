"""Limits of a game that both the engine and the screens know (the screens import only
``controller.core``)."""

from __future__ import annotations

MAX_EXTRA_ROUNDS = 3
"""Engine decision (the rules are silent): players still tied after this many extra rounds
share the win; until then a tie of three or more plays one round more (docs/rules.md §11),
past the last round of a 5- or 10-round game or past the time of a 45-minute one: the table
shows it as an extra round (:func:`extra_round`)."""


def extra_round(extra_rounds: int) -> int | None:
    """Which extra round of a tie the game plays (1 to :data:`MAX_EXTRA_ROUNDS`), or None:
    none (``extra_rounds`` 0).

    ``extra_rounds`` is the engine's own count (``GameState.extra_rounds``), the one source
    for every kind of game: a 5- or 10-round game's round is then its last plus that count,
    and a 45-minute game, which has no last round, counts it once time is up. A Story game
    never plays one.
    """
    return extra_rounds if extra_rounds > 0 else None
