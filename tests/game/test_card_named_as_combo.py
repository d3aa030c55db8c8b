"""An Attack card named as one of the attacker's own combos (a real deck may print one) is
an option of its own, ``NAME (card)``, so the player can choose it (before, the choice by
name always took the combo and the card could never be played)."""

from __future__ import annotations

import tomllib

from controller.core.symbols import Symbol
from controller.game import engine
from controller.game.events import ChooseAttack, Defend, DiceThrown, Move
from controller.game.legal import legal_actions
from controller.game.state import Answer, GameConfig, GameState
from controller.gamedata.bundle import GameData
from controller.gamedata.cards import parse_cards
from tests.game.helpers import demo_data
from tests.paths import REPO

K, P, SP, S = Symbol.KICK, Symbol.PUNCH, Symbol.SPHERE, Symbol.STRENGTH
THROW = (SP, SP, S, K)  # makes Kahseral's combo "Kahseral Rush" and the card below


def _data() -> GameData:
    text = (REPO / "controller" / "data" / "demo" / "cards.toml").read_text(encoding="utf-8")
    text = text.replace('name = "Kamehameha"', 'name = "Kahseral Rush"', 1)
    text = text.replace('combo = ["sphere", "sphere", "punch"]', 'combo = ["sphere", "kick"]', 1)
    demo = demo_data()
    cards = parse_cards(tomllib.loads(text), "cards.toml")
    return GameData(demo.board, demo.roster, cards, demo.story, die=demo.die)


def _thrown() -> GameState:
    s = engine.arrange(
        GameConfig(("A", "B")),
        _data(),
        pieces=[("Kahseral", 0, 16), ("Obuni", 1, 18)],
        hands=[["Kahseral Rush"], []],
        decks={"event": []},
    )
    for event in (Move(0, "Kahseral", 18), *(DiceThrown(THROW) for _ in range(3))):
        s = engine.apply(s, event)
    return s


def test_the_card_and_the_combo_of_one_name_are_two_options() -> None:
    s = _thrown()
    offered = [a.option for a in legal_actions(s) if isinstance(a, ChooseAttack)]
    assert "Kahseral Rush" in offered and "Kahseral Rush (card)" in offered
    card = _undefended(engine.apply(s, ChooseAttack(0, "Kahseral Rush (card)")))
    assert "Kahseral Rush" not in card.hands[0]  # the card was played: its combo was made
    assert card.pieces["Obuni"].damage == 22  # the card's damage
    combo = _undefended(engine.apply(s, ChooseAttack(0, "Kahseral Rush")))
    assert "Kahseral Rush" in combo.hands[0]  # the warrior's own combo: the card stays
    assert combo.pieces["Obuni"].damage == 18


def _undefended(s: GameState) -> GameState:
    return engine.apply(s, Defend(1, Answer.NONE))
