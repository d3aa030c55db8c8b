"""A companion game is played by the rules revision it began with, recorded in its journal.

dbz-tcg revision 2 draws the defender's three on declaring combat and ends the Planning
Step with the PUR; challengers revision 2 wants the Trophies' fans to rise. A journal
begun before (no revision recorded: revision 1) replays and plays on by the old rules.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from controller.companion.dbz_tcg.model import RULES_REVISION as DBZ_NEWEST
from controller.companion.entry import build_action, entry_fields
from controller.companion.journal import ActionTaken, CompanionJournal
from controller.companion.registry import get_mode
from controller.companion.replay import replay
from controller.config import parse_config
from controller.core.errors import DataError
from controller.core.kinds import GameKind
from controller.daemon.held_problem import held_game_problem
from controller.demo.companion import seen_before_each_row
from controller.storage.journal import JournalCorruptError, JournalVersionError
from controller.table.companion import CompanionTable

PLAYERS = ["Goku", "Vegeta"]
# revision 1's way through a turn: combat without a PUR, the defender's draw entered by hand
REVISION_1_TURN = [
    {"do": "draw", "player": "Goku", "cards": 3},
    {"do": "declare_combat", "player": "Goku"},
    {"do": "draw", "player": "Vegeta", "cards": 3},
    {"do": "life_damage", "player": "Vegeta", "amount": 2},
]


def _set_revision(path: Path, revision: Any) -> None:
    """Rewrite the journal's set-up as an older (or a damaged) one: ``revision`` None
    removes the key, as a journal begun before revisions were recorded has it."""
    conn = sqlite3.connect(path)
    (raw,) = conn.execute("SELECT value FROM meta WHERE key = 'setup'").fetchone()
    setup = json.loads(raw)
    if revision is None:
        del setup["rules_revision"]
    else:
        setup["rules_revision"] = revision
    conn.execute("UPDATE meta SET value = ? WHERE key = 'setup'", (json.dumps(setup),))
    conn.commit()
    conn.close()


def _journal(tmp_path: Path, revision: Any) -> Path:
    mode = get_mode(GameKind.DBZ_TCG)
    path = tmp_path / "dbz.sqlite"
    with CompanionJournal.start(path, GameKind.DBZ_TCG, PLAYERS) as journal:
        assert journal.rules_revision == mode.rules_revision == DBZ_NEWEST
        for raw in REVISION_1_TURN:
            journal.append(ActionTaken(mode.parse_action(raw, PLAYERS)))
    _set_revision(path, revision)
    return path


def test_a_journal_without_a_revision_replays_and_plays_on_by_revision_1(tmp_path: Path) -> None:
    path = _journal(tmp_path, None)
    with CompanionTable.resume(path) as table:
        assert table.journal.rules_revision == 1
        assert table.state.rules_revision == 1
        numbers = {p["name"]: p["life"] for p in table.mode.to_json(table.state)["players"]}
        assert numbers == {"Goku": 57, "Vegeta": 55}  # the hand-entered draw, taken once
        table.submit(None, {"do": "end_turn"})
        table.submit(None, {"do": "draw", "player": "Vegeta", "cards": 3})
        table.submit(None, {"do": "declare_combat", "player": "Vegeta"})  # no PUR: revision 1
        assert table.refusal is None
        assert table.mode.to_json(table.state)["step"] == "combat"


def test_the_same_actions_are_refused_by_revision_2(tmp_path: Path) -> None:
    path = _journal(tmp_path, 2)
    with pytest.raises(JournalCorruptError, match=r"action 2 \(declare_combat\) is refused now"):
        CompanionTable.resume(path)


@pytest.mark.parametrize(
    ("revision", "message"),
    [
        (0, r"field 'rules_revision': expected a whole number 1 or more, got 0"),
        ("2", r"field 'rules_revision': expected a whole number 1 or more, got '2'"),
        (True, r"field 'rules_revision': expected a whole number 1 or more, got True"),
    ],
)
def test_a_damaged_revision_is_named(tmp_path: Path, revision: Any, message: str) -> None:
    path = _journal(tmp_path, revision)
    with pytest.raises(JournalCorruptError, match=message) as info:
        CompanionTable.resume(path)
    assert str(path) in str(info.value) and "\n" not in str(info.value)


def test_a_newer_revision_is_a_newer_toptables_journal(tmp_path: Path) -> None:
    path = _journal(tmp_path, DBZ_NEWEST + 1)
    newer = rf"rules revision {DBZ_NEWEST + 1} of dbz-tcg, and this toptable knows revisions 1\.\.{DBZ_NEWEST}"
    with pytest.raises(JournalVersionError, match=newer):
        CompanionTable.resume(path)
    # config check says it before the service is started
    table = {"journal": str(tmp_path / "j.sqlite"), "mode": "dbz-tcg", "players": 2}
    config = parse_config({"table": table})
    path.rename(config.table.game_journal)
    problem = held_game_problem(config)
    assert problem is not None and "the daemon would refuse: the game is played by" in problem


def test_a_new_game_is_played_by_the_newest_revision(tmp_path: Path) -> None:
    with CompanionTable.new("dbz-tcg", PLAYERS, tmp_path / "new.sqlite") as table:
        assert table.journal.rules_revision == DBZ_NEWEST
        table.submit(None, {"do": "draw", "player": "Goku", "cards": 3})
        table.submit(None, {"do": "pur", "player": "Goku", "amount": 0})
        table.submit(None, {"do": "declare_combat", "player": "Goku"})
        life = {p["name"]: p["life"] for p in table.mode.to_json(table.state)["players"]}
        assert life == {"Goku": 57, "Vegeta": 57}  # the defender drew three


def test_a_script_names_its_revision_and_a_bad_one_is_bad_input() -> None:
    out = replay("dbz-tcg", {"players": PLAYERS, "rules_revision": 1, "actions": REVISION_1_TURN})
    assert out["refused"] == []
    again = replay("dbz-tcg", {"players": PLAYERS, "actions": REVISION_1_TURN})
    assert [r["do"] for r in again["refused"]] == ["declare_combat"]
    for bad in (0, DBZ_NEWEST + 1, "1", 1.0):
        with pytest.raises(
            DataError, match=rf"field 'rules_revision': expected a whole number 1\.\.{DBZ_NEWEST}"
        ):
            replay("dbz-tcg", {"players": PLAYERS, "rules_revision": bad, "actions": []})


def test_challengers_fans_must_rise_from_revision_2() -> None:
    flat = {"players": ["Ann", "Ben"], "data": {"trophy_fans": [3, 3, 4, 5, 6, 7, 8]}}
    with pytest.raises(
        DataError, match=r"field 'trophy_fans\[1\]': expected more than round 1's 3"
    ):
        replay("challengers", {**flat, "actions": []})
    assert replay("challengers", {**flat, "rules_revision": 1, "actions": []})["refused"] == []
    with pytest.raises(DataError, match=r"field 'rules_revision': expected a whole number 1\.\.2"):
        replay("dbs-tournament", {"players": ["Ann", "Ben"], "rules_revision": 3, "actions": []})


def test_a_format_2_journal_is_stamped_revision_1_and_an_older_toptable_refuses_format_3(
    tmp_path: Path,
) -> None:
    path = _journal(tmp_path, None)
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA user_version = 2")  # as the toptable before revisions wrote it
    conn.close()
    with CompanionTable.resume(path) as table:
        assert table.journal.rules_revision == 1
    with sqlite3.connect(path) as conn:
        (raw,) = conn.execute("SELECT value FROM meta WHERE key = 'setup'").fetchone()
        assert json.loads(raw)["rules_revision"] == 1
        # the format an older toptable (format 2) refuses as a newer one's
        assert conn.execute("PRAGMA user_version").fetchone() == (3,)
    conn.close()


def test_the_buttons_offer_a_pur_of_0_which_revision_2_needs() -> None:
    mode = get_mode(GameKind.DBZ_TCG)
    state = mode.apply(
        mode.new_game(PLAYERS), mode.parse_action(REVISION_1_TURN[0], PLAYERS)
    )  # Goku drew: the Planning Step, which only a pur ends
    (pur,) = [o for o in mode.legal_actions(state, "Goku") if o.do == "pur"]
    (amount,) = entry_fields(mode, state, pur, "Goku")
    assert amount.values[0] == 0 and amount.values[-1] == 10
    ended = mode.apply(
        state, mode.parse_action(build_action(mode, pur, "Goku", {"amount": 0}), PLAYERS)
    )
    assert ended.step.value == "combat_choice"


def test_a_capture_is_offered_only_when_the_foe_has_a_dragon_ball() -> None:
    mode = get_mode(GameKind.DBZ_TCG)
    out = replay("dbz-tcg", {"players": PLAYERS, "actions": [
        {"do": "draw", "player": "Goku", "cards": 3},
        {"do": "pur", "player": "Goku", "amount": 0},
        {"do": "declare_combat", "player": "Goku"},
        {"do": "life_damage", "player": "Vegeta", "amount": 5},
    ]})  # fmt: skip
    assert out["players"][0]["critical_available"] and out["refused"] == []
    state = mode.new_game(PLAYERS)
    for raw in ({"do": "draw", "player": "Goku", "cards": 3}, {"do": "pur", "player": "Goku", "amount": 0},
                {"do": "declare_combat", "player": "Goku"}, {"do": "life_damage", "player": "Vegeta", "amount": 5}):  # fmt: skip
        state = mode.apply(state, mode.parse_action(raw, PLAYERS))
    critical = mode.legal_actions(state, "Goku")[0]
    assert critical.do == "critical"
    assert dict(critical.options)["choice"] == ("discard_ally", "lower_anger")


def test_the_demo_catches_up_an_old_journal_by_its_own_revision(tmp_path: Path) -> None:
    path = _journal(tmp_path, None)
    mode = get_mode(GameKind.DBZ_TCG)
    with CompanionJournal.open(path) as journal:
        seen = list(seen_before_each_row(mode, journal))
    assert len(seen) == len(REVISION_1_TURN)
    assert seen[-1][0].rules_revision == 1 and seen[-1][1] == len(REVISION_1_TURN) - 1


def test_actions_of_a_newer_revision_are_refused_by_the_older_one() -> None:
    """A game played by an older revision keeps its rules: dbz-tcg's ``level`` (revision 3)
    and dbs-tournament's Choice Skill order (revision 2) are refused, and not offered."""
    level = {"do": "level", "player": "Goku", "delta": 1}
    old = replay("dbz-tcg", {"players": PLAYERS, "rules_revision": 2, "actions": [level]})
    assert [r["do"] for r in old["refused"]] == ["level"]
    assert replay("dbz-tcg", {"players": PLAYERS, "actions": [level]})["refused"] == []
    mode = get_mode(GameKind.DBZ_TCG)
    offered = {o.do for o in mode.legal_actions(mode.new_game(PLAYERS, revision=2), "Vegeta")}
    assert "level" not in offered and "anger" in offered
    names = ["Ann", "Ben", "Cid"]
    start = [{"do": "roll", "values": {"Ann": 6, "Ben": 2, "Cid": 1}},
             {"do": "choose_first", "player": "Ann"},
             {"do": "counter_order", "kind": "choice", "by": "Ben"}]  # fmt: skip
    first = replay("dbs-tournament", {"players": names, "rules_revision": 1, "actions": start})
    assert [r["do"] for r in first["refused"]] == ["counter_order"]
    now = replay("dbs-tournament", {"players": names, "actions": start})
    assert now["refused"] == [] and now["counter_orders"] == [["Cid", "Ann"]]


def test_the_buttons_offer_an_attacks_window_only_for_an_attack_the_rules_allow() -> None:
    mode = get_mode(GameKind.DBS_TOURNAMENT)
    state = mode.new_game(["Ann", "Ben"])
    for raw in ({"do": "roll", "values": {"Ann": 6, "Ben": 2}},
                {"do": "choose_first", "player": "Ann"}):  # fmt: skip
        state = mode.apply(state, mode.parse_action(raw, ["Ann", "Ben"]))

    def window(player: str) -> dict[str, tuple[str | int, ...]]:
        (offer,) = [o for o in mode.legal_actions(state, player) if o.do == "counter_order"]
        return dict(offer.options)

    assert window("Ann")["kind"] == ("play", "choice")  # Ben has not taken his first turn
    for _ in range(2):
        state = mode.apply(state, mode.parse_action({"do": "end_turn"}, ["Ann", "Ben"]))
    assert window("Ann") == {"kind": ("play", "attack", "choice"), "by": ("Ann",),
                             "target": ("Ben",)}  # fmt: skip
    assert window("Ben")["kind"] == ("play", "choice")  # not his turn


def test_the_next_attacks_cost_closes_the_critical_choice() -> None:
    turn = [{"do": "draw", "player": "Goku", "cards": 3},
            {"do": "pur", "player": "Goku", "amount": 0},
            {"do": "declare_combat", "player": "Goku"},
            {"do": "life_damage", "player": "Vegeta", "amount": 6},
            {"do": "pay_stages", "player": "Goku", "amount": 1},  # an Energy Attack begins
            {"do": "critical", "player": "Goku", "choice": "lower_anger"}]  # fmt: skip
    out = replay("dbz-tcg", {"players": PLAYERS, "actions": turn})
    assert [r["index"] for r in out["refused"]] == [5]


def test_a_revision_2_challengers_game_offers_no_fans_after_round_7() -> None:
    """Revision 2 counted the fans at round 7's last result: the buttons offer none after it."""
    mode = get_mode(GameKind.CHALLENGERS)
    names = ["Ann", "Ben", "Cid"]
    for revision, late in ((2, False), (3, True)):
        state = mode.new_game(names, revision=revision)
        for rnd in range(1, 8):
            raw = {"do": "match", "round": rnd, "winner": "Ann", "loser": "Ben"}
            state = mode.apply(state, mode.parse_action(raw, names))
        assert mode.step(state) == "final"
        assert ("fans" in {o.do for o in mode.legal_actions(state, "Cid")}) is late
        assert ("fans" in {o.do for o in mode.legal_actions(state, "Ann")}) is late
    matches = [{"do": "match", "round": r, "winner": "Ann", "loser": "Ben"} for r in range(1, 8)]
    late_fans = {"do": "fans", "player": "Cid", "amount": 1}
    script = {"players": names, "rules_revision": 2, "actions": [*matches, late_fans]}
    assert [r["do"] for r in replay("challengers", script)["refused"]] == ["fans"]
