"""The card deck each space colour draws from (docs/rules.md §10: A l.41-47, B l.33-41)."""

from __future__ import annotations

from controller.gamedata.board import Colour
from controller.gamedata.cards import Deck

DECK_OF_COLOUR: dict[Colour, Deck] = {
    Colour.RED: Deck.ATTACK,
    Colour.YELLOW: Deck.DEFENCE,
    Colour.BLUE: Deck.SPECIAL,
}


def deck_of_colour(colour: Colour) -> Deck | None:
    """The card deck a space colour draws from (None for green)."""
    return DECK_OF_COLOUR.get(colour)
