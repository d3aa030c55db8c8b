"""Random scripts of well-formed actions: the replay never crashes and the numbers stay in range."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from controller.companion.replay import replay

NAMES = ["A", "B", "C", "D"]
name = st.sampled_from(NAMES)
two = st.sampled_from(NAMES[:2])


def act(do: str, **fields: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries({"do": st.just(do), **fields})


DBS = st.one_of(
    act("roll", values=st.dictionaries(name, st.integers(1, 6), min_size=1)),
    act("choose_first", player=name),
    act("end_turn"),
    act("end_turn"),
    act("attack", attacker=name, target=name),
    act("damage", player=name, amount=st.integers(-1, 9)),
    act("deck_out", player=name),
    act(
        "counter_order", kind=st.sampled_from(["play", "attack"]), by=name, target=name | st.none()
    ),
    act("champion_play", player=name, base_cost=st.integers(-1, 6)),
    act("champion_return", player=name),
)
DBZ = st.one_of(
    act("draw", player=two, cards=st.integers(-1, 4)),
    act("draw", player=two, cards=st.just(3)),
    act("pur", player=two, amount=st.integers(-1, 6)),
    act("anger", player=two, delta=st.integers(-3, 6)),
    act("stage_damage", player=two, amount=st.integers(-1, 12)),
    act("life_damage", player=two, amount=st.integers(-1, 8)),
    act(
        "physical_attack",
        player=two,
        attacker_power_level=st.integers(-1, 10**8),
        defender_power_level=st.integers(0, 10**8),
    ),
    act("dragon_ball", player=two, number=st.integers(0, 8)),
    act("declare_combat", player=two),
    act("rejuvenate", player=two),
    act(
        "critical",
        player=two,
        choice=st.sampled_from(["capture", "discard_ally", "lower_anger"]),
        number=st.integers(1, 7) | st.none(),
    ),
    act("end_turn"),
)
CHALLENGERS = st.one_of(
    act("match", round=st.integers(1, 8), winner=name, loser=name),
    act("fans", player=name, amount=st.integers(-1, 4)),
    act("first_player", round=st.integers(1, 8), players=st.lists(name, min_size=1, max_size=3)),
    act("final", winner=name),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(DBS, max_size=40))
def test_dbs_tournament(actions: list[dict[str, Any]]) -> None:
    start = [
        {"do": "roll", "values": {"A": 6, "B": 1, "C": 2, "D": 3}},
        {"do": "choose_first", "player": "C"},
    ]
    out = replay("dbs-tournament", {"players": NAMES, "actions": start + actions})
    assert all(0 <= p["life"] <= 16 for p in out["players"])
    assert [p["name"] for p in out["players"] if p["eliminated"]] == sorted(out["eliminated"])
    assert (out["winner"] is not None) == (out["step"] == "over") == (len(out["eliminated"]) == 3)
    if out["turn"] is not None:
        assert out["turn"] not in out["eliminated"]
    assert all(r["rule"] and r["reason"] for r in out["refused"])


@settings(max_examples=150, deadline=None)
@given(st.lists(DBZ, max_size=60))
def test_dbz_tcg(actions: list[dict[str, Any]]) -> None:
    out = replay("dbz-tcg", {"players": NAMES[:2], "actions": actions})
    balls: list[int] = []
    for p in out["players"]:
        assert 1 <= p["level"] <= 4
        assert 0 <= p["stages"] <= 10
        assert 0 <= p["anger"] <= 5
        assert 0 <= p["life"] <= 60
        balls += p["dragon_balls"]
    assert len(balls) == len(set(balls)) and all(1 <= b <= 7 for b in balls)
    assert (out["winner"] is None) == (out["victory"] is None)


@settings(max_examples=150, deadline=None)
@given(st.lists(CHALLENGERS, max_size=40))
def test_challengers(actions: list[dict[str, Any]]) -> None:
    out = replay("challengers", {"players": NAMES, "actions": actions})
    accepted = {i for i, a in enumerate(actions) if a["do"] == "match"} - {
        r["index"] for r in out["refused"]
    }
    assert sum(len(p["trophies"]) for p in out["players"]) == len(accepted)
    assert 1 <= out["round"] <= 7
    if out["winner"] is not None:
        assert out["winner"] in out["finalists"]
