"""Rules of the companion modes' texts that the table once played differently or not at all.

Each test names the rule text's file and line (``/work/shared/rules/<file>``).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from controller.companion import challengers, dbz_tcg
from controller.companion.base import RuleViolationError
from controller.companion.replay import replay


def _dbz(actions: list[dict[str, Any]]) -> dict[str, Any]:
    return replay("dbz-tcg", {"players": ["Goku", "Vegeta"], "actions": actions})


def _numbers(out: dict[str, Any], name: str) -> dict[str, Any]:
    return next(p for p in out["players"] if p["name"] == name)


OPENING: list[dict[str, Any]] = [
    {"do": "draw", "player": "Goku", "cards": 3},
    {"do": "pur", "player": "Goku", "amount": 1},
    {"do": "declare_combat", "player": "Goku"},
]


def test_dbz_energy_attack_costs_stages_and_cannot_be_paid_without_them() -> None:
    # 003 l.177: "To pay for an Energy Attack, lower your Main Personality the required
    # number of Power Stages. If you do not have enough stages to pay for an attack, you
    # are unable to play it."
    out = _dbz(
        [
            *OPENING,  # Goku at 5 + 1 = 6 stages
            {"do": "pay_stages", "player": "Goku", "amount": 4},
            {"do": "pay_stages", "player": "Goku", "amount": 3},  # 2 left: refused
            {"do": "pay_stages", "player": "Goku", "amount": 2},
        ]
    )
    goku = _numbers(out, "Goku")
    assert goku["stages"] == 0
    assert goku["life"] == 57  # a cost is no damage: no Life Cards
    assert [(r["index"], r["do"]) for r in out["refused"]] == [(4, "pay_stages")]
    assert "Energy Attack" in out["refused"][0]["rule"]


def test_dbz_a_discarded_dragon_ball_leaves_play_for_the_bottom_of_the_life_deck() -> None:
    # 003 l.65: "Whenever you discard or destroy a Dragon Ball, place it on the bottom of
    # your deck."; l.213: "Destroy - discards a card in play"; l.114: only a ball that
    # matches one on the table cannot be played.
    out = _dbz(
        [
            {"do": "draw", "player": "Goku", "cards": 3},
            {"do": "dragon_ball", "player": "Goku", "number": 3},
            {"do": "discard_dragon_ball", "player": "Goku", "number": 3},
            {"do": "discard_dragon_ball", "player": "Goku", "number": 3},  # not in play
            {"do": "dragon_ball", "player": "Goku", "number": 3},  # played again
        ]
    )
    goku = _numbers(out, "Goku")
    assert goku["dragon_balls"] == [3]
    assert goku["life"] == 58  # 60 - 3 drawn + the ball at the bottom
    assert [(r["index"], r["do"]) for r in out["refused"]] == [(3, "discard_dragon_ball")]


def test_dbz_a_destroyed_dragon_ball_no_longer_counts_towards_the_seven() -> None:
    # 003 l.146: "if you control a set of all seven Dragon Balls, you win the game."
    actions: list[dict[str, Any]] = [{"do": "draw", "player": "Goku", "cards": 3}]
    for n in range(1, 7):
        actions.append({"do": "dragon_ball", "player": "Goku", "number": n})
    actions += [
        {"do": "discard_dragon_ball", "player": "Goku", "number": 6},
        {"do": "dragon_ball", "player": "Goku", "number": 7},
    ]
    out = _dbz(actions)
    assert out["winner"] is None
    assert _numbers(out, "Goku")["dragon_balls"] == [1, 2, 3, 4, 5, 7]


def test_challengers_the_final_offers_who_begins_to_the_finalists() -> None:
    # 004 l.9: "Determine who begins as usual." (before the final)
    state = challengers.new_game(["Ann", "Ben", "Cid"])
    for rnd in range(1, 8):
        action = challengers.MODE.parse_action(
            {"do": "match", "round": rnd, "winner": "Ann", "loser": "Ben"}, ["Ann", "Ben", "Cid"]
        )
        state = challengers.apply(state, action)
    assert state.finalists == ("Ann", "Ben")
    offer = next(c for c in challengers.legal_actions(state, "Ann") if c.do == "first_player")
    assert dict(offer.options) == {"round": (8,), "players": ("Ben",)}
    # 004 l.2-4 (revision 3): round 7's fans are still taken, from anyone, until the final
    # begins; then a player out of the final is offered nothing
    assert [c.do for c in challengers.legal_actions(state, "Cid")] == ["fans"]
    state = challengers.apply(
        state, challengers.MODE.parse_action(
            {"do": "first_player", "round": 8, "players": ["Ann", "Ben"]}, ["Ann", "Ben", "Cid"]
        ),
    )  # fmt: skip
    assert not challengers.legal_actions(state, "Cid")
    assert "fans" not in [c.do for c in challengers.legal_actions(state, "Ann")]


def test_dbz_the_table_offers_paying_stages_and_discarding_a_ball_in_play() -> None:
    # 003 l.177 and l.65: the two actions are offered to whoever can take them.
    state = dbz_tcg.new_game(["Goku", "Vegeta"])
    state = dbz_tcg.apply(state, dbz_tcg.MODE.parse_action(OPENING[0], ["Goku", "Vegeta"]))
    ball = {"do": "dragon_ball", "player": "Goku", "number": 2}
    state = dbz_tcg.apply(state, dbz_tcg.MODE.parse_action(ball, ["Goku", "Vegeta"]))
    offered = {c.do: c for c in dbz_tcg.legal_actions(state, "Goku")}
    assert dict(offered["discard_dragon_ball"].options)["number"] == (2,)
    stages = state.fighter("Goku").stages  # a cost up to the stages held: more is refused
    assert dict(offered["pay_stages"].options)["amount"] == tuple(range(1, stages + 1))
    assert "discard_dragon_ball" not in {c.do for c in dbz_tcg.legal_actions(state, "Vegeta")}


def test_dbz_a_discarded_ball_never_overfills_the_60_card_life_deck() -> None:
    # 003 l.88: "your 60-card Life Deck"; a captured ball (l.193) discarded by its new
    # controller would make 61: refused (whose deck it goes to is not said, l.65).
    state = dbz_tcg.new_game(["Goku", "Vegeta"])
    ball = dataclasses.replace(state.fighter("Goku"), dragon_balls=(5,))
    state = dataclasses.replace(state, fighters=(ball, state.fighter("Vegeta")))
    action = dbz_tcg.MODE.parse_action(
        {"do": "discard_dragon_ball", "player": "Goku", "number": 5}, ["Goku", "Vegeta"]
    )
    with pytest.raises(RuleViolationError, match="Life Deck is full"):
        dbz_tcg.apply(state, action)


def test_dbz_capturing_the_seventh_dragon_ball_wins_at_once() -> None:
    """A capture that completes the set of seven is a Dragon Ball Victory, as playing one is."""
    # 003 l.146: "if you control a set of all seven Dragon Balls, you win the game."; l.193:
    # "Capture a Dragon Ball. Gain control of a Dragon Ball your opponent has in play".
    actions: list[dict[str, Any]] = [{"do": "draw", "player": "Goku", "cards": 3}]
    actions += [{"do": "dragon_ball", "player": "Goku", "number": n} for n in range(1, 7)]
    actions += [
        {"do": "pur", "player": "Goku", "amount": 0},
        {"do": "end_turn"},
        {"do": "draw", "player": "Vegeta", "cards": 3},
        {"do": "dragon_ball", "player": "Vegeta", "number": 7},
        {"do": "pur", "player": "Vegeta", "amount": 0},
        {"do": "end_turn"},
        *OPENING,
        {"do": "life_damage", "player": "Vegeta", "amount": 5},
        {"do": "critical", "player": "Goku", "choice": "capture", "number": 7},
    ]
    out = _dbz(actions)
    assert out["refused"] == []
    assert _numbers(out, "Goku")["dragon_balls"] == [1, 2, 3, 4, 5, 6, 7]
    assert (out["winner"], out["victory"], out["step"]) == ("Goku", "dragon_balls", "over")


def test_dbz_rejuvenating_is_not_offered_with_a_full_life_deck() -> None:
    """003 l.129: rejuvenating takes the discard pile's top card; with none, no offer."""
    state = dbz_tcg.new_game(["Goku", "Vegeta"])
    raws: list[dict[str, Any]] = [OPENING[0]]  # 57 cards left
    raws += [{"do": "dragon_ball", "player": "Goku", "number": n} for n in (1, 2, 3)]
    raws += [{"do": "discard_dragon_ball", "player": "Goku", "number": n} for n in (1, 2, 3)]
    raws.append({"do": "pur", "player": "Goku", "amount": 0})
    for raw in raws:
        state = dbz_tcg.apply(state, dbz_tcg.MODE.parse_action(raw, ["Goku", "Vegeta"]))
    assert (state.fighter("Goku").life, state.step) == (60, dbz_tcg.Step.COMBAT_CHOICE)
    offered = [c.do for c in dbz_tcg.legal_actions(state, "Goku")]
    assert "declare_combat" in offered and "end_turn" in offered
    assert "rejuvenate" not in offered
    rejuvenate = dbz_tcg.MODE.parse_action(
        {"do": "rejuvenate", "player": "Goku"}, ["Goku", "Vegeta"]
    )
    with pytest.raises(RuleViolationError, match="discard pile is empty"):
        dbz_tcg.apply(state, rejuvenate)
