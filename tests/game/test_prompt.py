"""The one-line prompt of what the game waits for."""

from __future__ import annotations

import random

from controller.game import engine
from controller.game.bots import GreedyBot, table_input
from controller.game.events import Move
from controller.game.prompt import prompt
from controller.game.state import GameConfig, Length
from tests.game.helpers import demo_data


def test_prompts_through_a_whole_game() -> None:
    rng = random.Random(2)
    state = engine.new_game(GameConfig(("Ann", "Bob"), Length.ROUNDS5), demo_data())
    seen: set[str] = set()
    while not state.over:
        text = prompt(state)
        assert text and "{" not in text
        seen.add(text.split(":")[0])
        event = table_input(state, rng) or GreedyBot().act(state, rng)
        state = engine.apply(state, event)
    assert prompt(state).startswith("game over: ")
    assert {"Ann", "Bob", "roll a die to choose who drafts first"} <= seen


def test_attack_prompt() -> None:
    data = demo_data()
    s = engine.arrange(GameConfig(("Ann", "Bob")), data,
                       pieces=[("Kahseral", 0, 16), ("Obuni", 1, 18)], decks={"event": []})  # fmt: skip
    assert prompt(s) == "Ann: move a warrior up to 4 spaces"
    s = engine.apply(s, Move(0, "Kahseral", 18))
    assert prompt(s) == "Ann: throw 4 dice (Kahseral attacking Obuni)"


def test_every_phase_has_a_label() -> None:
    from controller.game.prompt import PHASE_TEXT
    from controller.game.state import Phase

    assert set(PHASE_TEXT) == set(Phase)
    assert all(t.label for t in PHASE_TEXT.values())


def test_fusion_offer_prompts() -> None:
    """The fusion offer says what is offered: the die without the Fusion card, the card with
    it (A l.209)."""
    data = demo_data()
    pieces = [("Kahseral", 0, 16), ("Kale", 1, 18), ("Caulifla", 1, 18)]
    for hand, want in (
        ([], "Bob: try a fusion (die of 4+) or pass"),
        (["Fusion Dance"], "Bob: play your Fusion card (Kale into Kefla) or pass"),
    ):
        s = engine.arrange(GameConfig(("Ann", "Bob")), data, pieces=pieces, hands=[[], hand],
                           decks={"event": []})  # fmt: skip
        s = engine.apply(s, Move(0, "Kahseral", 18))
        assert prompt(s) == want
