"""What the screens say once the table stopped: paused, stopped by its journal, or
stopped for the next game (:meth:`controller.table.controller.TableController.pause`)."""

from __future__ import annotations

from controller.table.entry import HALTED_FAULT, FaultSource
from controller.table.view import Overlay, faults_from
from hardware.displays.model import Prompt, PromptKind
from hardware.displays.renderers import NEXT_GAME_SAID

PAUSED = Prompt(
    PromptKind.CHOOSE, "the table is paused; the game resumes when it starts again", title="paused"
)
"""What the screens ask while the table is stopped."""
STOPPED_HINT = "fix it, then start the table again"
"""What the paused screens add to why the journal could not be written: the service is
not started again by itself after that (exit 2)."""
NEXT_GAME = Prompt(PromptKind.CHOOSE, NEXT_GAME_SAID, title="next game")
"""What the screens say once CONFIRM, held at game over, stopped the table."""
NEXT_GAME_HINT = "the next game starts when the table starts again"
"""What holding CONFIRM at game over says where nothing starts the table again."""


def paused_overlay(halted: str | None, next_game: bool, seconds_left: int | None) -> Overlay:
    """The overlay of a stopped table: why the journal stopped it (``halted``), the next
    game coming (``next_game``), or paused with the game's clock."""
    if halted is not None:
        stopped = Prompt(PromptKind.CHOOSE, f"{halted}: {STOPPED_HINT}", title="stopped")
        return Overlay(stopped, faults_from({str(FaultSource.JOURNAL): HALTED_FAULT}))
    return Overlay(NEXT_GAME if next_game else PAUSED, (), seconds_left)
