"""The evening's standings across every game seen.

The players of every game rank by:

1. games won (a finished game's winners; a shared win counts for each),
2. then warriors left standing, summed over the player's games (live for a game
   in progress, final for a finished one),
3. then endurance left, summed the same way,
4. then the name, alphabetically; equal figures share a rank.

A companion game (``"kind": "companion"``: a card game the table keeps the numbers
of) counts like a dice game for games played and games won (its winner, once it is
over), and adds nothing to warriors or endurance left: its numbers (life, fans,
levels) are not warriors, so those tie-breaks only compare the players' dice games.
"""

from __future__ import annotations

from typing import Any


def standings(games: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The evening's standings over clean states (see the module docstring for the order)."""
    rows: dict[str, dict[str, Any]] = {}
    for g in games:
        winners = set(g["winners"]) if g["over"] else set()
        seats = g["players"] if g.get("kind") == "companion" else g["teams"]
        for t in seats:
            name = t["player"]
            row = rows.setdefault(
                name,
                {"player": name, "games": 0, "won": 0, "warriors_left": 0, "endurance_left": 0,
                 "tables": []},
            )  # fmt: skip
            row["games"] += 1
            row["won"] += 1 if name in winners else 0
            row["warriors_left"] += t.get("warriors_left", 0)
            row["endurance_left"] += t.get("endurance_left", 0)
            if g["table_id"] not in row["tables"]:
                row["tables"].append(g["table_id"])

    def key(r: dict[str, Any]) -> tuple[int, int, int]:
        return (-r["won"], -r["warriors_left"], -r["endurance_left"])

    ordered = sorted(rows.values(), key=lambda r: (*key(r), r["player"].casefold(), r["player"]))
    rank = 0
    previous: tuple[int, int, int] | None = None
    for i, r in enumerate(ordered, 1):
        if key(r) != previous:
            rank, previous = i, key(r)
        r["rank"] = rank
    return ordered
