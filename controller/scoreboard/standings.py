"""The evening's standings across every game seen, one ranking per kind of game.

A player is a *person*, counted by the ``player_id`` their table gives
(:mod:`controller.publish.people`): two tables' "Ann" are two people unless the
organiser gave both the same id. The name shown is the person's latest.

Games are ranked apart by :class:`Ranking` (the organiser's choice,
``toptable scoreboard --rank``): by default the dice game and each companion
mode (another card game) have their own ranking. Within a ranking, players by:

1. games won (a finished game's winners; a shared win counts for each),
2. then warriors left standing, summed over the player's dice games (live for a
   game in progress, final for a finished one),
3. then endurance left, summed the same way,
4. then the name, alphabetically; equal figures share a rank.

A companion game counts for games played and won; its numbers (life, fans...)
are not warriors, so it adds nothing to 2 and 3.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from controller.publish.companion import KIND as COMPANION

DICE = "dice"


class Ranking(StrEnum):
    """Which games are ranked together."""

    GAME = "game"  # one ranking per game: the dice game, and each companion mode
    KIND = "kind"  # two: the dice games, the companion games
    ALL = "all"  # one ranking over every game


def group_of(game: dict[str, Any], ranking: Ranking) -> tuple[str, str]:
    """(key, title) of the ranking ``game`` counts in."""
    if ranking is Ranking.ALL:
        return "all", "All games"
    if game.get("kind") != COMPANION:
        return DICE, "Dice game"
    if ranking is Ranking.KIND:
        return COMPANION, "Companion games"
    return f"{COMPANION}:{game['mode']}", str(game["mode"])


def _seats(game: dict[str, Any]) -> list[dict[str, Any]]:
    seats: list[dict[str, Any]] = (
        game["players"] if game.get("kind") == COMPANION else game["teams"]
    )
    return seats


def _rank(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    def key(r: dict[str, Any]) -> tuple[int, int, int]:
        return (-r["won"], -r["warriors_left"], -r["endurance_left"])

    ordered = sorted(rows, key=lambda r: (*key(r), r["player"].casefold(), r["player_id"]))
    rank = 0
    previous: tuple[int, int, int] | None = None
    for i, r in enumerate(ordered, 1):
        if key(r) != previous:
            rank, previous = i, key(r)
        r["rank"] = rank
    return ordered


def standings(games: list[dict[str, Any]], ranking: Ranking = Ranking.GAME) -> list[dict[str, Any]]:
    """The rankings over clean states, oldest game first (see the module docstring).

    Returns ``[{group, title, dice, rows: [{rank, player_id, player, games, won,
    warriors_left, endurance_left, tables}]}]``, the dice ranking first.
    """
    groups: dict[str, dict[str, Any]] = {}
    people: dict[str, dict[str, dict[str, Any]]] = {}
    for g in games:
        key, title = group_of(g, ranking)
        group = groups.setdefault(key, {"group": key, "title": title, "dice": False, "rows": []})
        group["dice"] |= g.get("kind") != COMPANION
        rows = people.setdefault(key, {})
        winners = set(g["winners"]) if g["over"] else set()
        for seat in _seats(g):
            pid = seat["player_id"]
            row = rows.get(pid)
            if row is None:
                row = rows[pid] = {"player_id": pid, "player": seat["player"], "games": 0,
                                   "won": 0, "warriors_left": 0, "endurance_left": 0,
                                   "tables": []}  # fmt: skip
            row["player"] = seat["player"]
            row["games"] += 1
            row["won"] += 1 if seat["player"] in winners else 0
            row["warriors_left"] += seat.get("warriors_left", 0)
            row["endurance_left"] += seat.get("endurance_left", 0)
            if g["table_id"] not in row["tables"]:
                row["tables"].append(g["table_id"])
    out = []
    for key in sorted(groups, key=lambda k: (k != DICE, k)):
        group = groups[key]
        group["rows"] = _rank(list(people[key].values()))
        out.append(group)
    return out
