"""The state message of a companion game (issue 15): the card game the table keeps the numbers of.

A companion table publishes like a dice table (same topics, same event messages, its
journal as the outbox); only its state message differs, marked ``"kind": "companion"``
(a state without ``kind`` is the dice game's, :func:`~controller.publish.messages.state_message`)::

    {"schema": 1, "kind": "companion", "table_id", "game_id", "seq",
     "mode": "dbz-tcg", "step": "combat", "turn": {"seat": 0, "player": "Ann"} | null,
     "players": [{"seat", "player", "player_id", "main", "value", "numbers": {name: int},
                  "eliminated"}],
     "over", "winners": ["Ann"], "sent_at"}

``main`` names each player's main number (``life``, ``fans``...: the mode's
:attr:`~controller.companion.base.CompanionMode.main_number`) and ``value`` is it; ``numbers`` holds every whole number of the player in the mode's
``to_json`` (and the length of each of its lists: ``dragon_balls``, ``trophies``).
This is the one module of ``publish`` that knows the companion modes' JSON.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from controller.companion.base import CompanionMode
from controller.publish.messages import SCHEMA
from controller.publish.people import person_id

KIND = "companion"
MAX_NUMBERS = 16


def player_numbers(player: dict[str, Any]) -> dict[str, int]:
    """A player's whole numbers from the mode's ``to_json`` (a list counts its items)."""
    out: dict[str, int] = {}
    for key, value in player.items():
        if isinstance(value, bool):
            continue
        if isinstance(value, int):
            out[key] = value
        elif isinstance(value, list):
            out[key] = len(value)
        if len(out) >= MAX_NUMBERS:
            break
    return out


def companion_state_message(
    mode: CompanionMode[Any, Any],
    state: Any,
    table_id: str,
    *,
    seq: int,
    game_id: str,
    sent_at: float | None = None,
    people: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The visible state of a companion game as a JSON-able dict (pure: no I/O, no clock).

    ``seq``: the last journal row this state includes. ``sent_at``: the wall time the
    row behind it was journalled. ``people``: name -> person id (as :func:`state_message`).
    """
    game = mode.to_json(state)
    out = set(game.get("eliminated") or ())
    names = [str(p["name"]) for p in game["players"]]
    players = []
    for seat, p in enumerate(game["players"]):
        numbers = player_numbers(p)
        players.append(
            {
                "seat": seat,
                "player": names[seat],
                "player_id": person_id(table_id, names[seat], people),
                "main": mode.main_number,
                "value": numbers.get(mode.main_number),
                "numbers": numbers,
                "eliminated": names[seat] in out or p.get("eliminated") is True,
            }
        )
    turn = mode.whose_turn(state)
    winner = game.get("winner")
    return {
        "schema": SCHEMA,
        "kind": KIND,
        "table_id": table_id,
        "game_id": game_id,
        "seq": seq,
        "mode": mode.name,
        "step": mode.step(state),
        "turn": {"seat": names.index(turn), "player": turn} if turn in names else None,
        "players": players,
        "over": winner is not None,
        "winners": [str(winner)] if winner is not None else [],
        "sent_at": sent_at,
    }
