"""Revision 4: a second combat onto a green space never fights the green warrior just
fought, which went back under the green deck as its only card (A l.261 "another Warrior
token"). Only a board with two green spaces side by side can offer that step."""

from __future__ import annotations

from dataclasses import replace

from controller.core.symbols import Symbol
from controller.game import engine
from controller.game.events import DiceThrown, Move, PlayCard
from controller.game.legal import legal_actions
from controller.game.state import GameConfig, GameState, Phase
from controller.gamedata.board import Colour
from controller.gamedata.bundle import GameData
from tests.game.helpers import demo_data


def _two_greens_side_by_side() -> GameData:
    """The demo data on a board whose space 37 is green, beside green 38."""
    demo = demo_data()
    spaces = dict(demo.board.spaces)
    assert spaces[38].colour is Colour.GREEN and 37 in spaces[38].neighbours
    spaces[37] = replace(spaces[37], colour=Colour.GREEN)
    return GameData(replace(demo.board, spaces=spaces), demo.roster, demo.cards)


def _after_green_fight(revision: int, green_deck: list[str]) -> GameState:
    """Kahseral moves onto green 38 and fights the green deck's top warrior, who survives."""
    state = engine.arrange(
        GameConfig(("A", "B"), rules_revision=revision),
        _two_greens_side_by_side(),
        pieces=[("Kahseral", 0, 39), ("Obuni", 1, 2)],
        hands=[["Second Wind"], []],
        decks={"event": []},
        green_deck=green_deck,
    )
    for event in (
        Move(0, "Kahseral", 38),
        DiceThrown((Symbol.KICK, Symbol.PUNCH, Symbol.TELEPORT, Symbol.STAR)),
    ):
        state = engine.apply(state, event)
    while state.combat is not None:
        state = engine.apply(state, next(iter(legal_actions(state))))
    assert state.green_deck[-1] == "Zium"  # survived: back under the deck
    return state


def test_the_green_warrior_just_fought_is_not_drawn_again() -> None:
    state = _after_green_fight(4, ["Zium"])
    assert not any(isinstance(a, PlayCard) for a in legal_actions(state))
    assert (state.phase, state.seat) == (Phase.MOVE, 1)  # no second combat to offer


def test_another_green_warrior_under_it_may_be_fought() -> None:
    state = _after_green_fight(4, ["Zium", "Narirama"])
    assert state.phase is Phase.EXTRA_OFFER and state.fought == ("Zium",)
    assert state.green_deck == ("Narirama", "Zium")
    assert PlayCard(0, "Second Wind", space=37) in legal_actions(state)
    state = engine.apply(state, PlayCard(0, "Second Wind", space=37))
    assert state.combat is not None and state.combat.defender == "Narirama"
