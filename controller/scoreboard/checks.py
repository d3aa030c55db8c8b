"""Checking untrusted messages: a state or event payload copied field by field into a clean dict.

Everything arriving from the broker is untrusted: a message too large, not
JSON, of an unknown schema, or with fields of the wrong type or size raises
:class:`MessageError`; a state is the dice game's, or (``"kind": "companion"``) a
companion game's (:mod:`controller.publish.companion`); only the fields known here are copied, so nothing else a
sender adds reaches the page. Strings stay strings: the page escapes them.
"""

from __future__ import annotations

import json
import re
from typing import Any, NamedTuple

from controller.companion.datafile import MAX_PLAYERS as MAX_COMPANION_PLAYERS
from controller.core.checked import SHOWN_NAME_LIMIT
from controller.game.state import MAX_PLAYERS
from controller.publish.companion import KIND as COMPANION
from controller.publish.companion import MAX_NUMBERS
from controller.publish.messages import OFFLINE, ONLINE, SCHEMA

MAX_MESSAGE_BYTES = 64 * 1024  # a 6-player state is about 6 KB
MAX_TEXT = SHOWN_NAME_LIMIT  # the data refuses a longer warrior or form name
MAX_INSTANCE = 16
MAX_WARRIORS = 16
MAX_GREEN = 32
MAX_ELIMINATED = 96
# Bounds of the numbers a table sends: far above any real game, low enough that no
# sum, range or layout built from them costs anything.
MAX_SEQ = 1_000_000  # journal rows of one game (a 45-minute game has a few hundred)
MAX_ENDURANCE = 1000  # one warrior's
MAX_ROUND = 1000
MAX_CLOCK_S = 24 * 3600
MAX_NUMBER = 1_000_000  # a companion game's numbers (life, fans, levels...), either sign
MAX_TIME = 10**11  # sent_at: wall time in seconds (year 5138)


_SURROGATE = re.compile("[\ud800-\udfff]")


class EventHead(NamedTuple):
    """What the scoreboard reads of an event message."""

    game_id: str
    seq: int
    kind: str
    instance: str | None


class OnlineNote(NamedTuple):
    """An ``online`` topic message."""

    online: bool
    instance: str | None


class MessageError(ValueError):
    """A message from the broker that the scoreboard drops."""


# ---------------------------------------------------------------- checking untrusted fields
def _text(v: Any, what: str, *, empty: bool = True) -> str:
    if not isinstance(v, str) or len(v) > MAX_TEXT or (not empty and not v):
        raise MessageError(f"{what}: expected a string of at most {MAX_TEXT} characters")
    lone = None if v.isascii() else _SURROGATE.search(v)
    if lone is not None:
        # JSON's "\ud800" escape is read as a lone surrogate, which is no character
        # (RFC 8259 8.2): UTF-8 cannot encode it, and the page's answers failed on it
        raise MessageError(f"{what}: a lone surrogate (U+{ord(lone[0]):04X}) is no text")
    return v


def _opt_text(v: Any, what: str) -> str | None:
    return None if v is None else _text(v, what)


def _int(v: Any, what: str, lo: int = 0, hi: int = MAX_NUMBER) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise MessageError(f"{what}: expected an integer {lo}..{hi}")
    return v


def _opt_int(v: Any, what: str, hi: int) -> int | None:
    return None if v is None else _int(v, what, 0, hi)


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


def _time(v: Any, what: str) -> float | None:
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int | float) or not 0 <= v <= MAX_TIME:
        raise MessageError(f"{what}: expected a wall time in seconds")
    return float(v)


def _instance(v: Any) -> str | None:
    if v is None:
        return None
    if not isinstance(v, str) or not 0 < len(v) <= MAX_INSTANCE or not v.isalnum():
        raise MessageError(f"instance: expected 1..{MAX_INSTANCE} letters or digits")
    return v


def _with_instance(d: dict[str, Any], clean: dict[str, Any]) -> dict[str, Any]:
    """``clean`` plus the sender's ``instance`` when the message names one."""
    instance = _instance(d.get("instance"))
    if instance is not None:
        clean["instance"] = instance
    return clean


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")  # NaN, Infinity: the page's JSON.parse refuses them


def _decode(payload: bytes) -> dict[str, Any]:
    if len(payload) > MAX_MESSAGE_BYTES:
        raise MessageError(f"{len(payload)} bytes, more than {MAX_MESSAGE_BYTES}")
    try:
        data = json.loads(payload.decode("utf-8"), parse_constant=_no_constant)
    except (ValueError, RecursionError) as exc:  # JSONDecodeError, UnicodeDecodeError, huge ints
        raise MessageError(f"not UTF-8 JSON ({type(exc).__name__})") from None
    d = _dict(data, "message")
    if d.get("schema") != SCHEMA:
        raise MessageError(f"schema {str(d.get('schema'))[:20]!r} is not {SCHEMA}")
    return d


def _warrior(w: Any, what: str) -> dict[str, Any]:
    w = _dict(w, what)
    return {
        "name": _text(w.get("name"), "warrior name", empty=False),
        "endurance": _int(w.get("endurance"), "endurance", 0, MAX_ENDURANCE),
        "max_endurance": _int(w.get("max_endurance"), "max_endurance", 0, MAX_ENDURANCE),
        "form": _text(w.get("form", ""), "form"),
        "eliminated": _bool(w.get("eliminated"), "eliminated"),
        "on_board": _bool(w.get("on_board"), "on_board"),
    }


def _player_id(v: Any, table_id: str, name: str) -> str:
    """The person id a table gives (a table too old to give one: TABLE/NAME)."""
    return f"{table_id}/{name}" if v is None else _text(v, "player_id", empty=False)


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
        warriors = [
            _warrior(w, f"teams[{i}].warriors[{j}]")
            for j, w in enumerate(_list(t.get("warriors"), f"teams[{i}].warriors", MAX_WARRIORS))
        ]
        player = _text(t.get("player"), "player", empty=False)
        teams.append(
            {
                "seat": _int(t.get("seat"), "seat", 0, MAX_PLAYERS),
                "player": player,
                "player_id": _player_id(t.get("player_id"), table_id, player),
                "colour": _text(t.get("colour", ""), "colour"),
                "warriors_left": _int(t.get("warriors_left"), "warriors_left", 0, MAX_WARRIORS),
                "endurance_left": _int(
                    t.get("endurance_left"), "endurance_left", 0, MAX_WARRIORS * MAX_ENDURANCE
                ),
                "warriors": warriors,
            }
        )
    green = []
    for j, w in enumerate(_list(d.get("green", []), "green", MAX_GREEN)):
        warrior = _warrior(w, f"green[{j}]")
        warrior["fighting"] = _bool(_dict(w, "green").get("fighting", False), "fighting")
        green.append(warrior)
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
            "seat": _int(turn.get("seat"), "turn.seat", 0, MAX_PLAYERS),
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
            "damage": {
                _text(k, "damage name"): _int(v, "damage", 0, MAX_ENDURANCE)
                for k, v in damage.items()
            },
            "eliminated": [
                _text(n, "eliminated")
                for n in _list(last.get("eliminated", []), "last_combat.eliminated", 2)
            ],
            "round": _int(last.get("round", 0), "last_combat.round", 0, MAX_ROUND),
        }
    combat = d.get("combat")
    if combat is not None:
        combat = _dict(combat, "combat")
        combat = {
            "attacker": _text(combat.get("attacker"), "combat.attacker"),
            "defender": _text(combat.get("defender"), "combat.defender"),
        }
    return _with_instance(
        d,
        {
            "schema": SCHEMA,
            "table_id": table_id,
            "game_id": _text(d.get("game_id"), "game_id"),
            "seq": _int(d.get("seq"), "seq", 0, MAX_SEQ),
            "mode": _text(d.get("mode", ""), "mode"),
            "length": _text(d.get("length", ""), "length"),
            "phase": _text(d.get("phase", ""), "phase"),
            "round": _int(d.get("round"), "round", 0, MAX_ROUND),
            "rounds": _opt_int(d.get("rounds"), "rounds", MAX_ROUND),
            "extra_round": _extra_round(d.get("extra_round")),
            "clock": {
                "seconds_left": _opt_int(
                    clock.get("seconds_left"), "clock.seconds_left", MAX_CLOCK_S
                ),
                "time_up": _bool(clock.get("time_up", False), "clock.time_up"),
            },
            "turn": turn,
            "teams": teams,
            "green": green,
            "eliminated": eliminated,
            "combat": combat,
            "last_combat": last_combat,
            "over": _bool(d.get("over", False), "over"),
            "winners": [_text(w, "winner") for w in _list(d.get("winners", []), "winners", 6)],
            "sent_at": _time(d.get("sent_at"), "sent_at"),
        },
    )


def _extra_round(v: Any) -> dict[str, int] | None:
    """A tie's extra round, ``number`` of ``of`` (none, or a table too old to send it: None)."""
    if v is None:
        return None
    extra = _dict(v, "extra_round")
    of = _int(extra.get("of"), "extra_round.of", 1, MAX_ROUND)
    return {"number": _int(extra.get("number"), "extra_round.number", 1, of), "of": of}


def _turn(v: Any) -> dict[str, Any] | None:
    if v is None:
        return None
    turn = _dict(v, "turn")
    return {
        "seat": _int(turn.get("seat"), "turn.seat", 0, MAX_COMPANION_PLAYERS),
        "player": _text(turn.get("player"), "turn.player"),
    }


def _clean_companion(table_id: str, d: dict[str, Any]) -> dict[str, Any]:
    """A companion game's state (:mod:`controller.publish.companion`), copied field by field."""
    players = []
    for i, p in enumerate(_list(d.get("players"), "players", MAX_COMPANION_PLAYERS)):
        p = _dict(p, f"players[{i}]")
        numbers = _dict(p.get("numbers", {}), f"players[{i}].numbers")
        if len(numbers) > MAX_NUMBERS:
            raise MessageError(f"players[{i}].numbers: more than {MAX_NUMBERS}")
        value = p.get("value")
        player = _text(p.get("player"), "player", empty=False)
        players.append(
            {
                "seat": _int(p.get("seat"), "seat", 0, MAX_COMPANION_PLAYERS),
                "player": player,
                "player_id": _player_id(p.get("player_id"), table_id, player),
                "main": _text(p.get("main", ""), "main"),
                "value": None if value is None else _int(value, "value", -MAX_NUMBER),
                "numbers": {
                    _text(k, "number name", empty=False): _int(v, f"numbers.{k[:20]}", -MAX_NUMBER)
                    for k, v in numbers.items()
                },
                "eliminated": _bool(p.get("eliminated", False), "eliminated"),
            }
        )
    return _with_instance(
        d,
        {
            "schema": SCHEMA,
            "kind": COMPANION,
            "table_id": table_id,
            "game_id": _text(d.get("game_id"), "game_id"),
            "seq": _int(d.get("seq"), "seq", 0, MAX_SEQ),
            "mode": _text(d.get("mode"), "mode", empty=False),
            "step": _text(d.get("step", ""), "step"),
            "turn": _turn(d.get("turn")),
            "players": players,
            "over": _bool(d.get("over", False), "over"),
            "winners": [_text(w, "winner") for w in _list(d.get("winners", []), "winners", 6)],
            "sent_at": _time(d.get("sent_at"), "sent_at"),
        },
    )


def clean_event(table_id: str, payload: bytes) -> EventHead:
    """What the scoreboard reads of an event message.

    Raises:
        MessageError: as :func:`clean_state`.
    """
    d = _decode(payload)
    if d.get("table_id") != table_id:
        raise MessageError("table_id differs from the topic's")
    return EventHead(
        _text(d.get("game_id"), "game_id", empty=False),
        _int(d.get("seq"), "seq", 1, MAX_SEQ),
        _text(d.get("kind"), "kind"),
        _instance(d.get("instance")),
    )


def clean_online(table_id: str, payload: bytes) -> OnlineNote:
    """An ``online`` topic message (:func:`~controller.publish.messages.online_message`).

    Raises:
        MessageError: as :func:`clean_state`, or a status other than online/offline.
    """
    d = _decode(payload)
    if d.get("table_id") != table_id:
        raise MessageError("table_id differs from the topic's")
    status = d.get("status")
    if status not in (ONLINE, OFFLINE):
        raise MessageError(f"status: expected {ONLINE!r} or {OFFLINE!r}")
    return OnlineNote(status == ONLINE, _instance(d.get("instance")))
