"""The game flow of RULES.md §9–§12: a pure state machine driven by events.

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
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from controller.game.cards import Card, CardSet, Deck, Effect, EffectKind, Timing
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
from controller.game.simulate import load_game_data, play_game
from controller.game.state import GameConfig, GameData, GameState, Length, Phase, Piece

if TYPE_CHECKING:
    from controller.game.session import TableGame


def __getattr__(name: str) -> Any:
    # TableGame binds a game to its journal, and the journal stores game events: loading
    # it lazily lets ``controller.game.journal`` be imported first without an import cycle.
    if name == "TableGame":
        from controller.game.session import TableGame

        return TableGame
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
