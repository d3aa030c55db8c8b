"""Checking untrusted messages: a state or event payload copied field by field into a clean dict.

Everything arriving from the broker is untrusted: a message too large, not
JSON, of an unknown schema, or with fields of the wrong type or size raises
:class:`MessageError`; a state is the dice game's, or (``"kind": "companion"``) a
companion game's (:mod:`controller.publish.companion`); only the fields known here are copied, so nothing else a
sender adds reaches the page. Strings stay strings: the page escapes them.
"""

from __future__ import annotations

import json
from typing import Any

from controller.publish.companion import KIND as COMPANION
from controller.publish.companion import MAX_NUMBERS
from controller.publish.messages import SCHEMA

MAX_MESSAGE_BYTES = 64 * 1024  # a 6-player state is about 6 KB
MAX_TEXT = 64
MAX_PLAYERS = 6
MAX_WARRIORS = 16
MAX_ELIMINATED = 96


MAX_INT = 10**9


class MessageError(ValueError):
    """A message from the broker that the scoreboard drops."""


# ---------------------------------------------------------------- checking untrusted fields
def _text(v: Any, what: str, *, empty: bool = True) -> str:
    if not isinstance(v, str) or len(v) > MAX_TEXT or (not empty and not v):
        raise MessageError(f"{what}: expected a string of at most {MAX_TEXT} characters")
    return v


def _opt_text(v: Any, what: str) -> str | None:
    return None if v is None else _text(v, what)


def _int(v: Any, what: str, lo: int = 0, hi: int = MAX_INT) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise MessageError(f"{what}: expected an integer {lo}..{hi}")
    return v


def _opt_int(v: Any, what: str) -> int | None:
    return None if v is None else _int(v, what)


def _bool(v: Any, what: str) -> bool:
    if not isinstance(v, bool):
        raise MessageError(f"{what}: expected true or false")
    return v


def _list(v: Any, what: str, limit: int) -> list[Any]:
    if not isinstance(v, list) or len(v) > limit:
        raise MessageError(f"{what}: expected a list of at most {limit}")
    return v


def _dict(v: Any, what: str) -> dict[str, Any]:
    if not isinstance(v, dict):
        raise MessageError(f"{what}: expected an object")
    return v


def _number(v: Any, what: str) -> float | None:
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int | float) or v != v:
        raise MessageError(f"{what}: expected a number")
    return float(v)


def _decode(payload: bytes) -> dict[str, Any]:
    if len(payload) > MAX_MESSAGE_BYTES:
        raise MessageError(f"{len(payload)} bytes, more than {MAX_MESSAGE_BYTES}")
    try:
        data = json.loads(payload.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise MessageError(f"not UTF-8 JSON ({type(exc).__name__})") from None
    d = _dict(data, "message")
    if d.get("schema") != SCHEMA:
        raise MessageError(f"schema {d.get('schema')!r} is not {SCHEMA}")
    return d


def clean_state(table_id: str, payload: bytes) -> dict[str, Any]:
    """A state message checked field by field and copied (unknown fields left out).

    Raises:
        MessageError: too large, not JSON, another schema, another table, a bad field.
    """
    d = _decode(payload)
    if d.get("table_id") != table_id:
        raise MessageError("table_id differs from the topic's")
    if "kind" in d:
        if d["kind"] != COMPANION:
            raise MessageError(f"state kind {str(d['kind'])[:20]!r} is not {COMPANION!r}")
        return _clean_companion(table_id, d)
    teams = []
    for i, t in enumerate(_list(d.get("teams"), "teams", MAX_PLAYERS)):
        t = _dict(t, f"teams[{i}]")
        warriors = []
        for j, w in enumerate(_list(t.get("warriors"), f"teams[{i}].warriors", MAX_WARRIORS)):
            w = _dict(w, f"teams[{i}].warriors[{j}]")
            warriors.append(
                {
                    "name": _text(w.get("name"), "warrior name", empty=False),
                    "endurance": _int(w.get("endurance"), "endurance"),
                    "max_endurance": _int(w.get("max_endurance"), "max_endurance"),
                    "form": _text(w.get("form", ""), "form"),
                    "eliminated": _bool(w.get("eliminated"), "eliminated"),
                    "on_board": _bool(w.get("on_board"), "on_board"),
                }
            )
        teams.append(
            {
                "seat": _int(t.get("seat"), "seat", 0, MAX_PLAYERS),
                "player": _text(t.get("player"), "player", empty=False),
                "colour": _text(t.get("colour", ""), "colour"),
                "warriors_left": _int(t.get("warriors_left"), "warriors_left"),
                "endurance_left": _int(t.get("endurance_left"), "endurance_left"),
                "warriors": warriors,
            }
        )
    eliminated = []
    for i, e in enumerate(_list(d.get("eliminated", []), "eliminated", MAX_ELIMINATED)):
        e = _dict(e, f"eliminated[{i}]")
        eliminated.append(
            {"name": _text(e.get("name"), "name"), "player": _opt_text(e.get("player"), "player")}
        )
    turn = d.get("turn")
    if turn is not None:
        turn = _dict(turn, "turn")
        turn = {
            "seat": _int(turn.get("seat"), "turn.seat"),
            "player": _text(turn.get("player"), "turn.player"),
        }
    clock = _dict(d.get("clock", {}), "clock")
    last = d.get("last_combat")
    last_combat = None
    if last is not None:
        last = _dict(last, "last_combat")
        damage = _dict(last.get("damage", {}), "last_combat.damage")
        if len(damage) > 2:
            raise MessageError("last_combat.damage: more than two warriors")
        last_combat = {
            "attacker": _text(last.get("attacker"), "attacker"),
            "defender": _text(last.get("defender"), "defender"),
            "attacker_form": _text(last.get("attacker_form", ""), "attacker_form"),
            "defender_form": _text(last.get("defender_form", ""), "defender_form"),
            "damage": {_text(k, "damage name"): _int(v, "damage") for k, v in damage.items()},
            "eliminated": [
                _text(n, "eliminated")
                for n in _list(last.get("eliminated", []), "last_combat.eliminated", 2)
            ],
            "round": _int(last.get("round", 0), "last_combat.round"),
        }
    combat = d.get("combat")
    if combat is not None:
        combat = _dict(combat, "combat")
        combat = {
            "attacker": _text(combat.get("attacker"), "combat.attacker"),
            "defender": _text(combat.get("defender"), "combat.defender"),
        }
    return {
        "schema": SCHEMA,
        "table_id": table_id,
        "game_id": _text(d.get("game_id"), "game_id"),
        "seq": _int(d.get("seq"), "seq"),
        "mode": _text(d.get("mode", ""), "mode"),
        "length": _text(d.get("length", ""), "length"),
        "phase": _text(d.get("phase", ""), "phase"),
        "round": _int(d.get("round"), "round", 0, 1000),
        "rounds": _opt_int(d.get("rounds"), "rounds"),
        "clock": {
            "seconds_left": _opt_int(clock.get("seconds_left"), "clock.seconds_left"),
            "time_up": _bool(clock.get("time_up", False), "clock.time_up"),
        },
        "turn": turn,
        "teams": teams,
        "eliminated": eliminated,
        "combat": combat,
        "last_combat": last_combat,
        "over": _bool(d.get("over", False), "over"),
        "winners": [_text(w, "winner") for w in _list(d.get("winners", []), "winners", 6)],
        "sent_at": _number(d.get("sent_at"), "sent_at"),
    }


def _turn(v: Any) -> dict[str, Any] | None:
    if v is None:
        return None
    turn = _dict(v, "turn")
    return {
        "seat": _int(turn.get("seat"), "turn.seat"),
        "player": _text(turn.get("player"), "turn.player"),
    }


def _clean_companion(table_id: str, d: dict[str, Any]) -> dict[str, Any]:
    """A companion game's state (:mod:`controller.publish.companion`), copied field by field."""
    players = []
    for i, p in enumerate(_list(d.get("players"), "players", MAX_PLAYERS)):
        p = _dict(p, f"players[{i}]")
        numbers = _dict(p.get("numbers", {}), f"players[{i}].numbers")
        if len(numbers) > MAX_NUMBERS:
            raise MessageError(f"players[{i}].numbers: more than {MAX_NUMBERS}")
        value = p.get("value")
        players.append(
            {
                "seat": _int(p.get("seat"), "seat", 0, MAX_PLAYERS),
                "player": _text(p.get("player"), "player", empty=False),
                "main": _text(p.get("main", ""), "main"),
                "value": None if value is None else _int(value, "value", -MAX_INT),
                "numbers": {
                    _text(k, "number name", empty=False): _int(v, f"numbers.{k[:20]}", -MAX_INT)
                    for k, v in numbers.items()
                },
                "eliminated": _bool(p.get("eliminated", False), "eliminated"),
            }
        )
    return {
        "schema": SCHEMA,
        "kind": COMPANION,
        "table_id": table_id,
        "game_id": _text(d.get("game_id"), "game_id"),
        "seq": _int(d.get("seq"), "seq"),
        "mode": _text(d.get("mode"), "mode", empty=False),
        "step": _text(d.get("step", ""), "step"),
        "turn": _turn(d.get("turn")),
        "players": players,
        "over": _bool(d.get("over", False), "over"),
        "winners": [_text(w, "winner") for w in _list(d.get("winners", []), "winners", 6)],
        "sent_at": _number(d.get("sent_at"), "sent_at"),
    }


def clean_event(table_id: str, payload: bytes) -> tuple[str, int, str]:
    """(game_id, seq, kind) of an event message.

    Raises:
        MessageError: as :func:`clean_state`.
    """
    d = _decode(payload)
    if d.get("table_id") != table_id:
        raise MessageError("table_id differs from the topic's")
    return (
        _text(d.get("game_id"), "game_id", empty=False),
        _int(d.get("seq"), "seq", 1),
        _text(d.get("kind"), "kind"),
    )
