"""The board follower's logs: a warning means something a person should look at; tokens
tidied away (eliminated warriors taken off, the board cleared at the end) are not."""

from __future__ import annotations

import contextlib
import dataclasses
import logging
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest

from controller.board.follow import BoardFollower
from controller.game.events import GameEvent, Move, Place, StepAside
from controller.game.legal import legal_actions
from controller.game.session import TableGame
from controller.game.simulate import load_game_data, play_game
from controller.game.state import GameConfig, GameState, Length, Phase
from controller.gamedata.bundle import GameData
from controller.table.controller import TableController
from controller.table.entry import FaultSource
from hardware.board.events import BoardResynced, SensorChanged

DATA: GameData = load_game_data()


class _StopError(Exception):
    pass


def _table(tmp_path: Path, until_over: bool) -> tuple[TableGame, BoardFollower]:
    """A journalled game played by bots, to its end or to a move in round 2."""
    game = TableGame.start(tmp_path / "j.sqlite", GameConfig(("Ann", "Bob"), Length.ROUNDS5), DATA)
    table = TableController(game)
    follower = BoardFollower(table, DATA.board)

    def submit(event: GameEvent) -> GameState:
        assert table.submit(event)  # journalled, applied, the follower told
        if not until_over and game.state.phase is Phase.MOVE and game.state.round >= 2:
            raise _StopError
        return game.state

    with contextlib.suppress(_StopError):
        play_game(game.config, DATA, 1, submit=submit)
    assert game.state.over is until_over
    return game, follower


class _Board:
    """Sensor changes for the follower, numbered like the board's."""

    def __init__(self, follower: BoardFollower) -> None:
        self.follower = follower
        self.seq = 0
        self.at = 100.0

    def change(self, space: int, occupied: bool) -> None:
        self.seq += 1
        self.at += 1.0
        sensor = DATA.board.space(space).sensor
        assert sensor is not None
        self.follower.on_sensor(SensorChanged(sensor, occupied, self.seq, 1, at=self.at))
        self.follower.tick(self.at + 1.0)


def _board_warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.levelno >= logging.WARNING and r.name.startswith("controller.board")
    ]


def test_clearing_the_board_at_the_end_is_not_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    game, follower = _table(tmp_path, until_over=True)
    state = game.state
    gone = [s for s in sorted(DATA.board.spaces) if s not in state.occ][:3]
    board = _Board(follower)
    with caplog.at_level(logging.DEBUG):
        board.change(gone[0], False)  # the last warrior eliminated, taken off after the end
        for space in sorted(state.occ):  # the winners' tokens back into the box
            board.change(space, False)
        board.change(gone[1], True)  # and tokens set out again for the next game
        board.change(gone[2], True)
    assert _board_warnings(caplog) == []
    assert follower.unexpected == 0 and follower.tidied >= 2
    assert "tidying: a token left space" in caplog.text
    assert game.state.over
    game.close()


def test_during_play_a_token_from_nowhere_is_a_warning_and_taking_one_off_is_not(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    game, follower = _table(tmp_path, until_over=False)
    state = game.state
    empty = [s for s in sorted(DATA.board.spaces) if s not in state.occ]
    board = _Board(follower)
    with caplog.at_level(logging.DEBUG):
        # An eliminated warrior's token (the game has none there) taken off: tidying.
        board.change(empty[0], False)
        assert _board_warnings(caplog) == []
        assert follower.unexpected == 0 and follower.tidied == 1
        # A token appearing on an empty space with nothing lifted: look at the board.
        board.change(empty[1], True)
    warnings = _board_warnings(caplog)
    assert warnings == [f"board: a token appeared on space {empty[1]}, but none was lifted"]
    assert follower.unexpected == 1
    assert not [
        r
        for r in caplog.records
        if r.name == "controller.board.tracker" and r.levelno > logging.DEBUG
    ]
    game.close()


def test_a_board_scanning_fewer_sensors_than_the_layout_wires_is_not_followed(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A board whose firmware scans fewer sensors than the layout wires would never see the
    tokens past its last sensor: the table says what to set and takes moves by the buttons,
    rather than asking players to put back tokens that stand on the board."""
    from hardware.board.events import BoardResynced, LinkRestored

    game, follower = _table(tmp_path, until_over=False)
    need = DATA.board.sensor_count
    follower.on_restored(LinkRestored("b", "toptable-fw 1", 1, need - 1, boot=1))
    on_board = frozenset(
        s for sp in game.state.occ for s in [DATA.board.space(sp).sensor] if s is not None
    )
    follower.on_resynced(BoardResynced(1, 0, on_board, 0, "first contact"))
    table = follower.table
    assert not table.entry.board_ok and table.entry.board_note is None
    assert table.faults[FaultSource.BOARD] == (
        f"board: {need - 1} sensors, layout {need}: redeploy firmware"
    )
    assert f"set SENSORS = {need} in the firmware's config.py" in caplog.text
    assert not follower.synced.is_set()

    follower.on_restored(LinkRestored("b", "toptable-fw 1", 1, need, boot=2))
    follower.on_resynced(BoardResynced(2, 0, on_board, 0, "reset"))
    assert table.entry.board_ok and FaultSource.BOARD not in table.faults


def test_a_board_that_differs_from_the_game_names_the_tokens_and_their_spaces(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """After a resync the screen's note is short (sensors, the wiring's numbers); the log
    names each token to put back and the spaces to clear (a sensor map makes them other)."""
    game, follower = _table(tmp_path, until_over=False)
    state = game.state
    standing = sorted(state.occ.items())
    (space, token), free = (
        standing[0],
        next(sp for sp in range(1, 200) if sp not in state.occ and DATA.board.space(sp).sensor),
    )
    on_board = {s for sp, _ in standing[1:] if (s := DATA.board.space(sp).sensor) is not None}
    sensor, free_sensor = DATA.board.space(space).sensor, DATA.board.space(free).sensor
    assert free_sensor is not None
    with caplog.at_level(logging.WARNING, logger="controller.board.follow"):
        said = follower.mismatch(frozenset({*on_board, free_sensor}))
    assert (
        said == f"put back tokens on sensors [{sensor}]; lift tokens from sensors [{free_sensor}]"
    )
    assert f"put back {token} on space {space}; lift the token on space {free}" in caplog.text


def _play_until(
    tmp_path: Path, stop: Callable[[GameState], bool], onto_space_0: bool = False
) -> tuple[TableGame, BoardFollower]:
    """A journalled game played by bots until ``stop`` holds (``onto_space_0``: a token
    placed on space 0 at set-up, where the bot's placement may go there)."""
    game = TableGame.start(tmp_path / "j.sqlite", GameConfig(("Ann", "Bob"), Length.ROUNDS5), DATA)
    table = TableController(game)
    follower = BoardFollower(table, DATA.board)

    def submit(event: GameEvent) -> GameState:
        if onto_space_0 and isinstance(event, Place) and 0 not in game.state.occ:
            there = dataclasses.replace(event, space=0)
            event = there if there in list(legal_actions(game.state)) else event
        assert table.submit(event)
        if stop(game.state):
            raise _StopError
        return game.state

    with contextlib.suppress(_StopError):
        play_game(game.config, DATA, 1, submit=submit)
    return game, follower


def _attacks(state: GameState) -> list[Move]:
    """The moves onto a foe's space (an attack, picked on the screen)."""
    return [a for a in legal_actions(state) if isinstance(a, Move) and a.space in state.occ]


def _sensors(spaces: Iterable[int]) -> frozenset[int]:
    return frozenset(s for sp in spaces if (s := DATA.board.space(sp).sensor) is not None)


def test_a_token_put_on_an_empty_space_after_a_combat_steps_the_attacker_aside(
    tmp_path: Path,
) -> None:
    game, follower = _play_until(tmp_path, lambda s: s.phase is Phase.STEP_ASIDE)
    step = next(a for a in legal_actions(game.state) if isinstance(a, StepAside))
    _Board(follower).change(step.space, True)
    assert game.state.phase is not Phase.STEP_ASIDE and step.space in game.state.occ
    assert follower.unexpected == 0
    game.close()


def test_a_token_standing_on_space_0_is_on_the_board(tmp_path: Path) -> None:
    """Space 0 is a space like any other: its token is no token to lift after a resync."""
    game, follower = _play_until(tmp_path, lambda s: s.phase is Phase.MOVE, onto_space_0=True)
    assert 0 in game.state.occ
    assert follower.mismatch(_sensors(game.state.occ)) is None
    game.close()


def test_after_a_resync_a_token_lifted_meanwhile_is_in_the_air_and_the_screen_says_so(
    tmp_path: Path,
) -> None:
    """A token taken up while the link was down is in a player's hand: its move is followed
    when it is put down, and the screen says which sensor the game misses a token on."""
    game, follower = _play_until(tmp_path, lambda s: s.phase is Phase.MOVE and s.round >= 2)
    lifted, *standing = sorted(game.state.occ)
    follower.on_resynced(BoardResynced(1, 0, _sensors(standing), 0, "reset"))
    assert follower.spaces_in_air() == {lifted}
    assert follower.table.entry.board_note == (
        f"put back tokens on sensors [{DATA.board.space(lifted).sensor}]"
    )
    game.close()


def test_a_token_moved_about_once_the_game_is_over_asks_nothing_on_the_screen(
    tmp_path: Path,
) -> None:
    game, follower = _table(tmp_path, until_over=True)
    origin = min(game.state.occ)
    free = next(s for s in sorted(DATA.board.spaces) if s not in game.state.occ)
    board = _Board(follower)
    board.change(origin, False)
    board.change(free, True)  # no move is legal now: the players tidy up
    follower.tick(board.at + 10.0)
    assert follower.table.entry.board_note is None and follower.tidied >= 1
    game.close()


def test_the_spaces_a_lifted_token_may_go_to_are_empty_ones_only(tmp_path: Path) -> None:
    """An attack is picked on the screen (a token put on its defender's space is not seen):
    a token put on a wrong space is told the empty spaces it may go to."""

    game, follower = _play_until(tmp_path, lambda s: s.phase is Phase.MOVE and bool(_attacks(s)))
    attacker = _attacks(game.state)[0].warrior
    origin = game.state.pieces[attacker].space
    assert origin is not None
    empty = {
        a.space for a in legal_actions(game.state) if isinstance(a, Move) and a.warrior == attacker
    } - set(game.state.occ)
    wrong = next(s for s in sorted(DATA.board.spaces) if s not in game.state.occ and s not in empty)
    board = _Board(follower)
    board.change(origin, False)
    board.change(wrong, True)
    follower.tick(board.at + 10.0)
    note = follower.table.entry.board_note
    assert note is not None and note.endswith(f"legal: {', '.join(map(str, sorted(empty)))}")
    game.close()


def test_an_attack_picked_on_the_screen_leaves_no_token_in_the_air(tmp_path: Path) -> None:
    """The attacker's token, lifted for the attack, waits beside its defender during the
    combat: the board no longer shows it as lifted from where it stood."""
    game, follower = _play_until(tmp_path, lambda s: s.phase is Phase.MOVE and bool(_attacks(s)))
    table = follower.table
    attack = _attacks(game.state)[0]
    origin = game.state.pieces[attack.warrior].space
    assert origin is not None
    _Board(follower).change(origin, False)  # the attacker lifted onto its defender's space
    assert follower.spaces_in_air() == {origin}
    assert table.submit(attack)  # the attack picked on the screen
    assert follower.spaces_in_air() == frozenset()
    assert follower.tracker.positions() == {n: s for s, n in game.state.occ.items()}
    game.close()
