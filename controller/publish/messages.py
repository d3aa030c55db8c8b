"""The topics a table publishes on and the JSON messages it sends.

Topics (``<table>`` is the table id)::

    toptable/<table>/state    retained, QoS 0 mid-game, 1 for the last and a flush: the
                              whole visible state (state_message)
    toptable/<table>/events   QoS 1: one message per journal row (event_message)
    toptable/<table>/online   retained, QoS 1: online_message, "offline" also as the last will

Every message is JSON and carries ``schema`` (:data:`SCHEMA`); a reader drops a
message with a schema it does not know. Every message also carries the random
``instance`` of the table process that sent it (two processes publishing as one
table id show as two instances). An event message carries the journal's ``seq``
and ``game_id``: a subscriber dedupes on (game_id, seq) and sees a gap as a
missing number. This is the one module that knows :class:`GameState`'s fields.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from controller.core.errors import UnknownNameError
from controller.core.game_limits import MAX_EXTRA_ROUNDS, extra_round
from controller.game.state import Combat, GameState, Phase, Piece
from controller.publish.people import person_id

SCHEMA = 1
ROOT = "toptable"
ONLINE = "online"
OFFLINE = "offline"


def state_topic(table_id: str) -> str:
    """The retained state topic of ``table_id``."""
    return f"{ROOT}/{table_id}/state"


def events_topic(table_id: str) -> str:
    """The event stream topic of ``table_id``."""
    return f"{ROOT}/{table_id}/events"


def online_topic(table_id: str) -> str:
    """The retained online/offline topic of ``table_id``."""
    return f"{ROOT}/{table_id}/online"


def online_message(table_id: str, online: bool, instance: str) -> bytes:
    """The retained ``online`` topic's message: whether the table is connected, and which
    process it is (``instance``)."""
    return encode(
        {"schema": SCHEMA, "table_id": table_id, "status": ONLINE if online else OFFLINE,
         "instance": instance}
    )  # fmt: skip


def event_message(
    table_id: str,
    game_id: str,
    seq: int,
    kind: str,
    payload: str,
    undoes: int | None,
    instance: str | None = None,
) -> bytes:
    """One journal row as the bytes of an event message.

    ``payload`` is the row's stored JSON text (written by ``json.dumps``): it is
    spliced in as it is, so publishing does not parse and re-encode every event.
    """
    head = json.dumps(
        {"schema": SCHEMA, "table_id": table_id, "instance": instance, "game_id": game_id,
         "seq": seq, "kind": kind, "undoes": undoes},
        separators=(",", ":"),
    )  # fmt: skip
    return f'{head[:-1]},"event":{payload}}}'.encode()


@dataclass(frozen=True)
class CombatSummary:
    """How the last finished combat went."""

    attacker: str
    defender: str
    attacker_form: str
    defender_form: str
    attacker_damage: int  # damage taken during the combat
    defender_damage: int
    eliminated: tuple[str, ...]
    round: int

    def to_json(self) -> dict[str, Any]:
        """JSON-able form."""
        return {
            "attacker": self.attacker,
            "defender": self.defender,
            "attacker_form": self.attacker_form,
            "defender_form": self.defender_form,
            "damage": {self.attacker: self.attacker_damage, self.defender: self.defender_damage},
            "eliminated": list(self.eliminated),
            "round": self.round,
        }


class CombatTracker:
    """Follows states one by one and remembers the last combat that finished.

    Cheap enough for the game thread: it compares two references per state and
    only looks at pieces when a combat starts or ends.
    """

    def __init__(self) -> None:
        self.last: CombatSummary | None = None
        self._combat: Combat | None = None
        self._start: dict[str, int] = {}
        self._round = 0

    def observe(self, state: GameState) -> CombatSummary | None:
        """Note ``state``; return the last finished combat (None before the first)."""
        now = state.combat
        was = self._combat
        if was is not None and (
            now is None or (now.attacker, now.defender) != (was.attacker, was.defender)
        ):
            self.last = self._finish(was, state)
        if now is not None and (
            was is None or (now.attacker, now.defender) != (was.attacker, was.defender)
        ):
            self._start = {
                n: state.pieces[n].damage for n in (now.attacker, now.defender) if n in state.pieces
            }
            self._round = state.round
        self._combat = now
        return self.last

    def _finish(self, c: Combat, state: GameState) -> CombatSummary:
        def taken(name: str) -> int:
            piece = state.pieces.get(name)
            return 0 if piece is None else max(0, piece.damage - self._start.get(name, 0))

        out = tuple(
            n for n in (c.attacker, c.defender) if n in state.pieces and state.pieces[n].eliminated
        )
        return CombatSummary(
            c.attacker, c.defender, c.attacker_form or "", c.defender_form or "",
            taken(c.attacker), taken(c.defender),
            out, self._round,
        )  # fmt: skip


def _endurance(state: GameState, name: str) -> int:
    try:
        return state.data.warrior(name).endurance
    except (UnknownNameError, KeyError):
        return 0


def _on_board(space: int | None) -> bool:
    return space is not None and space >= 0  # off the board: None (older states: -1)


def _player(players: tuple[str, ...], seat: int | None) -> str | None:
    return players[seat] if seat is not None and 0 <= seat < len(players) else None


def _form(state: GameState, name: str) -> str:
    c = state.combat
    if c is None:
        return ""
    form = (
        c.attacker_form if name == c.attacker else c.defender_form if name == c.defender else None
    )
    return form or ""  # the messages' spelling of the base form


def _warrior(state: GameState, piece: Piece) -> dict[str, Any]:
    full = _endurance(state, piece.name)
    return {
        "name": piece.name,
        "endurance": 0 if piece.eliminated else max(0, full - piece.damage),
        "max_endurance": full,
        "form": _form(state, piece.name),
        "eliminated": piece.eliminated,
        "on_board": _on_board(piece.space) and not piece.eliminated,
        "fused_into": piece.fused_into or "",
    }


def _green(state: GameState) -> list[dict[str, Any]]:
    """The warriors drawn from the green-space deck: the one fighting and those eliminated
    (one that survives goes back under the deck)."""
    c = state.combat
    out = []
    for p in sorted(state.pieces.values(), key=lambda p: p.name):
        if p.seat is None:
            w = _warrior(state, p)
            w["fighting"] = c is not None and c.green and p.name == c.defender and not p.eliminated
            out.append(w)
    return out


def _extra_round(state: GameState) -> dict[str, int] | None:
    """The extra round of a tie being played (``number`` of at most ``of``), or None: the
    engine's count, past a 5- or 10-round game's last round or a 45-minute game's time."""
    extra = extra_round(state.extra_rounds)
    return None if extra is None else {"number": extra, "of": MAX_EXTRA_ROUNDS}


def state_message(
    state: GameState,
    table_id: str,
    *,
    seq: int,
    game_id: str | None = None,
    seconds_left: int | None = None,
    last_combat: CombatSummary | None = None,
    sent_at: float | None = None,
    people: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The whole visible state of a game as a JSON-able dict (pure: no I/O, no clock).

    ``seq``: the last journal row this state includes. ``seconds_left``: the
    45-minute game's clock (None when untimed or not started). ``sent_at``: the
    wall time the event behind this state was journalled (for latency figures).
    ``people``: name -> person id of the players the organiser gave an id
    (:mod:`controller.publish.people`).
    """
    players = state.players
    colours = state.config.colours
    teams: list[dict[str, Any]] = []
    for seat, name in enumerate(players):
        names = list(state.teams[seat]) if seat < len(state.teams) else []
        names += sorted(
            p.name for p in state.pieces.values() if p.seat == seat and p.name not in names
        )
        warriors = []
        endurance_left = 0
        for w in names:
            piece = state.pieces.get(w)
            if piece is None:
                continue
            warrior = _warrior(state, piece)
            if warrior["on_board"]:
                endurance_left += warrior["endurance"]
            warriors.append(warrior)
        teams.append(
            {
                "seat": seat,
                "player": name,
                "player_id": person_id(table_id, name, people),
                "colour": colours[seat] if seat < len(colours) else "",
                "warriors_left": state.count(seat) if seat < len(state.teams) else 0,
                "endurance_left": endurance_left,
                "warriors": warriors,
            }
        )
    eliminated = [
        {"name": p.name, "player": _player(players, p.seat)}
        for p in sorted(state.pieces.values(), key=lambda p: p.name)
        if p.eliminated
    ]
    c = state.combat
    combat = (
        None
        if c is None
        else {"attacker": c.attacker, "defender": c.defender,
              "attacker_form": c.attacker_form or "", "defender_form": c.defender_form or "",
              "counter": c.counter}
    )  # fmt: skip
    playing = state.phase not in (Phase.FIRST_PLAYER, Phase.OVER) and 0 <= state.seat < len(players)
    return {
        "schema": SCHEMA,
        "table_id": table_id,
        "game_id": game_id if game_id is not None else state.config.game_id,
        "seq": seq,
        "mode": state.config.kind.value,
        "length": state.config.length.value,
        "phase": state.phase.value,
        "round": state.round,
        "rounds": state.rounds,
        "extra_round": _extra_round(state),
        "clock": {"seconds_left": seconds_left, "time_up": state.time_up},
        "turn": {"seat": state.seat, "player": players[state.seat]} if playing else None,
        "teams": teams,
        "green": _green(state),
        "eliminated": eliminated,
        "combat": combat,
        "last_combat": last_combat.to_json() if last_combat is not None else None,
        "over": state.over,
        "winners": [players[w] for w in state.winners if 0 <= w < len(players)],
        "sent_at": sent_at,
    }


def encode(message: dict[str, Any]) -> bytes:
    """A message dict as compact UTF-8 JSON."""
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode()
