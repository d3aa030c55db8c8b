"""Whole simulated games: every length, 2-6 players, both bots, variants; determinism; the CLI."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from controller.game import engine
from controller.game.bots import GreedyBot, RandomBot, table_input
from controller.game.legal import legal_actions
from controller.game.simulate import play_game, simulate
from controller.game.state import GameConfig, GameState, Length, Phase
from controller.gamedata.cards import Deck
from controller.rules.variants import Variants
from tests.game.helpers import demo_data


def _invariants(s: GameState) -> None:
    on_board = {p.name: p.space for p in s.pieces.values() if p.space is not None}
    c = s.combat
    sharing = c.attacker if c is not None and not c.adjacent and not c.green else None
    assert {s.pieces[n].space for n in s.occ.values()} == set(s.occ), "the index lies"
    assert set(s.occ) == {sp for n, sp in on_board.items() if n != sharing}, (
        "occupancy and pieces disagree"
    )
    for space in {sp for sp, k in Counter(on_board.values()).items() if k > 1}:
        seats = {s.pieces[n].seat for n, sp in on_board.items() if sp == space and n != sharing}
        assert len(seats) == 1, f"foes share space {space}"  # teammates may share one
    for p in s.pieces.values():
        if p.space is not None:
            assert not p.eliminated and not p.fused_into
    if all(d.value in s.shuffled for d in Deck):  # every card is in a hand or in its deck
        held = Counter(card for h in s.hands for card in h)
        held.update(card for cards in s.decks.values() for card in cards)
        printed = Counter(card for cards in s.data.cards.decks.values() for card in cards)
        assert held == printed, "a card was lost or copied"


@pytest.mark.timeout(60)
@pytest.mark.parametrize("players", [2, 3, 5, 6])
@pytest.mark.parametrize("length", list(Length))
def test_games_end_for_every_size_and_length(players: int, length: Length) -> None:
    config = GameConfig(tuple(f"P{i}" for i in range(players)), length)
    out = play_game(config, demo_data(), seed=players * 10 + len(length.value))
    assert out.state.over and out.winners
    assert all(0 <= w < players for w in out.winners)


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    "variants",
    [
        ("fusion_pairs_drafted_together",),
        ("fusion_for_one_attack", "fusion_pairs_drafted_together"),
        ("green_reward_one", "eliminate_only_when_exceeded", "surprise_any_card"),
        ("four_warriors_in_short_game", "star_counts_for_double"),
    ],
)
def test_variant_games_with_checked_invariants(variants: tuple[str, ...]) -> None:
    config = GameConfig(("A", "B", "C"), Length.ROUNDS5, Variants.from_names(variants))
    for seed in range(3):
        rng = random.Random(seed)
        state = engine.new_game(config, demo_data())
        bots: list[GreedyBot | RandomBot] = [GreedyBot(), RandomBot(), GreedyBot()]
        while not state.over:
            event = table_input(state, rng)
            if event is None:
                seat = engine.actor(state)
                assert seat is not None
                if rng.random() < 0.05:  # every listed action is legal
                    for action in list(legal_actions(state))[:20]:
                        assert action in legal_actions(state)
                event = bots[seat].act(state, rng)
            state = engine.apply(state, event)
            _invariants(state)
        assert state.phase is Phase.OVER


def test_simulation_is_deterministic_for_a_seed() -> None:
    a = simulate(4, Length.ROUNDS10, 5, 42, demo_data()).to_json()
    b = simulate(4, Length.ROUNDS10, 5, 42, demo_data()).to_json()
    c = simulate(4, Length.ROUNDS10, 5, 43, demo_data()).to_json()
    for r in (a, b, c):
        r.pop("seconds")
        r.pop("games_per_second")
    assert a == b
    assert a != c


def test_random_bot_games() -> None:
    report = simulate(3, Length.ROUNDS5, 5, 1, demo_data(), bot="random")
    assert report.games == 5 and sum(report.winners.values()) == 5


def test_cli_simulate(capsys: pytest.CaptureFixture[str]) -> None:
    from controller.cli.main import main

    args = ["simulate", "--players", "3", "--length", "rounds5", "--games", "4", "--seed", "7"]
    assert main([*args, "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert main([*args, "--json"]) == 0
    second = json.loads(capsys.readouterr().out)
    assert first["winners"] == second["winners"] and first["games"] == 4
    assert set(first) >= {"games_per_second", "winners", "average_warriors_left", "average_combats"}
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "games per second" in text and "average combats per game" in text
    assert main(["simulate", "--players", "9"]) == 2
    assert main(["simulate", "--variant", "no_such_rule", "--games", "1"]) == 2
    assert "unknown rule variant" in capsys.readouterr().err
