"""The modes' pure functions and the shared interface, used directly (not through a script)."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

from controller.companion import challengers, dbs_tournament, dbz_tcg
from controller.companion.base import (
    CompanionMode,
    RuleViolationError,
    action_to_json,
    parse_action,
)
from controller.companion.registry import MODES, get_mode
from controller.core.errors import IllegalActionError, TopTableError, UnknownNameError
from controller.core.kinds import GameKind


def test_every_companion_kind_has_its_mode() -> None:
    assert sorted(MODES) == sorted(GameKind.companions())
    assert sorted(MODES) == ["challengers", "dbs-tournament", "dbz-tcg"]
    for kind, mode in MODES.items():
        assert mode.kind is kind and mode.name == kind.value
        assert get_mode(kind) is mode and get_mode(kind.value) is mode
    with pytest.raises(UnknownNameError, match="known: challengers, dbs-tournament, dbz-tcg"):
        get_mode("story")  # a dice game's kind is no companion mode


@pytest.mark.parametrize("kind", GameKind.companions())
def test_a_mode_says_its_title_main_number_and_seat_summary(kind: GameKind) -> None:
    mode = MODES[kind]
    assert mode.title and mode.title == mode.title.upper()
    state = mode.new_game(["Ann", "Ben"] if kind is not GameKind.DBS_TOURNAMENT else ["A", "B"])
    for player in mode.to_json(state)["players"]:
        summary = mode.seat_summary(player)
        assert summary.main in summary.numbers.split()
        assert summary.main.endswith(str(player[mode.main_number]))  # "L16" shows life 16


def test_the_modes_implement_the_interface() -> None:
    typed: list[CompanionMode[Any, Any]] = [dbs_tournament.MODE, dbz_tcg.MODE, challengers.MODE]
    for mode in typed:
        state = mode.new_game(["Ann", "Ben"])
        assert isinstance(mode.step(state), str)
        json.dumps(mode.to_json(state))
        for p in ("Ann", "Ben"):
            for choice in mode.legal_actions(state, p):
                assert choice.do in mode.actions
                json.dumps(choice.to_json())


def test_rule_violation_is_an_illegal_action_naming_its_rule() -> None:
    state = dbz_tcg.new_game(["Goku", "Vegeta"])
    action = parse_action({"do": "end_turn"}, dbz_tcg.ACTIONS, ["Goku", "Vegeta"])
    with pytest.raises(RuleViolationError) as info:
        dbz_tcg.apply(state, action)
    assert isinstance(info.value, IllegalActionError)
    assert isinstance(info.value, TopTableError)
    assert info.value.rule.startswith("Draw Step")
    assert info.value.rule in str(info.value)


@pytest.mark.parametrize(
    "raw",
    [
        {"do": "roll", "values": {"A": 3, "B": 4}},
        {"do": "counter_order", "kind": "attack", "by": "A", "target": "B"},
        {"do": "counter_order", "kind": "play", "by": "A", "target": None},
        {"do": "end_turn"},
    ],
)
def test_actions_go_to_json_and_back(raw: dict[str, Any]) -> None:
    action = parse_action(raw, dbs_tournament.ACTIONS, ["A", "B"])
    back = action_to_json(action)
    assert parse_action(back, dbs_tournament.ACTIONS, ["A", "B"]) == action


def test_apply_leaves_the_old_state_alone() -> None:
    state = dbz_tcg.new_game(["Goku", "Vegeta"])
    action = parse_action(
        {"do": "draw", "player": "Goku", "cards": 3}, dbz_tcg.ACTIONS, ["Goku", "Vegeta"]
    )
    after = dbz_tcg.apply(state, action)
    assert state.fighter("Goku").life == 60
    assert after.fighter("Goku").life == 57
    with pytest.raises(dataclasses.FrozenInstanceError):
        state.turn = "Vegeta"  # type: ignore[misc]


# --- dbs-tournament --------------------------------------------------------------------


def four_player_game() -> dbs_tournament.DbsState:
    names = ["P1", "P2", "P3", "P4"]
    state = dbs_tournament.new_game(names)
    for raw in (
        {"do": "roll", "values": {"P1": 6, "P2": 1, "P3": 1, "P4": 1}},
        {"do": "choose_first", "player": "P1"},
    ):
        state = dbs_tournament.apply(state, parse_action(raw, dbs_tournament.ACTIONS, names))
    return state


def test_counter_orders_follow_the_texts_examples() -> None:
    state = four_player_game()
    play, attack = dbs_tournament.CounterKind.PLAY, dbs_tournament.CounterKind.ATTACK
    assert dbs_tournament.counter_order(state, play, "P1") == ("P2", "P3", "P4")
    assert dbs_tournament.counter_order(state, attack, "P1", "P3") == ("P3", "P4", "P2")
    assert dbs_tournament.checkpoint_order(state) == ("P1", "P2", "P3", "P4")


def test_one_counter_per_window() -> None:
    order = ("P3", "P4", "P2")
    assert dbs_tournament.counter_response(order, {"P4", "P2"}) == "P4"
    assert dbs_tournament.counter_response(order, set()) is None


@pytest.mark.parametrize("mode", sorted(MODES))
def test_legal_actions_for_a_stranger(mode: str) -> None:
    m = get_mode(mode)
    with pytest.raises(UnknownNameError, match="Zamasu"):
        m.legal_actions(m.new_game(["Ann", "Ben"]), "Zamasu")


def test_dbs_legal_actions() -> None:
    state = dbs_tournament.new_game(["A", "B"])
    assert [c.do for c in dbs_tournament.legal_actions(state, "A")] == ["roll"]
    state = four_player_game()
    turn = {c.do for c in dbs_tournament.legal_actions(state, "P1")}
    assert {"end_turn", "champion_play", "damage"} <= turn
    assert "attack" not in turn  # nobody has taken a first turn yet
    assert "end_turn" not in {c.do for c in dbs_tournament.legal_actions(state, "P2")}


# --- dbz-tcg ---------------------------------------------------------------------------


def test_the_attack_table_gives_the_texts_example() -> None:
    table = dbz_tcg.load_data().attack_table
    assert table.brackets[table.bracket(90_000)] == "C"
    assert table.brackets[table.bracket(7_000)] == "B"
    assert table.physical_damage(90_000, 7_000) == 2


def test_rejuvenate_needs_a_card_in_the_discard_pile() -> None:
    state = dbz_tcg.new_game(["Goku", "Vegeta"])
    state = dataclasses.replace(state, step=dbz_tcg.Step.COMBAT_CHOICE, pur_gained=True)
    action = parse_action(
        {"do": "rejuvenate", "player": "Goku"}, dbz_tcg.ACTIONS, ["Goku", "Vegeta"]
    )
    with pytest.raises(RuleViolationError, match="discard pile is empty"):
        dbz_tcg.apply(state, action)


def test_dbz_legal_actions_follow_the_steps() -> None:
    state = dbz_tcg.new_game(["Goku", "Vegeta"])
    (draw,) = dbz_tcg.legal_actions(state, "Goku")
    assert draw.to_json() == {
        "do": "draw",
        "options": {"player": ["Goku"], "cards": [3]},
        "free": [],
    }
    assert "declare_combat" not in {c.do for c in dbz_tcg.legal_actions(state, "Vegeta")}
    state = dataclasses.replace(state, step=dbz_tcg.Step.PLANNING)
    offered = {c.do for c in dbz_tcg.legal_actions(state, "Goku")}
    assert {"pur", "dragon_ball"} <= offered  # the step ends with the PUR (revision 2)
    assert not {"declare_combat", "rejuvenate", "end_turn"} & offered
    state = dataclasses.replace(state, step=dbz_tcg.Step.COMBAT_CHOICE, pur_gained=True)
    state = dataclasses.replace(
        state, fighters=(dataclasses.replace(state.fighters[0], life=57), state.fighters[1])
    )
    offered = {c.do for c in dbz_tcg.legal_actions(state, "Goku")}
    assert {"declare_combat", "rejuvenate", "end_turn"} <= offered
    assert not {"pur", "dragon_ball"} & offered
    old = dbz_tcg.new_game(["Goku", "Vegeta"], revision=1)
    old = dataclasses.replace(old, step=dbz_tcg.Step.PLANNING)
    assert {"pur", "declare_combat", "end_turn"} <= {
        c.do for c in dbz_tcg.legal_actions(old, "Goku")
    }


# --- challengers -----------------------------------------------------------------------


def test_flag_attack_adds_power_until_the_flag_changes_hands() -> None:
    powers = [challengers.card_power(2, 1), challengers.card_power(1), challengers.card_power(4)]
    result = challengers.flag_attack(7, powers)
    assert result.totals == (3, 4, 8)
    assert result.takes_flag_at == 2
    assert challengers.flag_attack(7, [3, 4]).takes_flag_at == 1  # equal is enough
    assert challengers.flag_attack(9, [3, 4]).takes_flag_at is None  # falls short
    assert challengers.flag_attack(0, []).takes_flag_at is None


def test_flag_attack_refuses_cards_after_the_flag_is_taken() -> None:
    with pytest.raises(RuleViolationError, match="card 2 is revealed") as info:
        challengers.flag_attack(5, [5, 1, 1])
    assert "not reveal more cards than needed" in info.value.rule


def test_challengers_legal_actions() -> None:
    state = challengers.new_game(["Ann", "Ben", "Cid"])
    match = next(c for c in challengers.legal_actions(state, "Ann") if c.do == "match")
    assert dict(match.options) == {"round": (1,), "winner": ("Ann",), "loser": ("Ben", "Cid")}
    assert challengers.MODE.whose_turn(state) is None
    assert challengers.step(state) == "round 1"


def test_dbs_a_player_never_attacks_themselves() -> None:
    """Even once everyone has taken a first turn, the turn player's attack names another."""
    names = ["A", "B"]
    state = dbs_tournament.new_game(names)
    for raw in (
        {"do": "roll", "values": {"A": 6, "B": 1}},
        {"do": "choose_first", "player": "A"},
        {"do": "end_turn"},
        {"do": "end_turn"},
    ):
        state = dbs_tournament.apply(state, parse_action(raw, dbs_tournament.ACTIONS, names))
    assert state.turn == "A" and state.seat("A").first_turn_taken
    attack = parse_action(
        {"do": "attack", "attacker": "A", "target": "A"}, dbs_tournament.ACTIONS, names
    )
    with pytest.raises(RuleViolationError, match="does not attack themselves"):
        dbs_tournament.apply(state, attack)
    assert dbs_tournament.apply(
        state,
        parse_action(
            {"do": "attack", "attacker": "A", "target": "B"}, dbs_tournament.ACTIONS, names
        ),
    ).attacks == (("A", "B"),)


def test_dbs_an_eliminated_player_is_offered_nothing() -> None:
    """002 l.82: an eliminated player's effects end, so the table offers them no action."""
    state = four_player_game()
    out = parse_action({"do": "deck_out", "player": "P3"}, dbs_tournament.ACTIONS, state.names)
    state = dbs_tournament.apply(state, out)
    assert state.winner is None and state.eliminated == ("P3",)
    assert dbs_tournament.legal_actions(state, "P3") == ()
    assert dbs_tournament.legal_actions(state, "P2")  # the others still play
