"""One table as the scoreboard knows it: its games' streams, its instances, its games."""

from __future__ import annotations

from controller.game.state import GameState
from controller.publish.messages import event_message
from controller.scoreboard.model import Scoreboard
from controller.scoreboard.streams import RESYNC_RUN, WINDOW, EventLog
from tests.scoreboard.helpers import Clock, state_bytes


def _event(table: str, seq: int, game: str = "g1", instance: str | None = None) -> bytes:
    return event_message(table, game, seq, "k", "{}", None, instance)


def test_a_first_event_a_window_past_the_shown_state_lists_the_rows_between(
    final: GameState,
) -> None:
    """Joining mid-game, the rows up to the shown state are in it: an event a whole window
    past it leaves the rows between missing; one further starts the stream there."""
    board = Scoreboard()
    board.handle("toptable/t1/state", state_bytes(final, "t1", seq=10))
    board.handle("toptable/t1/events", _event("t1", 10 + WINDOW))
    ev = (board.table("t1") or {})["events"]
    assert ev["first_seq"] == 11 and ev["missing_count"] == WINDOW - 1
    board.handle("toptable/t2/state", state_bytes(final, "t2", seq=10))
    board.handle("toptable/t2/events", _event("t2", 11 + WINDOW))
    ev = (board.table("t2") or {})["events"]
    assert ev["first_seq"] == 11 + WINDOW and ev["missing_count"] == 0


def test_an_older_game_still_being_told_is_remembered_as_older(final: GameState) -> None:
    """A table's game whose late states keep coming stays known as an older game, however
    many games the table began since its first: its states never take the card back."""
    board = Scoreboard()
    for i in range(16):
        board.handle("toptable/t1/state", state_bytes(final, seq=1, game_id=f"g{i}", over=False))
    board.handle("toptable/t1/state", state_bytes(final, seq=2, game_id="g0", over=False))
    board.handle("toptable/t1/state", state_bytes(final, seq=1, game_id="g16", over=False))
    board.handle("toptable/t1/state", state_bytes(final, seq=3, game_id="g0"))  # g0 ends late
    assert (board.table("t1") or {})["game_id"] == "g16"
    (dice,) = board.standings()
    assert sum(r["won"] for r in dice["rows"]) == len(final.winners)  # its end counted


def test_a_card_without_its_games_events_shows_the_newest_games_stream(final: GameState) -> None:
    """A restarted scoreboard shows a table's saved game, whose events it never saw: the
    delivery figures on the card are those of the game the table plays now, not an older one."""
    board = Scoreboard()
    board.handle("toptable/t1/state", state_bytes(final, seq=9, game_id="saved"))
    for seq in (1, 2, 3):
        board.handle("toptable/t1/events", _event("t1", seq, "before"))
    for seq in (1, 2):
        board.handle("toptable/t1/events", _event("t1", seq, "now"))
    ev = (board.table("t1") or {})["events"]
    assert (ev["game_id"], ev["last_seq"]) == ("now", 2)


def test_a_table_restarted_once_names_no_instances(final: GameState) -> None:
    """One switch of instance is a restart, no duplicate: the card names no processes."""
    board = Scoreboard()
    board.handle("toptable/t1/state", state_bytes(final, seq=1, instance="aaaa"))
    board.handle("toptable/t1/state", state_bytes(final, seq=2, instance="bbbb"))
    t = board.table("t1") or {}
    assert t["duplicate"] is False and t["instances"] == []


def test_a_table_leaves_the_page_only_after_its_whole_silence(final: GameState) -> None:
    """``--expire-min``: a table silent exactly that long is still shown; a moment more, gone."""
    clock = Clock()
    board = Scoreboard(expire_s=600, clock=clock)
    board.handle("toptable/t1/state", state_bytes(final))
    clock.now += 600
    assert board.table_ids() == ["t1"]
    clock.now += 0.5
    assert board.table_ids() == []


def test_rows_missing_are_those_below_the_highest_seen_whatever_the_order() -> None:
    """A row arriving late, behind a higher one, leaves the rows between it and the highest
    still listed as missing."""
    log = EventLog("g1")
    for seq in (1, 6, 3):
        log.receive(seq, "k")
    assert log.missing() == [2, 4, 5] and log.missing_count() == 3


def test_a_row_held_behind_a_gap_and_sent_again_is_a_duplicate() -> None:
    """A row that came ahead of a gap and comes again is counted once as reordered, then as
    a duplicate."""
    log = EventLog("g1")
    for seq in (1, 3, 3):
        log.receive(seq, "k")
    assert (log.reordered, log.duplicates) == (1, 1)


def test_a_stream_moved_far_ahead_counts_as_lost_only_the_rows_never_seen() -> None:
    """A table that went on while the scoreboard's queue overflowed: the rows it held behind
    a gap are passed on, and only those never seen are counted lost."""
    log = EventLog("g1")
    log.receive(1, "k")
    log.receive(3, "k")
    far = 1 + WINDOW + 500
    got: list[int] = []
    for seq in range(far, far + RESYNC_RUN):
        got += log.receive(seq, "k")
    assert got[0] == 3 and log.lost == far - 3  # 2, and 4 .. far - 1
