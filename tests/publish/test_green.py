"""The warriors drawn from the green-space deck appear on the card where they fight and fall."""

from __future__ import annotations

from typing import Any

from controller.game import engine
from controller.game.events import GameEvent
from controller.game.simulate import play_game
from controller.game.state import GameConfig, GameState, Length
from controller.publish.messages import encode, state_message
from controller.scoreboard.checks import clean_state


def test_a_green_space_warrior_is_in_the_state_while_it_fights_and_once_it_falls(
    game_data: Any,
) -> None:
    config = GameConfig(("Ann", "Bob"), Length.ROUNDS5)

    def published(seed: int) -> list[dict[str, Any]]:
        """The states a game of ``seed`` publishes, as the scoreboard reads them."""
        states: list[GameState] = [engine.new_game(config, game_data)]

        def submit(event: GameEvent) -> GameState:
            states.append(engine.apply(states[-1], event))
            return states[-1]

        play_game(config, game_data, seed, None, submit)
        return [
            clean_state("t1", encode(state_message(s, "t1", seq=i))) for i, s in enumerate(states)
        ]

    def green_fights(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        fallen = [m for m in messages if any(w["eliminated"] for w in m["green"])]
        fights = [m for m in messages if any(w["fighting"] for w in m["green"])]
        return fights if fallen else []

    # a green space is reached only after some combats (A l.39): the first seed whose game
    # both fights a green-space warrior and eliminates one
    messages, fights = [], []
    for seed in range(1, 60):
        messages = published(seed)
        if fights := green_fights(messages):
            break
    assert fights, "no game of seeds 1..59 fights and eliminates a green-space warrior"
    m = fights[0]
    (foe,) = [w for w in m["green"] if w["fighting"]]
    c = m["combat"]
    assert c is not None and c["defender"] == foe["name"]
    assert 0 < foe["endurance"] <= foe["max_endurance"]
    assert all(foe["name"] not in [w["name"] for w in t["warriors"]] for t in m["teams"])
    fallen = next(m for m in messages if any(w["eliminated"] for w in m["green"]))
    down = next(w for w in fallen["green"] if w["eliminated"])
    assert down["endurance"] == 0 and not down["fighting"]
    assert {"name": down["name"], "player": None} in fallen["eliminated"]
