"""Helpers for the game tests: load the demo data once, run scenario files."""

from __future__ import annotations

import functools
import tomllib
from dataclasses import astuple, replace
from pathlib import Path
from typing import Any, NamedTuple

from controller.core.errors import IllegalActionError, InvalidThrowError
from controller.core.kinds import GameKind
from controller.core.tomlfile import read_toml
from controller.game import engine
from controller.game.events import DuelPick, GameEvent, Move, event_from_dict
from controller.game.legal import legal_actions
from controller.game.simulate import play_game
from controller.game.state import RULES_REVISION, GameConfig, GameState, Length
from controller.gamedata import DEMO_DIR
from controller.gamedata.board import load_board
from controller.gamedata.bundle import GameData, load_game_data
from controller.gamedata.cards import parse_cards
from controller.rules.variants import Variants
from tests.paths import SCENARIOS

SCENARIOS = SCENARIOS / "game"


@functools.cache
def demo_data() -> GameData:
    """The bundled demo data (board, warriors, cards), loaded once."""
    return load_game_data()


class TiedGame(NamedTuple):
    """A bot game that a tie of three or more takes past its last round."""

    config: GameConfig
    seed: int
    states: tuple[GameState, ...]  # every state, from the new game's


@functools.cache
def tied_game(length: Length = Length.ROUNDS5, extra_rounds: int = 1) -> TiedGame:
    """The first bot game of ``length`` (seeds 0..79, 4 to 6 players, played by
    :func:`~controller.game.simulate.play_game`) where a tie of three or more plays
    ``extra_rounds`` extra rounds or more."""
    data = demo_data()
    for seed in range(80):
        for players in (4, 5, 6):
            names = tuple(f"P{i + 1}" for i in range(players))
            config = GameConfig(names, length, game_id=f"tie-{seed}-{players}")
            states = [engine.new_game(config, data)]

            def submit(event: GameEvent, states: list[GameState] = states) -> GameState:
                states.append(engine.apply(states[-1], event))
                return states[-1]

            play_game(config, data, seed, submit=submit)
            if max(s.extra_rounds for s in states) >= extra_rounds:
                return TiedGame(config, seed, tuple(states))
    raise AssertionError(f"no game of seeds 0..79 tied for {extra_rounds} extra rounds")


def data_with_board(board: Path | None) -> GameData:
    """The demo data, with another board when ``board`` is given."""
    demo = demo_data()
    if board is None:
        return demo
    return GameData(load_board(board), demo.roster, demo.cards)


def with_cards(data: GameData, extra: Path) -> GameData:
    """``data`` with the demo's cards and ``extra``'s ``[[card]]`` tables, checked as one
    cards file."""
    demo = DEMO_DIR / "cards.toml"
    merged = read_toml(demo)
    merged["card"] = [*merged["card"], *read_toml(extra)["card"]]
    return replace(data, cards=parse_cards(merged, f"{demo} + {extra}"))


def tie_s_duel(first: str, second: str, revision: int = RULES_REVISION) -> GameState:
    """A 10-round game's last move ties A (``first``, with Auta Magetta) and B (``second``,
    with Monna, 11 damage taken): their duel (B l.359), ``first`` to attack."""
    state = engine.arrange(
        GameConfig(("A", "B"), rules_revision=revision),
        demo_data(),
        pieces=[(first, 0, 0), (second, 1, 41), ("Auta Magetta", 0, 20), ("Monna", 1, 27)],
        damage={second: 11},
        decks={"event": []},
        round_no=10,
        seat=1,
    )
    for event in (Move(1, second, 40), DuelPick(0, first), DuelPick(1, second)):
        state = engine.apply(state, event)
    assert state.combat is not None and state.combat.duel
    return state


def scenario_files() -> list[Path]:
    """Every scenario file, sorted."""
    return sorted(SCENARIOS.glob("*.toml"))


def build(sc: dict[str, Any], base: Path) -> GameState:
    """The state a scenario starts from."""
    board = base.parent / sc["board"] if "board" in sc else None
    data = data_with_board(board)
    if "add_cards" in sc:  # cards the demo set lacks, for a rule only they exercise
        data = with_cards(data, base.parent / sc["add_cards"])
    config = GameConfig(
        tuple(sc.get("players", ["A", "B"])),
        Length(sc.get("length", "rounds10")),
        Variants.from_names(sc.get("variants", [])),
        kind=GameKind(sc.get("mode", "tournament")),
        rules_revision=sc.get("rules_revision", RULES_REVISION),  # a journal of an older one
    )
    if config.story:  # a Story game opens on square 1 (docs/rules.md §12)
        return engine.new_game(config, data)
    return engine.arrange(
        config,
        data,
        pieces=[tuple(p) for p in sc.get("pieces", [])],
        first=sc.get("first", 0),
        seat=sc.get("seat"),
        round_no=sc.get("round", 1),
        hands=sc.get("hands", []),
        decks=sc.get("decks"),
        green_deck=sc.get("green_deck", []),
        damage=sc.get("damage"),
        eliminated=[tuple(e) for e in sc.get("eliminated", [])],
    )


def _plain(v: Any) -> Any:
    """A value as the TOML files write it (TOML has no null: "" stands for None)."""
    if v is None:
        return ""
    return [_plain(x) for x in v] if isinstance(v, tuple) else v


def _matches(action: dict[str, Any], want: dict[str, Any]) -> bool:
    return all(action.get(k) == v for k, v in want.items())


def check(state: GameState, expect: dict[str, Any], where: str) -> None:
    """Assert every expectation of a step (raises AssertionError naming the step)."""
    for key, want in expect.items():
        got: Any
        if key in (
            "phase", "seat", "round", "first", "event_card", "time_up", "extra_rounds",
            "move_bonus", "damage_bonus",
        ):  # fmt: skip
            got = getattr(state, key)
            got = got.value if hasattr(got, "value") else got
        elif key == "damage":
            got = {n: state.pieces[n].damage for n in want}
        elif key == "space":
            # TOML has no null: the files write -1 for a warrior off the board
            got = {n: _or_minus_one(state.pieces[n].space) for n in want}
        elif key == "occupancy":
            # the space index: who it names on each space given ("" for an empty space)
            got = {sp: state.occ.get(int(sp), "") for sp in want}
        elif key == "eliminated":
            got = sorted(n for n in want if state.pieces[n].eliminated)
            want = sorted(want)
        elif key == "hand":
            got = {s: sorted(state.hands[int(s)]) for s in want}
            want = {s: sorted(v) for s, v in want.items()}
        elif key == "counts":
            got = list(state.counts())
        elif key == "winners":
            got = list(state.winners)
        elif key == "move_targets":
            got = {n: sorted(engine.move_targets(state, n)) for n in want}
            want = {n: sorted(v) for n, v in want.items()}
        elif key == "legal_has":
            actions = [a.to_dict() for a in legal_actions(state)]
            missing = [w for w in want if not any(_matches(a, w) for a in actions)]
            assert not missing, f"{where}: legal actions lack {missing}; they are {actions}"
            continue
        elif key == "legal_lacks":
            actions = [a.to_dict() for a in legal_actions(state)]
            present = [w for w in want if any(_matches(a, w) for a in actions)]
            assert not present, f"{where}: legal actions should not hold {present}"
            continue
        elif key == "combat":
            c = state.combat
            assert c is not None, f"{where}: no combat"
            got = {k: _plain(getattr(c, k)) for k in want}
        elif key == "no_combat":
            assert state.combat is None, f"{where}: a combat is still on"
            continue
        elif key == "pending_draws":
            got = list(state.pending_draws)
        elif key == "deck_top":
            got = {d: state.decks[d][0] if state.decks[d] else None for d in want}
        elif key == "deck_bottom":
            got = {d: state.decks[d][-1] if state.decks[d] else None for d in want}
        elif key == "green_deck":
            got = list(state.green_deck)
        elif key == "played":
            got = {s: list(astuple(state.played[int(s)])) for s in want}
        elif key == "fused_into":
            got = {n: _plain(state.pieces[n].fused_into) for n in want}
        elif key == "dice":
            got = engine.awaiting(state).dice
        elif key == "story":  # a Story game's victory points and the squares' log
            assert state.story is not None, f"{where}: not a Story game"
            got = {k: _plain(getattr(state.story, k)) for k in want}
        elif key == "options":
            made = dict(engine.attack_options(state))
            got = {k: made.get(k, "absent") for k in want}
        else:
            raise AssertionError(f"{where}: unknown expectation {key!r}")
        assert got == want, f"{where}: {key}: expected {want!r}, got {got!r}"


def _or_minus_one(x: int | None) -> int:
    return -1 if x is None else x


def run_scenario(path: Path) -> GameState:
    """Run a scenario file's steps and check each expectation; return the final state."""
    sc = tomllib.loads(path.read_text(encoding="utf-8"))
    state = build(sc, path)
    check(state, sc.get("expect", {}), f"{path.name} (start)")
    for i, step in enumerate(sc.get("step", [])):
        where = f"{path.name} step {i + 1}"
        raw_events = step.get("events", [])
        if "event" in step:
            raw_events = [*raw_events, step["event"]]
        events = [event_from_dict(e) for e in raw_events]
        if "error" in step:
            *ok, bad = events
            for e in ok:
                state = engine.apply(state, e)
            before = state.summary()
            try:
                engine.apply(state, bad)
            except (IllegalActionError, InvalidThrowError) as exc:
                assert step["error"].casefold() in str(exc).casefold(), (
                    f"{where}: error {str(exc)!r} does not say {step['error']!r}"
                )
            else:
                raise AssertionError(f"{where}: {bad} should have been refused")
            assert state.summary() == before, f"{where}: a refused event changed the state"
        else:
            for e in events:
                state = engine.apply(state, e)
        check(state, step.get("expect", {}), where)
    return state
