"""What the scoreboard believes (issue 27): bounded numbers, sequence jumps flagged, one table's
garbage costing no other table anything, junk tables never shown, silent tables expiring."""

from __future__ import annotations

import json
import logging
import tracemalloc
from typing import Any

import pytest

from controller.game.state import GameState
from controller.publish.messages import event_message, online_message, state_message
from controller.publish.settings import Connection, parse_broker_url
from controller.scoreboard.checks import MessageError, clean_event, clean_state
from controller.scoreboard.model import STATE_AHEAD, Scoreboard
from controller.scoreboard.streams import RESYNC_RUN, WINDOW, EventLog
from controller.scoreboard.subscriber import Subscriber
from tests.scoreboard.helpers import Clock, state_bytes


def _event(table: str, seq: int, game: str = "g1", instance: str | None = None) -> bytes:
    return event_message(table, game, seq, "k", "{}", None, instance)


def _peak_bytes(work: Any) -> int:
    tracemalloc.start()
    try:
        work()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


# ---------------------------------------------------------------- bounded numbers
def test_a_far_seq_costs_neither_memory_nor_a_range() -> None:
    log = EventLog("g")
    log.receive(1, "k")

    def far() -> None:
        log.receive(3_000_000, "k")
        for _ in range(100):  # every /api/tables call asks for the figures
            log.to_json()

    assert _peak_bytes(far) < 200_000  # it built a 3-million-number list on every call
    assert log.jumps == 1 and log.missing() == [] and log.missing_count() == 0


def test_a_real_gap_is_listed_in_constant_space() -> None:
    log = EventLog("g")
    log.receive(1, "k")
    log.receive(WINDOW, "k")
    peak = _peak_bytes(log.missing)
    assert log.missing() == list(range(2, 52)) and log.missing_count() == WINDOW - 2
    assert peak < 20_000


@pytest.mark.parametrize(
    "payload",
    [
        b'{"schema":1,"table_id":"t1","game_id":"g","seq":1000000000,"kind":"k"}',
        b'{"schema":1,"table_id":"t1","game_id":"g","seq":' + b"9" * 5000 + b',"kind":"k"}',
        b'{"schema":1,"table_id":"t1","game_id":"g","seq":1,"kind":"k","x":' + b"[" * 5000 + b"]",
        b'{"schema":1,"table_id":"t1","game_id":"g","seq":NaN,"kind":"k"}',
    ],
    ids=["billion", "5000 digits", "nested", "NaN"],
)
def test_numbers_off_the_wire_are_bounded(payload: bytes) -> None:
    with pytest.raises(MessageError):
        clean_event("t1", payload)


@pytest.mark.parametrize(
    "change",
    [
        {"sent_at": float("inf")},
        {"round": 10**6},
        {"teams": [{"seat": 0, "player": "A", "warriors_left": 10**8, "endurance_left": 1,
                    "warriors": []}]},
    ],
)  # fmt: skip
def test_state_numbers_are_bounded(final: GameState, change: dict[str, Any]) -> None:
    m = state_message(final, "t1", seq=1)
    m.update(change)
    with pytest.raises(MessageError):
        clean_state("t1", json.dumps(m).encode())  # json.dumps writes inf as Infinity


def test_a_gap_the_stream_went_a_window_past_is_given_up() -> None:
    log = EventLog("g")
    out = log.receive(1, "k") + log.receive(3, "k")
    out += log.receive(WINDOW + 3, "k")  # 2 will not come any more
    assert out == [1, 3] and log.lost == 1 and log.delivered == 3
    assert log.missing_count() == WINDOW - 1


def test_a_run_beyond_the_window_moves_the_stream_one_number_never_does() -> None:
    log = EventLog("g")
    log.receive(1, "k")
    far = 1 + WINDOW + 500
    assert log.receive(far, "k") == [] and log.receive(far + 7, "k") == []
    assert log.delivered == 1 and log.jumps == 2
    got: list[int] = []
    for seq in range(far, far + RESYNC_RUN):
        got += log.receive(seq, "k")
    assert got == list(range(far, far + RESYNC_RUN)) and log.lost == far - 2


# ---------------------------------------------------------------- forged states
def _playing(final: GameState, board: Scoreboard, upto: int, table: str = "t1") -> None:
    for seq in range(1, upto + 1):
        board.handle(f"toptable/{table}/events", _event(table, seq))
    board.handle(f"toptable/{table}/state", state_bytes(final, table, upto, over=False, winners=[]))


def test_a_forged_state_with_a_huge_seq_does_not_freeze_the_card(final: GameState) -> None:
    board = Scoreboard()
    _playing(final, board, 40)
    forged = state_bytes(final, seq=999_999, over=True, winners=["Mallory"])
    board.handle("toptable/t1/state", forged)
    t = board.table("t1") or {}
    assert t["seq"] == 40 and t["winners"] == [] and t["flagged"] == 1
    all_rows = [r for g in board.standings() for r in g["rows"]]
    assert not any(r["won"] for r in all_rows)
    board.handle("toptable/t1/events", _event("t1", 41))
    board.handle("toptable/t1/state", state_bytes(final, seq=41, over=False, winners=[]))
    assert (board.table("t1") or {})["seq"] == 41  # the real game goes on


def test_a_forged_state_met_first_gives_way_to_the_real_events(final: GameState) -> None:
    board = Scoreboard()
    board.handle("toptable/t1/state", state_bytes(final, seq=900_000, winners=["Mallory"]))
    _playing(final, board, 5)  # the real table: events 1..5, then its state
    t = board.table("t1") or {}
    assert t["seq"] == 5 and t["winners"] == [] and t["events"]["last_seq"] == 5


def test_a_state_a_little_ahead_of_its_events_is_shown(final: GameState) -> None:
    board = Scoreboard()
    _playing(final, board, 10)
    board.handle("toptable/t1/state", state_bytes(final, seq=10 + STATE_AHEAD))
    assert (board.table("t1") or {})["seq"] == 10 + STATE_AHEAD


def test_a_replayed_older_state_is_ignored(final: GameState) -> None:
    board = Scoreboard()
    _playing(final, board, 20)
    board.handle("toptable/t1/state", state_bytes(final, seq=12))
    assert (board.table("t1") or {})["seq"] == 20


def test_a_late_state_of_an_older_game_counts_but_is_not_shown(final: GameState) -> None:
    board = Scoreboard()
    board.handle("toptable/t1/state", state_bytes(final, seq=5, game_id="old", over=False))
    board.handle("toptable/t1/state", state_bytes(final, seq=3, game_id="new", over=False))
    board.handle("toptable/t1/state", state_bytes(final, seq=9, game_id="old"))  # the old one ends
    assert (board.table("t1") or {})["game_id"] == "new"
    (dice,) = board.standings()
    assert sum(r["won"] for r in dice["rows"]) == len(final.winners)


# ---------------------------------------------------------------- one table's garbage
def test_junk_online_messages_do_not_fill_the_table_limit(final: GameState) -> None:
    board = Scoreboard()
    for i in range(500):
        board.handle(f"toptable/junk-{i}/online", online_message(f"junk-{i}", True, "ab12"))
        board.handle(f"toptable/junk-{i}/events", _event(f"junk-{i}", 1))
    board.handle("toptable/real/state", state_bytes(final, "real"))
    assert board.table_ids() == ["real"]


def test_silent_tables_expire_and_their_games_stay_counted(final: GameState) -> None:
    clock = Clock()
    board = Scoreboard(expire_s=600, clock=clock, wall=clock.wall)
    board.handle("toptable/t1/state", state_bytes(final, "t1"))
    clock.now += 300
    board.handle("toptable/t2/state", state_bytes(final, "t2"))
    clock.now += 301
    assert board.table_ids() == ["t2"]
    assert [t["table_id"] for t in board.tables()] == ["t2"]
    (dice,) = board.standings()
    assert {r["player_id"] for r in dice["rows"]} == {"t1/Ann", "t1/Bob", "t2/Ann", "t2/Bob"}


def test_a_stale_table_says_how_old_its_state_is(final: GameState) -> None:
    clock = Clock()
    board = Scoreboard(clock=clock, wall=clock.wall)
    board.handle("toptable/t1/state", state_bytes(final, "t1"))
    clock.now += 125
    assert (board.table("t1") or {})["age_s"] == 125.0


def test_a_stepped_wall_clock_moves_no_tables_age(final: GameState) -> None:
    """A Pi has no real-time clock: NTP steps its wall clock by days after boot, or back.
    A state's age is what the monotonic clock measured (review 109)."""
    clock, step = Clock(), [0.0]
    board = Scoreboard(clock=clock, wall=lambda: clock.wall() + step[0])
    board.handle("toptable/t1/state", state_bytes(final, "t1"))
    clock.now += 20
    step[0] = 6 * 86400 + 23 * 3600
    assert (board.table("t1") or {})["age_s"] == 20.0
    clock.now += 40
    step[0] = -3600
    assert (board.table("t1") or {})["age_s"] == 60.0


def test_one_tables_garbage_costs_another_nothing(
    final: GameState, caplog: pytest.LogCaptureFixture
) -> None:
    clock = Clock()
    board = Scoreboard(clock=clock, wall=clock.wall)
    _playing(final, board, 3, "good")
    _playing(final, board, 3, "bad")
    before = board.table("good")
    with caplog.at_level(logging.WARNING):
        for i in range(2000):
            board.handle("toptable/bad/state", b"{garbage" + str(i).encode())
            board.handle("toptable/bad/events", _event("bad", 10**6 - i))
    assert board.table("good") == before
    bad = board.table("bad") or {}
    assert bad["dropped"] == 2000 and bad["flagged"] >= 1
    assert len(caplog.records) <= 2  # rate-limited: one warning per table per 10 s


# ---------------------------------------------------------------- two tables, one id
def test_two_processes_publishing_as_one_table_are_shown_as_a_duplicate(
    final: GameState,
) -> None:
    clock = Clock()
    board = Scoreboard(clock=clock, wall=clock.wall)
    board.handle("toptable/t1/state", state_bytes(final, seq=1, instance="aaaa"))
    board.handle("toptable/t1/state", state_bytes(final, seq=2, instance="bbbb"))  # a restart
    assert (board.table("t1") or {})["duplicate"] is False
    clock.now += 1
    board.handle("toptable/t1/events", _event("t1", 3, instance="aaaa"))  # the first is alive
    t = board.table("t1") or {}
    assert t["duplicate"] is True and set(t["instances"]) == {"aaaa", "bbbb"}
    clock.now += 61
    assert (board.table("t1") or {})["duplicate"] is False  # one of them went away


def test_a_dead_process_s_last_will_does_not_take_its_successor_offline(
    final: GameState,
) -> None:
    """After a power cut the table's new process says online; mosquitto keeps the dead
    connection up to 1.5 keepalives, then sends its will ("offline", the old instance),
    retained. The table stays online on the page, and a scoreboard that joins later and
    finds that will first sees the table online again at its new process's first event."""
    board = Scoreboard()
    board.handle("toptable/t1/state", state_bytes(final, "t1"))
    board.handle("toptable/t1/online", online_message("t1", True, "new1"))
    board.handle("toptable/t1/online", online_message("t1", False, "old0"))
    assert (board.table("t1") or {})["online"] is True
    board.handle("toptable/t1/online", online_message("t1", False, "new1"))  # it did stop
    assert (board.table("t1") or {})["online"] is False

    later = Scoreboard()
    later.handle("toptable/t1/online", online_message("t1", False, "old0"))  # retained
    later.handle("toptable/t1/state", state_bytes(final, "t1"))
    assert (later.table("t1") or {})["online"] is False
    later.handle("toptable/t1/events", _event("t1", 10, instance="new1"))
    assert (later.table("t1") or {})["online"] is True


# ---------------------------------------------------------------- text that is no text
def test_a_lone_surrogate_is_dropped_and_a_pair_is_a_character(final: GameState) -> None:
    """Review 99: ``"Z\\ud800ed"`` is ASCII, UTF-8 and JSON, and Python reads it as a
    string with a lone surrogate (RFC 8259 8.2), which UTF-8 cannot encode: the page's
    answers failed for every table, and the evening's saving stopped."""
    m = state_message(final, "t1", seq=1, game_id="g1")
    m["teams"][0]["player"] = "Z\ud800ed"
    payload = json.dumps(m).encode()  # ensure_ascii: the escape, as a sender would write it
    assert b"\\ud800" in payload
    with pytest.raises(MessageError, match=r"a lone surrogate \(U\+D800\) is no text"):
        clean_state("t1", payload)
    bad_event = b'{"schema":1,"table_id":"t1","game_id":"g\\udfff","seq":1,"kind":"k"}'
    with pytest.raises(MessageError, match="game_id: a lone surrogate"):
        clean_event("t1", bad_event)
    m["teams"][0]["player"] = "Z\U0001f409ed"  # a dragon: "\ud83d\udc09" in the JSON
    assert clean_state("t1", json.dumps(m).encode())["teams"][0]["player"] == "Z\U0001f409ed"


def test_the_pages_answers_never_fail_on_a_value() -> None:
    from controller.scoreboard.server import _utf8

    assert _utf8('{"name":"Z\ud800ed"}') == b'{"name":"Z?ed"}'


def test_a_state_that_overtook_its_events_is_shown_once_they_come(
    final: GameState, caplog: pytest.LogCaptureFixture
) -> None:
    """Review 99: after a broker's restart a table's state (QoS 0) reached the scoreboard
    ahead of the QoS 1 events queued before it (MQTT orders messages within a topic only):
    it was flagged "not believed" for the rest of the evening, though the events came."""
    board = Scoreboard()
    _playing(final, board, 10)
    board.handle("toptable/t1/state", state_bytes(final, seq=40))
    t = board.table("t1") or {}
    assert t["seq"] == 10 and t["flagged"] == 1  # held, not shown yet
    assert "held a message from 't1': a state of row 40" in caplog.text
    assert "dropped" not in caplog.text
    for seq in range(11, 41):
        board.handle("toptable/t1/events", _event("t1", seq))
    t = board.table("t1") or {}
    assert t["seq"] == 40 and t["flagged"] == 0  # believed once its events came


def test_the_scoreboards_own_user_is_no_table(final: GameState, tmp_path: Any) -> None:
    """The shipped ACL's ``pattern write toptable/%u/#`` lets the scoreboard's own user
    write under its name: a table "scoreboard" and its wins came on the page (review 112)."""
    board = Scoreboard()
    password = tmp_path / "pw"
    password.write_text("pw\n", encoding="utf-8")
    conn = Connection(parse_broker_url("mqtt://127.0.0.1:1"), "scoreboard", password)
    Subscriber(conn, board, "sb")  # not started: it tells the board its user
    board.handle("toptable/scoreboard/state", state_bytes(final, "scoreboard"))
    board.handle("toptable/t1/state", state_bytes(final, "t1"))
    assert board.table_ids() == ["t1"]
    assert {r["player_id"] for r in board.standings()[0]["rows"]} == {"t1/Ann", "t1/Bob"}


def test_a_held_state_is_not_believed_on_another_games_events(final: GameState) -> None:
    """A state held ahead of its events waits for its own game's events: the table's next
    game going on (or a forger's) never makes it believed."""
    board = Scoreboard()
    _playing(final, board, 10)
    board.handle("toptable/t1/state", state_bytes(final, seq=40, over=False, winners=[]))
    for seq in range(1, 41):
        board.handle("toptable/t1/events", _event("t1", seq, game="g2"))
    t = board.table("t1") or {}
    assert (t["game_id"], t["seq"], t["flagged"]) == ("g1", 10, 1)
