"""What a table did in a game, counted for the demo's summary and the logs."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class TableStats:
    """What the table did, for the demo's summary and the logs."""

    throws_read: int = 0
    reads_flagged: int = 0
    reads_corrected: int = 0
    unexpected_throws: int = 0
    unmoved_reads: int = 0  # a reroll read with no die moved: no throw
    moves_from_board: int = 0
    moves_refused: int = 0
    button_actions: int = 0
    refused: list[str] = field(default_factory=list)
