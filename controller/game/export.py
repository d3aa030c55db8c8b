"""A finished (or running) game as a readable log: JSON and text.

Every event is listed with who acted, the round, and what it changed: damage,
eliminations, cards drawn and played, with the camera's evidence frame paths
when a throw has one. The log is computed by replaying the events.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from controller.game import engine
from controller.game.events import (
    Action,
    ChooseAttack,
    ClockPaused,
    ClockResumed,
    DiceThrown,
    FirstPlayerChosen,
    GameEvent,
    Shuffled,
    ThrowCorrected,
)
from controller.game.state import GameConfig, GameState
from controller.gamedata.bundle import GameData


def _changes(before: GameState, after: GameState) -> list[str]:
    out: list[str] = []
    for name, p in after.pieces.items():
        q = before.pieces.get(name)
        if q is None:
            if p.seat is None:
                out.append(f"{name} comes from the warrior deck")
            continue
        if p.damage != q.damage:
            left = after.data.warrior(name).endurance - p.damage
            out.append(f"{name}: damage {q.damage} -> {p.damage} (endurance left {left})")
        if p.eliminated and not q.eliminated:
            out.append(f"{name} is eliminated")
        if not p.eliminated and q.eliminated:
            out.append(f"{name} is rescued onto space {p.space}")
        if p.space != q.space and p.space is not None and q.space is not None:
            out.append(f"{name}: space {q.space} -> {p.space}")
        if p.fused_into and not q.fused_into:
            out.append(f"{name} fuses into {p.fused_into}")
    for seat, (h0, h1) in enumerate(zip(before.hands, after.hands, strict=True)):
        gained = Counter(h1) - Counter(h0)
        lost = Counter(h0) - Counter(h1)
        who = after.players[seat]
        out.extend(f"{who} draws {c}" for c in gained.elements())
        out.extend(f"{who} uses {c}" for c in lost.elements())
    if after.event_card and after.event_card != before.event_card:
        out.append(f"event card: {after.event_card}")
    if after.round != before.round and after.round:
        out.append(f"{'square' if after.story is not None else 'round'} {after.round} begins")
    if after.over and not before.over:
        out.append("game over: " + ", ".join(after.players[w] for w in after.winners) + " win")
    return out


def _story_changes(before: GameState, after: GameState, e: GameEvent) -> list[str]:
    """Story mode: an attempt's damage, and each square's result."""
    if before.story is None or after.story is None:
        return []
    out: list[str] = []
    c = before.combat
    if isinstance(e, ChooseAttack) and c is not None:
        key = e.option.strip().casefold()
        damage = next((d for n, d in engine.attack_options(before) if n.casefold() == key), 0)
        out.append(f"{c.striker}: {e.option} for {damage} damage")
    out.extend(after.story.log[len(before.story.log) :])
    return out


def export_json(
    config: GameConfig, data: GameData, events: Sequence[GameEvent]
) -> dict[str, object]:
    """The game log as a JSON-able dict.

    Raises:
        IllegalActionError: the events do not replay.
    """
    state = engine.new_game(config, data)
    log: list[dict[str, object]] = []
    for i, e in enumerate(events):
        seat = e.seat if isinstance(e, Action) else None
        new = engine.apply(state, e)
        entry: dict[str, object] = {
            "n": i + 1,
            "round": state.round,
            "phase": state.phase.value,
            "player": state.players[seat] if seat is not None else None,
            "event": e.to_dict(),
            "changes": _story_changes(state, new, e) + _changes(state, new),
        }
        log.append(entry)
        state = new
    return {
        "game_id": config.game_id,
        "players": list(config.players),
        "length": config.length.value,
        "variants": list(config.variants.enabled()),
        "over": state.over,
        "winners": [state.players[w] for w in state.winners],
        "warriors_left": dict(zip(config.players, state.counts(), strict=True)),
        "combats": state.log_combats,
        "events": log,
    } | ({} if state.story is None else _story_result(state))


def _story_result(state: GameState) -> dict[str, object]:
    """Story mode: the victory points per side and per player."""
    st = state.story
    if st is None:
        return {}
    return {
        "mode": state.config.kind.value,
        "victory_points": {str(k): v for k, v in st.side_points().items()},
        "points": dict(zip(state.players, st.points, strict=True)),
    }


def _describe(event: dict[str, Any]) -> str:
    kind = event["kind"]
    if kind == FirstPlayerChosen.kind:
        return f"first player: seat {event.get('seat')}"
    fields = {k: v for k, v in event.items() if k not in ("kind", "seat") and v not in ("", -1, [])}
    if kind == Shuffled.kind:
        order = fields.get("order")
        return (
            f"shuffled {fields.get('deck')} ({len(order) if isinstance(order, list) else 0} cards)"
        )
    if kind in (DiceThrown.kind, ThrowCorrected.kind):
        text = f"{kind}: " + " ".join(str(d) for d in fields.get("dice", []))
        if fields.get("corrected_from"):
            text += "  (first read as " + " ".join(str(d) for d in fields["corrected_from"]) + ")"
        if fields.get("evidence"):
            text += f"  [frame {fields['evidence']}]"
        return text
    return f"{kind} " + ", ".join(f"{k}={v}" for k, v in fields.items())


def export_text(log: dict[str, Any]) -> str:
    """The log of :func:`export_json` as text, one line per event plus its changes (the
    clock's marks, a ``clock_resumed`` with no pause standing, left to the JSON)."""
    lines = [
        f"game {log['game_id']}: {', '.join(log['players'])}  ({log['length']})",
    ]
    if log["variants"]:
        lines.append(f"variants: {', '.join(log['variants'])}")
    paused = False
    for entry in log["events"]:
        kind = entry["event"]["kind"]
        if kind == ClockResumed.kind and not paused:
            continue  # the clock's mark that it ran (once a minute): kept in the JSON only
        paused = kind == ClockPaused.kind or (paused and kind != ClockResumed.kind)
        who = f"{entry['player']}: " if entry["player"] else ""
        lines.append(f"#{entry['n']:<4} r{entry['round']:<2} {who}{_describe(entry['event'])}")
        lines.extend(f"        {c}" for c in entry["changes"])
    winners = log["winners"]
    if "victory_points" in log:
        vp = ", ".join(f"{k} {v}" for k, v in log["victory_points"].items())
        lines.append(f"story: victory points {vp}; players {log['points']}")
    lines.append(
        f"result: {'over' if log['over'] else 'not finished'}; winners: "
        f"{', '.join(winners) or '-'}; warriors left: {log['warriors_left']}; combats: {log['combats']}"
    )
    return "\n".join(lines) + "\n"
