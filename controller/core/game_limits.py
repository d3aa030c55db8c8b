"""Limits of a game that both the engine and the screens know (the screens import only
``controller.core``)."""

from __future__ import annotations

MAX_EXTRA_ROUNDS = 3
"""Engine decision (the rules are silent): players still tied after this many extra rounds
share the win; until then a tie of three or more plays one round more (docs/rules.md §11),
so the clock may show a round past the game's last."""
