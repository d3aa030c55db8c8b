"""A companion table publishes like a dice table (issue 15): events 1..N and the final state.

The companion demo (bots pressing the table's buttons) publishes to a real Mosquitto;
a subscriber sees every journal row (actions, refused actions, undo markers) in order,
then the retained state with the winner, which the scoreboard accepts and ranks.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from controller.companion.registry import MODES, get_mode
from controller.demo.companion import run_companion_demo
from controller.publish.companion import companion_state_message, player_numbers
from controller.publish.messages import SCHEMA, encode
from controller.publish.settings import Connection, EventsSettings, parse_broker_url
from controller.scoreboard.checks import clean_state
from controller.scoreboard.model import Scoreboard
from controller.scoreboard.subscriber import Subscriber
from controller.table.companion import CompanionTable
from tests.publish.broker import Mosquitto
from tests.waiting import wait_for

pytestmark = [
    pytest.mark.timeout(180),
    pytest.mark.filterwarnings("ignore:Image.Image.getdata is deprecated:DeprecationWarning"),
]

PLAYERS = {"dbs-tournament": 3, "dbz-tcg": 2, "challengers": 4}


def _rows(journal: Path) -> list[tuple[int, str]]:
    with sqlite3.connect(journal) as conn:
        return [(int(s), str(k)) for s, k in conn.execute("SELECT seq, kind FROM events")]


@pytest.mark.parametrize("mode", sorted(MODES))
def test_a_new_game_state_message_per_mode(mode: str) -> None:
    m = get_mode(mode)
    state = m.new_game(["Ann", "Bob"])
    msg = companion_state_message(m, state, "t1", seq=0, game_id="g1", sent_at=2.5)
    assert msg["schema"] == SCHEMA and msg["kind"] == "companion" and msg["mode"] == mode
    assert (msg["game_id"], msg["seq"], msg["step"]) == ("g1", 0, m.step(state))
    assert [p["player"] for p in msg["players"]] == ["Ann", "Bob"]
    assert all(isinstance(p["value"], int) for p in msg["players"])
    assert msg["over"] is False and msg["winners"] == []
    turn = m.whose_turn(state)
    assert msg["turn"] == (None if turn is None else {"seat": 0 if turn == "Ann" else 1,
                                                      "player": turn})  # fmt: skip
    assert clean_state("t1", encode(msg)) == msg  # the scoreboard takes it as it is


def test_numbers_are_the_whole_numbers_and_list_lengths() -> None:
    player = {"name": "Ann", "life": 5, "eliminated": False, "dragon_balls": [1, 2], "x": None}
    assert player_numbers(player) == {"life": 5, "dragon_balls": 2}


def test_the_companion_demo_publishes_every_row_and_the_winner(
    broker: Mosquitto, tmp_path: Path
) -> None:
    conn = Connection(parse_broker_url(broker.url))
    board = Scoreboard()
    board.keep_delivered = True
    sub = Subscriber(conn, board, "companion-watcher").start()
    try:
        assert sub.wait_connected(5), "the subscriber did not connect"
        runs: dict[str, Any] = {}
        for i, mode in enumerate(sorted(PLAYERS)):
            table_id = f"cmp-{i + 1}"
            s = run_companion_demo(
                mode, seed=5, players=PLAYERS[mode], out=tmp_path / mode, fast=True,
                events=EventsSettings(conn, table_id),
            )  # fmt: skip
            assert s.finished and s.winner in s.players
            runs[table_id] = (mode, s, _rows(Path(s.journal)))
        refused = undone = 0
        for table_id, (mode, s, rows) in runs.items():
            assert [seq for seq, _ in rows] == list(range(1, len(rows) + 1))
            refused += sum(1 for _, k in rows if k == "refused")
            undone += sum(1 for _, k in rows if k == "undo")

            def delivered(t: str = table_id) -> list[int]:
                return [seq for tid, _, seq in board.delivered if tid == t]

            def over(t: str = table_id) -> bool:
                return (board.table(t) or {}).get("over") is True

            def complete(t: str = table_id, n: int = len(rows)) -> bool:
                return delivered(t) == list(range(1, n + 1))

            assert wait_for(complete, 10), delivered()[-5:]
            assert wait_for(over, 10)
            shown = board.table(table_id) or {}
            assert shown["kind"] == "companion" and shown["mode"] == mode
            assert shown["winners"] == [s.winner] and shown["seq"] == len(rows)
            assert shown["events"]["missing"] == [] and shown["events"]["last_seq"] == len(rows)
            assert [p["player"] for p in shown["players"]] == s.players
            assert shown["online"] is False  # the demo said goodbye
        assert refused and undone, "the bots' refused actions and undos are published too"
        winners = {s.winner for _, s, _ in runs.values()}
        rankings = board.standings()
        assert len(rankings) == len(runs)  # each companion mode ranked apart
        won = {r["player"]: r["won"] for g in rankings for r in g["rows"] if r["won"]}
        assert set(won) == winners
    finally:
        sub.close()

    # A scoreboard that comes later finds each table's last state, retained.
    late = Scoreboard()
    sub = Subscriber(conn, late, "companion-late").start()
    try:
        assert wait_for(lambda: len(late.tables()) == len(runs), 10)
        for table_id, run in runs.items():
            assert (late.table(table_id) or {}).get("winners") == [run[1].winner]
    finally:
        sub.close()


def test_toptable_demo_mode_publishes_with_mqtt(broker: Mosquitto, tmp_path: Path) -> None:
    board = Scoreboard()
    board.keep_delivered = True
    sub = Subscriber(Connection(parse_broker_url(broker.url)), board, "cli-watcher").start()
    try:
        assert sub.wait_connected(5)
        journal = tmp_path / "c.sqlite"
        cmd = [
            sys.executable, "-m", "controller.cli", "demo", "--mode", "challengers", "--fast",
            "--json", "--seed", "2", "--names", "Ann Lee=ann,Bob,Cy=cy", "--out",
            str(tmp_path / "out"), "--journal", str(journal), "--mqtt", broker.url,
            "--table-id", "cards-1",
        ]  # fmt: skip
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
        assert done.returncode == 0, done.stderr[-2000:]
        summary = json.loads(done.stdout)
        rows = _rows(journal)
        assert wait_for(
            lambda: [q for t, _, q in board.delivered if t == "cards-1"] == [q for q, _ in rows], 10
        )
        assert wait_for(lambda: (board.table("cards-1") or {}).get("over") is True, 10)
        assert (board.table("cards-1") or {})["winners"] == [summary["winner"]]
        people = [(p["player"], p["player_id"]) for p in (board.table("cards-1") or {})["players"]]
        assert people == [("Ann Lee", "ann"), ("Bob", "cards-1/Bob"), ("Cy", "cy")]  # --names
    finally:
        sub.close()


def test_a_resumed_companion_table_goes_on_from_its_rows(tmp_path: Path) -> None:
    """The journal's row count is the publisher's sequence number, across a resume."""
    path = tmp_path / "c.sqlite"
    with CompanionTable.new("challengers", ["Ann", "Bob"], path) as table:
        seen: list[int] = []
        table.listeners.append(lambda t: seen.append(len(t.journal)))
        table.submit("Ann", {"do": "match", "round": 1, "winner": "Ann", "loser": "Bob"})
        table.submit("Ann", {"do": "final", "winner": "Ann"})  # refused: not the final yet
        assert table.undo()
        assert seen == [1, 2, 3]
    with CompanionTable.resume(path) as again:
        assert len(again.journal) == 3
