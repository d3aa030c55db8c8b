"""The game flow of docs/rules.md §9–§12: a pure state machine driven by events.

Public API (see README.md in this folder)::

    from controller.game import (GameConfig, Length, load_game_data, new_game, apply,
                                 legal_actions, awaiting, TableGame)

    data = load_game_data()                          # board, warriors, cards
    state = new_game(GameConfig(("Ann", "Bob")), data)
    state = apply(state, FirstPlayerChosen(0))       # inputs and actions are events
    for action in legal_actions(state): ...          # lazy, python-chess style
    awaiting(state)                                  # what input / whose action comes next

``TableGame`` binds a game to its SQLite journal (journal first, then apply;
resume = replay; undo = the last player action).

Owns: the game as a fold of events (engine/), its state, legal actions and
perft, bots, simulation, the journal and its migrations. May import:
controller.core, rules and gamedata.
"""

from __future__ import annotations

from controller.game.engine import (
    Awaiting,
    actor,
    advance,
    apply,
    arrange,
    attack_options,
    awaiting,
    defence_answers,
    move_targets,
    new_game,
    replay,
    step_spaces,
)
from controller.game.events import (
    Action,
    ChooseAttack,
    ChooseReward,
    CounterAttack,
    Defend,
    DiceThrown,
    DieRolled,
    Discard,
    Draft,
    DuelPick,
    ExtraCombat,
    FirstPlayerChosen,
    GameEvent,
    Move,
    Pass,
    Place,
    PlayCard,
    Shuffled,
    StepAside,
    StopRolling,
    ThrowCorrected,
    TimeUp,
    TryFusion,
    event_from_dict,
)
from controller.game.legal import LegalActions, legal_actions
from controller.game.prompt import prompt
from controller.game.session import TableGame
from controller.game.simulate import play_game
from controller.game.state import GameConfig, GameState, Length, Phase, Piece
from controller.gamedata.bundle import GameData, load_game_data
from controller.gamedata.cards import Card, CardSet, Deck, Effect, EffectKind, Timing

__all__ = [
    "Action", "Awaiting", "Card", "CardSet", "ChooseAttack", "ChooseReward", "CounterAttack",
    "Deck", "Defend", "DiceThrown", "DieRolled", "Discard", "Draft", "DuelPick", "Effect",
    "EffectKind", "ExtraCombat", "FirstPlayerChosen", "GameConfig", "GameData", "GameEvent",
    "GameState", "LegalActions", "Length", "Move", "Pass", "Phase", "Piece", "Place",
    "PlayCard", "Shuffled", "StepAside", "StopRolling", "TableGame", "ThrowCorrected",
    "TimeUp", "Timing", "TryFusion", "actor", "advance", "apply", "arrange", "attack_options",
    "awaiting", "defence_answers", "event_from_dict", "legal_actions", "load_game_data",
    "move_targets", "new_game", "play_game", "prompt", "replay", "step_spaces",
]  # fmt: skip
