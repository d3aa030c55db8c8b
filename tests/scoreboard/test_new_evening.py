"""A new evening counts no game from before it: the broker's retained states and the
last evening's queued messages are shown, not counted (issue 27, review 79's finding 4)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from controller.game import engine
from controller.game.simulate import play_game
from controller.game.state import GameConfig, GameState, Length
from controller.publish.link import LinkState, LinkStatus
from controller.publish.messages import encode, state_message
from controller.publish.settings import Connection, parse_broker_url
from controller.scoreboard.evening import FILE_NAME, Evening
from controller.scoreboard.model import Scoreboard
from controller.scoreboard.subscriber import Subscriber, end_old_session
from tests.publish.broker import Mosquitto
from tests.publish.table import TestTable
from tests.waiting import wait_for

pytestmark = pytest.mark.timeout(120)

TOPIC = "toptable/t1/state"


@pytest.fixture(scope="module")
def game(game_data: Any) -> GameState:
    config = GameConfig(("Ann", "Bob"), Length.ROUNDS5, game_id="last-week")
    return play_game(config, game_data, 3, None).state


def _state(state: GameState, seq: int) -> bytes:
    return encode(state_message(state, "t1", seq=seq, game_id=state.config.game_id))


def _players(board: Scoreboard) -> set[str]:
    return {row["player"] for group in board.standings() for row in group["rows"]}


def _link(state: LinkState) -> LinkStatus:
    return LinkStatus(state, "mqtt://localhost:1883", None, 0.0)


@pytest.fixture(scope="module")
def unfinished(game_data: Any) -> GameState:
    """Last week's game left unfinished (the table was switched off)."""
    config = GameConfig(("Ann", "Bob"), Length.ROUNDS5, game_id="last-week")
    return engine.new_game(config, game_data)


class Clock:
    """The scoreboard's monotonic clock, moved by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _connected(evening: Evening, clock: Clock | None = None) -> Scoreboard:
    """A scoreboard that has just made its first connection (its subscription's retained
    states come now)."""
    board = Scoreboard(evening=evening, clock=clock or Clock())
    board.set_link(_link(LinkState.CONNECTED))
    return board


def test_a_retained_state_on_a_new_evening_is_shown_not_counted(
    tmp_path: Path, game: GameState, unfinished: GameState
) -> None:
    with Evening.in_directory(tmp_path, new=True) as evening:
        board = _connected(evening)
        board.handle(TOPIC, _state(unfinished, 40), retained=True)
        assert board.table("t1") is not None  # the table's card shows what it last said
        assert board.standings() == []
        board.handle(TOPIC, _state(unfinished, 40))  # the table says it again, live: same row
        assert board.standings() == []
    # restarted (the same evening): still aside, whether retained or not
    with Evening.in_directory(tmp_path) as evening:
        again = _connected(evening)
        again.handle(TOPIC, _state(unfinished, 40), retained=True)
        assert again.standings() == []
        again.handle(TOPIC, _state(unfinished, 41))  # the game goes on tonight
        assert _players(again) == {"Ann", "Bob"}
    with Evening.in_directory(tmp_path) as evening:
        assert _players(Scoreboard(evening=evening)) == {"Ann", "Bob"}


def test_a_game_ended_before_the_evening_said_again_live_stays_aside(
    tmp_path: Path, game: GameState
) -> None:
    """Review 97: the broker kept an older retained state of last week's game (row 60);
    the table, resuming its journal tonight, sent its final state live (row 100): counted."""
    with Evening.in_directory(tmp_path, new=True) as evening:
        board = _connected(evening)
        board.handle(TOPIC, _state(game, 60), retained=True)
        board.handle(TOPIC, _state(game, 100))  # over already: nothing was played tonight
        assert board.standings() == []


def test_a_broker_first_reached_late_holds_tonights_games(tmp_path: Path, game: GameState) -> None:
    """Review 97: a scoreboard begun before its broker could be reached set aside, at its
    first connection, the games played meanwhile."""
    clock = Clock()
    with Evening.in_directory(tmp_path, new=True) as evening:
        board = Scoreboard(evening=evening, clock=clock)
        clock.now += 600.0  # the broker is reached ten minutes later
        board.set_link(_link(LinkState.CONNECTED))
        board.handle(TOPIC, _state(game, 100), retained=True)
        assert _players(board) == {"Ann", "Bob"}
    clock = Clock()
    with Evening.in_directory(tmp_path / "b", new=True) as evening:
        board = _connected(evening, clock)
        clock.now += 60.0  # a retained state long after the subscription's own
        board.handle(TOPIC, _state(game, 100), retained=True)
        assert _players(board) == {"Ann", "Bob"}


def test_without_a_new_evening_a_retained_state_counts(tmp_path: Path, game: GameState) -> None:
    # a game that ended while the scoreboard was away comes back retained
    with Evening.in_directory(tmp_path) as evening:
        board = Scoreboard(evening=evening)
        board.handle(TOPIC, _state(game, 40), retained=True)
        assert _players(board) == {"Ann", "Bob"}


def test_after_the_first_connection_is_lost_a_retained_state_counts(
    tmp_path: Path, game: GameState
) -> None:
    with Evening.in_directory(tmp_path, new=True) as evening:
        board = _connected(evening)
        board.set_link(_link(LinkState.UNREACHABLE))
        board.set_link(_link(LinkState.CONNECTED))
        # ended while the scoreboard was cut off: tonight's
        board.handle(TOPIC, _state(game, 40), retained=True)
        assert _players(board) == {"Ann", "Bob"}


def test_an_evening_of_the_first_format_is_read_and_upgraded(
    tmp_path: Path, game: GameState
) -> None:
    path = tmp_path / FILE_NAME
    with Evening.in_directory(tmp_path) as evening:
        Scoreboard(evening=evening).handle(TOPIC, _state(game, 40))
    with sqlite3.connect(path) as db:  # as the scoreboard before this change left it
        db.execute("DROP TABLE aside")
        db.execute("PRAGMA user_version=1")
    db.close()
    with Evening.in_directory(tmp_path) as evening:
        assert _players(Scoreboard(evening=evening)) == {"Ann", "Bob"}
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone() == (2,)
        assert db.execute("SELECT count(*) FROM aside").fetchone() == (0,)
    db.close()


def test_a_new_evening_against_a_real_broker_counts_tonights_games_only(
    broker: Mosquitto, tmp_path: Path, game_data: Any
) -> None:
    conn = Connection(parse_broker_url(broker.url))
    client_id = "evening-board-new"
    # last week: the scoreboard subscribed (a persistent session), then went home
    with Evening.in_directory(tmp_path / "last") as evening:
        sub = Subscriber(conn, Scoreboard(evening=evening), client_id).start()
        assert sub.wait_connected(5)
        sub.close()
    old = [
        TestTable(tmp_path, broker.url, game_data, f"table-{i}", (f"Old{i}a", f"Old{i}b"))
        for i in (1, 2)
    ]
    for i, t in enumerate(old):  # each final state retained, and queued for the session
        t.play(seed=5 + i)
        assert t.publisher.flush(10)
        t.close()
    assert end_old_session(conn, client_id)
    state_dir = tmp_path / "tonight"
    evening = Evening.in_directory(state_dir, new=True).start()
    board = Scoreboard(evening=evening)
    sub = Subscriber(conn, board, client_id).start()
    tonight = TestTable(tmp_path, broker.url, game_data, "table-3", ("Ann", "Bob"))
    try:
        assert sub.wait_connected(5)
        assert wait_for(lambda: len(board.tables()) == 2, 10)  # shown from the broker
        assert board.standings() == []
        tonight.play(seed=7)
        assert tonight.publisher.flush(10)
        assert wait_for(lambda: (board.table("table-3") or {}).get("over"), 10)
        assert _players(board) == {"Ann", "Bob"}
    finally:
        sub.close()
        evening.close()
        tonight.close()


def test_a_game_that_went_on_stays_counted_after_a_restart_to_its_end(
    tmp_path: Path, game: GameState, unfinished: GameState
) -> None:
    """Last week's game set aside, then played on tonight: counted, and a restart of the
    scoreboard later (the same evening) still counts its end, its winner's win too."""
    with Evening.in_directory(tmp_path, new=True) as evening:
        board = _connected(evening)
        board.handle(TOPIC, _state(unfinished, 40), retained=True)
        board.handle(TOPIC, _state(unfinished, 41))  # it goes on tonight
    with Evening.in_directory(tmp_path) as evening:
        again = _connected(evening)
        again.handle(TOPIC, _state(game, 100))  # and ends
        (dice,) = again.standings()
        assert sum(r["won"] for r in dice["rows"]) == len(game.winners) > 0


def test_a_retained_copy_of_a_game_counted_tonight_does_not_set_it_aside(
    tmp_path: Path, game: GameState, unfinished: GameState
) -> None:
    """A game a table told live tonight stays counted when the broker's retained copy of it
    comes after (a broker may interleave a subscription's retained states with live ones):
    its end counts."""
    with Evening.in_directory(tmp_path, new=True) as evening:
        board = _connected(evening)
        board.handle(TOPIC, _state(unfinished, 50))
        board.handle(TOPIC, _state(unfinished, 50), retained=True)
        board.handle(TOPIC, _state(game, 100))
        (dice,) = board.standings()
        assert sum(r["won"] for r in dice["rows"]) == len(game.winners) > 0
