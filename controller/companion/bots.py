"""Seeded bot players for the companion modes: a whole game to a winner in bounded steps.

A bot looks at the state the table keeps and decides the next thing someone at the
table does: a :class:`Decision` (who acts, which offered action, and an answer for
every field the buttons ask, chosen among :func:`~controller.companion.entry.entry_fields`'
values) or :data:`UNDO`. Each mode has a simple plan that moves the game on (attacks
that land, fans that count, matches that end the rounds), with now and then an odd
choice the rules may refuse and an undo, so the demo shows those too.

Pure: no I/O, no clock; the randomness is a seeded :class:`random.Random`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Final

from controller.companion.base import CompanionMode, Offer
from controller.companion.entry import Value, entry_fields


@dataclass(frozen=True)
class Decision:
    """``player`` takes the offered action ``do`` with ``answers`` (field key -> value)."""

    player: str
    do: str
    answers: dict[str, Value] = field(default_factory=dict)


@dataclass(frozen=True)
class Undo:
    """Someone presses undo (the last action is taken back)."""


UNDO: Final = Undo()


class CompanionBot:
    """Decides every move of every player of one companion game (seeded)."""

    def __init__(self, seed: int = 1, wild: float = 0.04, undo: float = 0.02) -> None:
        self.rng = random.Random(seed)
        self.wild = wild  # how often a player picks an odd (perhaps refused) choice
        self.undo = undo  # how often someone takes the last action back
        self._plan: list[tuple[str, str, dict[str, Value]]] = []
        self._last_undo = True  # no undo before the first action
        self._marks: set[tuple[Any, ...]] = set()

    # ----------------------------------------------------------------- public
    def decide(
        self, mode: CompanionMode[Any, Any], state: Any, history: int = 0
    ) -> Decision | Undo | None:
        """The next move, or None once the game is over (nobody is offered anything).

        ``history`` is how many actions the game has (undo is only pressed when > 0).
        """
        players = [str(p["name"]) for p in mode.to_json(state)["players"]]
        offered = {p: mode.legal_actions(state, p) for p in players}
        if not any(offered.values()):
            return None
        if history and not self._last_undo and self.rng.random() < self.undo:
            self._last_undo = True
            self._plan.clear()
            return UNDO
        self._last_undo = False
        if self.rng.random() < self.wild:
            wild = self._wild(mode, state, offered)
            if wild is not None:
                return wild
        wanted = self._planned(mode, state, offered)
        if wanted is None:
            return self._any(mode, state, offered)
        return wanted

    # ----------------------------------------------------------------- helpers
    def _complete(
        self,
        mode: CompanionMode[Any, Any],
        state: Any,
        player: str,
        choice: Offer,
        prefer: dict[str, Value],
    ) -> Decision:
        answers: dict[str, Value] = {}
        for f in entry_fields(mode, state, choice, player):
            want = prefer.get(f.key, "?")
            answers[f.key] = want if want in f.values else self.rng.choice(f.values)
        return Decision(player, choice.do, answers)

    def _find(self, offered: dict[str, tuple[Offer, ...]], player: str, do: str) -> Offer | None:
        return next((c for c in offered.get(player, ()) if c.do == do), None)

    def _wild(
        self, mode: CompanionMode[Any, Any], state: Any, offered: dict[str, tuple[Offer, ...]]
    ) -> Decision | None:
        who = [p for p, cs in offered.items() if cs]
        player = self.rng.choice(who)
        choices = [c for c in offered[player] if c.do not in ("deck_out", "end_turn")]
        if not choices:
            return None
        choice = self.rng.choice(choices)
        prefer: dict[str, Value] = {}
        if choice.do == "counter_order":  # a [Counter: Play] window has no target: refused
            prefer = {"kind": "play"}
        return self._complete(mode, state, player, choice, prefer)

    def _any(
        self, mode: CompanionMode[Any, Any], state: Any, offered: dict[str, tuple[Offer, ...]]
    ) -> Decision:
        turn = mode.whose_turn(state)
        player = turn if turn and offered.get(turn) else next(p for p, c in offered.items() if c)
        choices = offered[player]
        ending = [c for c in choices if c.do == "end_turn"]
        choice = ending[0] if ending else self.rng.choice(choices)
        return self._complete(mode, state, player, choice, {})

    def _planned(
        self, mode: CompanionMode[Any, Any], state: Any, offered: dict[str, tuple[Offer, ...]]
    ) -> Decision | None:
        if not self._plan:
            self._plan = self._make_plan(mode, state, offered)
        while self._plan:
            player, do, prefer = self._plan.pop(0)
            choice = self._find(offered, player, do)
            if choice is not None:
                return self._complete(mode, state, player, choice, prefer)
        return None

    def _once(self, *key: Any) -> bool:
        """True the first time ``key`` is seen."""
        if key in self._marks:
            return False
        self._marks.add(key)
        return True

    def _make_plan(
        self, mode: CompanionMode[Any, Any], state: Any, offered: dict[str, tuple[Offer, ...]]
    ) -> list[tuple[str, str, dict[str, Value]]]:
        game = mode.to_json(state)
        if mode.name == "dbs-tournament":
            return self._plan_dbs(game)
        if mode.name == "dbz-tcg":
            return self._plan_dbz(game, offered)
        if mode.name == "challengers":
            return self._plan_challengers(game, offered)
        return []

    # ----------------------------------------------------------------- modes
    def _plan_dbs(self, game: dict[str, Any]) -> list[tuple[str, str, dict[str, Value]]]:
        r = self.rng
        if game["step"] == "roll":
            rolling = game["rolling"]
            values: dict[str, Value] = {f"values.{p}": r.randint(1, 6) for p in rolling}
            return [(rolling[0], "roll", values)]
        if game["step"] == "choose_first":
            names = [p["name"] for p in game["players"]]
            return [(game["chooser"], "choose_first", {"player": r.choice(names)})]
        turn = game["turn"]
        if turn is None:
            return []
        me = next(p for p in game["players"] if p["name"] == turn)
        plan: list[tuple[str, str, dict[str, Value]]] = []
        if me["champion_in_zone"] and r.random() < 0.3:
            plan.append((turn, "champion_play", {"base_cost": r.randint(0, 5)}))
        elif not me["champion_in_zone"] and r.random() < 0.2:
            plan.append((turn, "champion_return", {}))
        targets = [
            p["name"]
            for p in game["players"]
            if p["name"] != turn and not p["eliminated"] and p["first_turn_taken"]
        ]
        if targets:
            target = r.choice(targets)
            if r.random() < 0.3:
                plan.append((turn, "counter_order", {"kind": "attack", "target": target}))
            plan.append((turn, "attack", {"target": target}))
            plan.append((target, "damage", {"player": target, "amount": r.randint(3, 9)}))
        plan.append((turn, "end_turn", {}))
        return plan

    def _plan_dbz(
        self, game: dict[str, Any], offered: dict[str, tuple[Offer, ...]]
    ) -> list[tuple[str, str, dict[str, Value]]]:
        r = self.rng
        for name, choices in offered.items():
            for critical in (c for c in choices if c.do == "critical"):
                # capture (offered while the foe has a Dragon Ball in play) names a ball at
                # random: refused unless the foe has that one
                pick = r.choice(dict(critical.options)["choice"])
                return [(name, "critical", {"choice": pick, "number": r.randint(1, 7)})]
        turn = game["turn"]
        foe = next(p["name"] for p in game["players"] if p["name"] != turn)
        step, n = game["step"], game["turn_number"]
        if step == "draw":
            return [(turn, "draw", {})]
        if step == "planning":
            if self._once(n, "ball") and r.random() < 0.4:
                choice = self._find(offered, turn, "dragon_ball")
                balls = dict(choice.options).get("number", ()) if choice else ()
                if balls:
                    return [(turn, "dragon_ball", {"number": r.choice(balls)})]
            if self._once(n, "anger") and r.random() < 0.3:
                return [(turn, "anger", {"delta": r.randint(1, 2)})]
            return [(turn, "pur", {"amount": r.randint(1, 4)})]
        if step == "combat_choice":
            roll = r.random()
            if roll < 0.75:
                return [(turn, "declare_combat", {})]
            if roll < 0.9:
                return [(turn, "rejuvenate", {})]
            return [(turn, "end_turn", {})]
        if step == "combat" and self._once(n, "combat"):
            power: dict[str, Value] = {
                "attacker_power_level": r.choice((7000, 20000, 90000, 600000)),
                "defender_power_level": r.choice((1000, 7000, 20000)),
            }
            plan: list[tuple[str, str, dict[str, Value]]] = [
                (foe, "draw", {"cards": 3}),
                (foe, "physical_attack", power),
                (foe, "life_damage", {"amount": r.randint(3, 8)}),
            ]
            if r.random() < 0.5:
                plan.append((turn, "life_damage", {"amount": r.randint(1, 4)}))
            return plan
        return [(turn, "end_turn", {})]

    def _plan_challengers(
        self, game: dict[str, Any], offered: dict[str, tuple[Offer, ...]]
    ) -> list[tuple[str, str, dict[str, Value]]]:
        r = self.rng
        if "finalists" in game:
            a, b = game["finalists"]
            return [(r.choice((a, b)), "final", {"winner": r.choice((a, b))})]
        free = [p for p, cs in offered.items() if any(c.do == "match" for c in cs)]
        if len(free) < 2:
            return []
        a, b = free[0], free[1]
        plan: list[tuple[str, str, dict[str, Value]]] = []
        if r.random() < 0.5:
            plan.append((a, "first_player", {"players": b}))
        if r.random() < 0.3:
            who = r.choice((a, b))
            plan.append((who, "fans", {"amount": r.randint(1, 3)}))
        winner, loser = (a, b) if r.random() < 0.5 else (b, a)
        plan.append((winner, "match", {"loser": loser}))
        return plan
