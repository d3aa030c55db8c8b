"""Which game a table keeps: the one list of game kinds (:class:`GameKind`).

A game says its kind itself: the dice game's config and journal set-up (a Story
game's ``"mode": "story"``), a companion game's journal set-up (``"mode":
"dbz-tcg"``). The config's ``[table] mode``, ``toptable demo --mode``, the
published state's ``"mode"`` and the companion modes' registry all use these
values, so no other list of game names exists.
"""

from __future__ import annotations

from enum import StrEnum


class GameKind(StrEnum):
    """The game a table keeps: the dice game's two modes, or a companion mode."""

    TOURNAMENT = "tournament"  # the Tournament of Power dice game (docs/rules.md §1-11)
    STORY = "story"  # the dice game's Story mode (docs/rules.md §12)
    DBS_TOURNAMENT = "dbs-tournament"  # Dragon Ball Super Card Game Masters (controller.companion)
    DBZ_TCG = "dbz-tcg"  # Dragon Ball Z TCG
    CHALLENGERS = "challengers"  # Challengers!

    @property
    def plays_dice(self) -> bool:
        """The dice game (read by the camera, moved on the board), not a companion mode."""
        return self in (GameKind.TOURNAMENT, GameKind.STORY)

    @property
    def companion_journal_name(self) -> str:
        """The file a companion mode's journal is kept in, beside the dice game's (the
        table's, the demo's): ``companion-MODE.sqlite``."""
        return f"companion-{self.value}.sqlite"

    @classmethod
    def companions(cls) -> tuple[GameKind, ...]:
        """The companion modes (the table keeps another card game's numbers)."""
        return tuple(k for k in cls if not k.plays_dice)
