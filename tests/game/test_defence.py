"""Answers to an attack that the demo data cannot show (docs/rules.md §4, §8, §9): a Special
card answering an attack, a green-space warrior with Solar Flare below 10 endurance."""

from __future__ import annotations

import tomllib
from dataclasses import replace

from controller.core.symbols import Symbol
from controller.game import engine
from controller.game.events import (
    ChooseAttack,
    Defend,
    DiceThrown,
    GameEvent,
    Move,
    PlayCard,
)
from controller.game.legal import legal_actions
from controller.game.state import NOTHING_PLAYED, Answer, GameConfig, GameState, Phase
from controller.gamedata.bundle import GameData
from controller.gamedata.cards import parse_cards
from controller.rules.warriors import Ability, AbilityKind, Roster
from tests.game.helpers import demo_data
from tests.paths import REPO

K, P, S, T, R = Symbol.KICK, Symbol.PUNCH, Symbol.STRENGTH, Symbol.TELEPORT, Symbol.STAR
NORMAL = (K, P, T, R)  # Kahseral's 4 dice; three throws make a normal attack (A l.199)


def _apply(state: GameState, *events: GameEvent) -> GameState:
    for event in events:
        state = engine.apply(state, event)
    return state


def _answers(state: GameState) -> list[tuple[str, str | None]]:
    return [(a.answer, a.card) for a in legal_actions(state) if isinstance(a, Defend)]


def _with_ki_barrier() -> GameData:
    """The demo data with an invented Special card that answers an attack by its combo."""
    demo = demo_data()
    raw = tomllib.loads((REPO / "controller/data/demo/cards.toml").read_text(encoding="utf-8"))
    raw["card"].append(
        {"name": "Ki Barrier", "deck": "special", "timing": "defence", "copies": 2,
         "combo": ["strength", "strength"], "effect": {"kind": "prevent"}}
    )  # fmt: skip
    return GameData(demo.board, demo.roster, parse_cards(raw, "cards.toml"))


def _attack(state: GameState, *moves: GameEvent) -> GameState:
    """``moves`` (up to the fight), then Kahseral's normal attack: its symbol sum."""
    return _apply(state, *moves, *(DiceThrown(NORMAL) for _ in range(3)), ChooseAttack(0, "sum"))


def test_a_special_card_whose_combo_fails_is_not_the_turns_special_card() -> None:
    # A l.350: a failed card combo keeps the card; A l.370: one Special card *used* per turn.
    # Kept, it was never played (as an Attack card whose combo fails, docs/rules.md §9): the
    # attack that goes through eliminates Obuni, and the Special rescue card may still save it
    state = engine.arrange(
        GameConfig(("A", "B")),
        _with_ki_barrier(),
        pieces=[("Kahseral", 0, 16), ("Obuni", 1, 18)],
        hands=[[], ["Ki Barrier", "Dragon Balls"]],
        decks={"event": []},
        damage={"Obuni": 13},  # of 19: the sum's 6 eliminates it
    )
    state = _attack(state, Move(0, "Kahseral", 18))
    assert (Answer.CARD, "Ki Barrier") in _answers(state)
    state = _apply(state, Defend(1, Answer.CARD, "Ki Barrier"))
    assert state.phase is Phase.DEFENCE_ROLL
    state = _apply(state, *(DiceThrown((K,) * 5) for _ in range(4)))  # never 2 strengths
    assert state.hands[1] == ("Ki Barrier", "Dragon Balls")
    assert state.played[1] == NOTHING_PLAYED
    assert state.phase is Phase.RESCUE_OFFER
    assert PlayCard(1, "Dragon Balls") in list(legal_actions(state))
    state = _apply(state, PlayCard(1, "Dragon Balls"))
    assert state.pieces["Obuni"].damage == 0 and not state.pieces["Obuni"].eliminated
    assert state.played[1].special == 1


def test_a_special_card_made_is_the_turns_special_card() -> None:
    state = engine.arrange(
        GameConfig(("A", "B")),
        _with_ki_barrier(),
        pieces=[("Kahseral", 0, 16), ("Obuni", 1, 18)],
        hands=[[], ["Ki Barrier", "Ki Barrier"]],
        decks={"event": []},
    )
    state = _attack(state, Move(0, "Kahseral", 18))
    state = _apply(state, Defend(1, Answer.CARD, "Ki Barrier"), DiceThrown((S, S, K, K, K)))
    assert state.pieces["Obuni"].damage == 0 and state.hands[1] == ("Ki Barrier",)
    assert (state.played[1].special, state.played[1].attack_or_special) == (1, 1)


def _rota_with_solar_flare() -> GameData:
    """The demo data where Dr. Rota (endurance 9, no ability) has Solar Flare (A l.122, B l.102)."""
    demo = demo_data()
    warriors = [
        replace(w, ability=Ability(AbilityKind.SOLAR_FLARE)) if w.name == "Dr. Rota" else w
        for w in demo.roster.values()
    ]
    assert next(w for w in warriors if w.name == "Dr. Rota").endurance < 10
    return GameData(demo.board, Roster(warriors), demo.cards)


def test_a_green_space_warrior_may_flee_with_solar_flare() -> None:
    # A l.122, B l.102: below 10 endurance, a Solar Flare warrior flees; A l.237: the green
    # warrior's ability is active. The player to the right plays it (seat 2 of 3, §10).
    # Engine decision (docs/rules.md §8): it leaves the fight as a green warrior that
    # survives does, under the warrior deck, healed; the attacker keeps the green space
    # and draws nothing.
    state = engine.arrange(
        GameConfig(("A", "B", "C")),
        _rota_with_solar_flare(),
        pieces=[("Kahseral", 0, 2), ("Bergamo", 1, 41), ("Obuni", 2, 30)],
        green_deck=["Dr. Rota", "Happ"],
        decks={"event": []},
    )
    state = _attack(state, Move(0, "Kahseral", 3))
    c = state.combat
    assert c is not None and c.green and c.defender == "Dr. Rota"
    assert state.phase is Phase.DEFENCE_CHOICE and engine.actor(state) == 2
    assert (Answer.FLEE, None) in _answers(state)
    state = _apply(state, Defend(2, Answer.FLEE))
    assert state.combat is None and "Dr. Rota" not in state.pieces
    assert state.green_deck == ("Happ", "Dr. Rota")
    assert state.pieces["Kahseral"].space == 3 and state.occ[3] == "Kahseral"
    assert state.pieces["Kahseral"].damage == 0
    assert state.hands == ((), (), ()) and state.phase is Phase.MOVE and state.seat == 1


def test_a_green_space_warrior_without_solar_flare_may_not_flee() -> None:
    state = engine.arrange(
        GameConfig(("A", "B")),
        demo_data(),
        pieces=[("Kahseral", 0, 2), ("Bergamo", 1, 41)],
        green_deck=["Dr. Rota"],
        decks={"event": []},
    )
    state = _attack(state, Move(0, "Kahseral", 3))
    assert state.phase is Phase.DEFENCE_CHOICE
    assert (Answer.FLEE, None) not in _answers(state)


def test_a_game_of_revision_2_plays_on_by_its_rules() -> None:
    # RULES_REVISION 3 brought both corrections above: a journal of revision 2 replays as
    # it was played (docs/rules.md "Revisions")
    state = engine.arrange(
        GameConfig(("A", "B"), rules_revision=2),
        _with_ki_barrier(),
        pieces=[("Kahseral", 0, 16), ("Obuni", 1, 18)],
        hands=[[], ["Ki Barrier"]],
        decks={"event": []},
    )
    state = _attack(state, Move(0, "Kahseral", 18))
    state = _apply(state, Defend(1, Answer.CARD, "Ki Barrier"))
    state = _apply(state, *(DiceThrown((K,) * 5) for _ in range(4)))
    assert state.hands[1] == ("Ki Barrier",) and state.played[1].special == 1
    state = engine.arrange(
        GameConfig(("A", "B"), rules_revision=2),
        _rota_with_solar_flare(),
        pieces=[("Kahseral", 0, 2), ("Bergamo", 1, 41)],
        green_deck=["Dr. Rota"],
        decks={"event": []},
    )
    state = _attack(state, Move(0, "Kahseral", 3))
    assert (Answer.FLEE, None) not in _answers(state)
