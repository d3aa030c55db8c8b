"""The table flow end to end without hardware: bots play a whole game through the
table's handlers (buttons, board moves, settled throws), journalled to SQLite."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from controller.core.game_limits import MAX_EXTRA_ROUNDS
from controller.core.kinds import GameKind
from controller.demo.players import TablePlayers
from controller.game.bots import GreedyBot, RandomBot
from controller.game.engine import replay
from controller.game.events import ClockEvent, ClockPaused, ClockResumed, ClockStarted, GameEvent
from controller.game.export import export_json
from controller.game.prompt import phase_label
from controller.game.session import TableGame
from controller.game.simulate import load_game_data, play_game
from controller.game.state import GameConfig, GameState, Length, Phase
from controller.publish.messages import state_message
from controller.table.controller import TableController
from controller.table.entry import FaultSource
from hardware.controls.events import ButtonName, ButtonPressed
from hardware.displays.font import BIG, SMALL
from hardware.displays.model import PromptKind, TableView
from hardware.displays.screens import render
from tests.game.helpers import tied_game
from tests.hardware.displays.helpers import shows
from tests.table.helpers import DirectHands
from vision.events import BackInDepth, CameraLost, OutOfDepth


def _play(
    tmp_path: Path,
    seed: int,
    misread_every: int = 0,
    length: Length = Length.ROUNDS5,
    camera: bool = True,
    board: bool = True,
) -> TableController:
    data = load_game_data()
    game = TableGame.start(tmp_path / "j.sqlite", GameConfig(("Ann", "Bob"), length), data)
    table = TableController(game, seed=seed)
    hands = DirectHands(table, seed, misread_every)
    if not camera:
        hands.camera_on = False
        table.on_camera_lost(CameraLost("/dev/video0", "unplugged", 0.0))
    if not board:
        table.board_lost("unplugged")
    players = TablePlayers(table.awaits, hands, [GreedyBot(), RandomBot()], seed=seed)
    for _ in range(20_000):
        if players.done():
            break
        players.step()
    assert players.done(), f"stuck in {table.state.phase}"
    return table


@pytest.mark.timeout(60)
def test_bots_play_a_whole_game_through_the_table(tmp_path: Path) -> None:
    table = _play(tmp_path, seed=3)
    state = table.state
    assert state.phase is Phase.OVER
    assert state.winners
    assert table.stats.moves_from_board > 0
    assert table.stats.throws_read > 0
    assert table.stats.button_actions > 0
    # The journal replays to the same final state.
    events = table.game.journal.events()
    again = replay(state.config, state.data, events)
    assert again.winners == state.winners
    assert {n: p for n, p in again.pieces.items()} == dict(state.pieces)
    view = table.render()
    assert view.phase.endswith(("wins", "win"))


@pytest.mark.timeout(60)
def test_cocked_dice_are_fixed_by_a_person_and_the_game_goes_on(tmp_path: Path) -> None:
    table = _play(tmp_path, seed=5, misread_every=3)
    assert table.stats.reads_flagged > 0
    assert table.state.phase is Phase.OVER


@pytest.mark.timeout(60)
def test_without_the_camera_the_dice_are_entered_with_the_buttons(tmp_path: Path) -> None:
    table = _play(tmp_path, seed=7, camera=False)
    assert table.state.phase is Phase.OVER
    assert table.stats.throws_read == 0
    assert any(e.kind == "dice" for e in table.game.journal.events())
    assert "camera lost: unplugged" in table.faults[FaultSource.CAMERA]
    view = table.render()
    assert [f.source for f in view.faults] == ["camera"]  # it stays on screen until fixed


@pytest.mark.timeout(60)
def test_without_the_board_the_moves_are_chosen_with_the_buttons(tmp_path: Path) -> None:
    table = _play(tmp_path, seed=8, board=False)
    assert table.state.phase is Phase.OVER
    assert table.stats.moves_from_board == 0
    assert any(e.kind == "move" for e in table.game.journal.events())
    table.board_back()
    assert "board" not in table.faults


def _two_bots(tmp_path: Path, seed: int) -> tuple[TableController, TablePlayers]:
    """A table of Ann and Bob (five rounds) and the bots playing it with ``seed``."""
    game = TableGame.start(
        tmp_path / "j.sqlite", GameConfig(("Ann", "Bob"), Length.ROUNDS5), load_game_data()
    )
    table = TableController(game, seed=seed)
    bots = TablePlayers(table.awaits, DirectHands(table, seed), [GreedyBot(), RandomBot()], seed)
    return table, bots


@pytest.mark.timeout(60)
def test_undo_cancels_the_last_action_and_is_journalled(tmp_path: Path) -> None:
    table, players = _two_bots(tmp_path, seed=1)
    while table.state.phase is not Phase.DRAFT:
        players.step()
    players.step()  # the first draft pick
    picked = dict(table.state.pieces)
    assert picked
    table.on_button(ButtonPressed(ButtonName.UNDO))
    assert table.state.pieces == {}
    assert table.state.phase is Phase.DRAFT
    assert len(table.game.journal.events()) == 1  # the first player's die stays; the pick is undone


@pytest.mark.timeout(60)
def test_the_45_minute_clock_survives_a_restart_and_ends_the_game(tmp_path: Path) -> None:
    data = load_game_data()
    journal = tmp_path / "j.sqlite"
    game = TableGame.start(journal, GameConfig(("Ann", "Bob"), Length.MINUTES45), data)
    now = [1000.0]
    table = TableController(game, seed=2, game_clock=lambda: now[0])
    players = TablePlayers(table.awaits, DirectHands(table, 2), [GreedyBot(), RandomBot()], seed=2)
    while table.state.round < 1:
        players.step()
    table.on_tick()
    assert table.seconds_left() == 45 * 60
    assert [e for e in game.journal.events() if isinstance(e, ClockEvent)] == [
        ClockStarted(1000.0),
        ClockResumed(1000.0),  # a mark from the start: a later restart's gap is guarded
    ]
    now[0] += 60
    table.clock.pause()  # five paused minutes do not count
    now[0] += 300
    table.clock.resume()
    now[0] += 540  # ten minutes of play in all, then the table restarts
    state_before = table.state
    game.close()
    resumed = TableController(TableGame.resume(journal, data), seed=2, game_clock=lambda: now[0])
    assert resumed.state.summary() == state_before.summary()  # the rules never saw the clock
    assert not list(tmp_path.glob("*.clock"))
    resumed.on_tick()
    assert resumed.seconds_left() == 35 * 60
    now[0] += 35 * 60
    resumed.on_tick()
    assert resumed.state.time_up
    resumed.game.close()


@pytest.mark.timeout(60)
def test_undo_steps_over_the_clock_and_replay_passes_it_by(tmp_path: Path) -> None:
    data = load_game_data()
    journal = tmp_path / "j.sqlite"
    game = TableGame.start(journal, GameConfig(("Ann", "Bob"), Length.MINUTES45), data)
    now = [1000.0]
    table = TableController(game, seed=3, game_clock=lambda: now[0])
    players = TablePlayers(table.awaits, DirectHands(table, 3), [GreedyBot(), RandomBot()], seed=3)
    while table.state.round < 1:
        players.step()
    table.on_tick()
    while table.state.phase is not Phase.MOVE:
        players.step()
    players.step()  # a player moves...
    actions = [e for e in game.journal.events() if e.is_action]
    table.clock.pause()  # ... the clock is paused, and the player takes the move back
    table.on_button(ButtonPressed(ButtonName.UNDO))
    events = game.journal.events()
    assert [e for e in events if e.is_action] == actions[:-1]
    assert isinstance(events[-1], ClockPaused)  # the pause stays
    assert table.clock.paused
    replayed = replay(game.config, data, events)  # raw, clock events included
    assert replayed.summary() == table.state.summary()
    log = export_json(game.config, data, events)
    assert log["events"][-1]["event"]["kind"] == "clock_paused"  # type: ignore[index]
    game.close()


@pytest.mark.timeout(60)
def test_an_old_journal_with_a_clock_file_resumes_with_its_time(tmp_path: Path) -> None:
    data = load_game_data()
    journal = tmp_path / "j.sqlite"
    game = TableGame.start(journal, GameConfig(("Ann", "Bob"), Length.MINUTES45), data)
    table = TableController(game, seed=2, game_clock=lambda: 5000.0)
    players = TablePlayers(table.awaits, DirectHands(table, 2), [GreedyBot(), RandomBot()], seed=2)
    while table.state.round < 1:
        players.step()
    game.close()  # as an older toptable left it: no clock events, the start in j.clock
    clock_file = journal.with_suffix(".clock")
    clock_file.write_text("4400.0\n", encoding="utf-8")
    old = TableController(
        TableGame.resume(journal, data), game_clock=lambda: 5000.0, clock_file=clock_file
    )
    old.on_tick()
    assert old.seconds_left() == 45 * 60 - 600
    assert [e for e in old.game.journal.events() if isinstance(e, ClockEvent)] == [
        ClockStarted(4400.0),
        ClockResumed(5000.0),  # a mark: the first reading, its 600 s counted
    ]
    old.game.close()
    clock_file.unlink()  # from here on the journal alone has it
    again = TableController(TableGame.resume(journal, data), game_clock=lambda: 5000.0)
    again.on_tick()
    assert again.seconds_left() == 45 * 60 - 600
    again.game.close()


@pytest.mark.timeout(60)
def test_a_move_the_board_cannot_tell_is_asked_and_chosen_with_the_buttons(tmp_path: Path) -> None:
    table, players = _two_bots(tmp_path, seed=4)
    while table.state.phase is not Phase.MOVE:
        players.step()
    assert table.render().prompt is None  # the board gives moves: nothing to ask
    table.board_problem("Hit cannot move 17→20; legal: 18, 19")
    prompt = table.render().prompt
    assert prompt is not None and prompt.kind is PromptKind.CHOOSE_MOVE
    assert prompt.text.startswith("Hit cannot move 17→20; legal: 18, 19. Move: ")
    before = table.state.events_applied
    table.on_button(ButtonPressed(ButtonName.CONFIRM))
    assert table.state.events_applied == before + 1  # the move chosen on screen was played
    assert table.entry.board_note is None


@pytest.mark.timeout(60)
def test_with_the_board_down_its_last_question_is_no_longer_asked(tmp_path: Path) -> None:
    """What the board could not tell is asked while it follows the game; once its link is
    down, the move is simply chosen with the buttons, the board's question left out."""
    table, players = _two_bots(tmp_path, seed=4)
    while table.state.phase is not Phase.MOVE:
        players.step()
    table.board_problem("Hit cannot move 17→20; legal: 18, 19")
    table.board_lost("unplugged")
    prompt = table.render().prompt
    assert prompt is not None and prompt.kind is PromptKind.CHOOSE
    assert "Hit cannot move" not in prompt.text


class _Shown:
    """A view sink that keeps every view."""

    def __init__(self) -> None:
        self.views: list[TableView] = []

    def update(self, view: TableView) -> None:
        self.views.append(view)


def test_the_daemon_talks_to_the_table_through_its_methods(tmp_path: Path) -> None:
    data = load_game_data()
    game = TableGame.start(tmp_path / "j.sqlite", GameConfig(("Ann", "Bob")), data)
    shown = _Shown()
    table = TableController(game, [shown], seed=1)
    assert table.kind is GameKind.TOURNAMENT
    assert table.status_line() == "round 1/10, Ann: first player"
    drawn = len(shown.views)
    table.set_device_faults({"display:team-1": "display team-1: no answer at 0x3C"})
    assert len(shown.views) == drawn + 1  # drawn again: the fault is on screen
    assert [f.message for f in shown.views[-1].faults] == ["display team-1: no answer at 0x3C"]
    table.set_device_faults({"display:team-1": "display team-1: no answer at 0x3C"})
    assert len(shown.views) == drawn + 1  # nothing changed: nothing drawn
    table.pause()
    paused = shown.views[-1]
    assert paused.prompt is not None and paused.prompt.title == "paused"
    assert paused.faults == () and table.entry.chooser is None


def test_a_display_back_is_taken_off_the_screens_fault_lines(tmp_path: Path) -> None:
    """The device layer reports a display gone, then none: the fault line goes."""
    game = TableGame.start(tmp_path / "j.sqlite", GameConfig(("Ann", "Bob")), load_game_data())
    shown = _Shown()
    table = TableController(game, [shown], seed=1)
    table.set_device_faults({"display:team-1": "display team-1: no answer at 0x3C"})
    assert [fault.source for fault in shown.views[-1].faults] == ["display:team-1"]
    table.set_device_faults({})
    assert not shown.views[-1].faults
    table.set_device_faults({"board": "board: no answer"})
    assert [fault.source for fault in shown.views[-1].faults] == ["board"]


def test_the_dice_camera_warning_stays_on_screen_until_a_throw_looks_right(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    data = load_game_data()
    game = TableGame.start(tmp_path / "j.sqlite", GameConfig(("Ann", "Bob")), data)
    shown = _Shown()
    table = TableController(game, [shown], seed=1)
    warning = "a 1280x720 photo, but the model learned from 1280x960 photos: another camera"
    with caplog.at_level(logging.WARNING, logger="controller.table.controller"):
        table.on_out_of_depth(OutOfDepth((warning,), ("photo size not the calibrated one",), 5.0))
    assert [(f.source, f.message) for f in shown.views[-1].faults] == [
        ("camera view", "dice camera: photo size not the calibrated one")
    ]
    assert f"dice camera: {warning}" in caplog.text  # the whole warning, in the log
    assert table.entry.camera_ok  # the throws are still read from the camera
    drawn = len(shown.views)
    table.on_back_in_depth(BackInDepth(6.0))
    assert shown.views[-1].faults == () and len(shown.views) == drawn + 1
    table.on_back_in_depth(BackInDepth(7.0))
    assert len(shown.views) == drawn + 1  # nothing to clear: nothing drawn
    game.close()


class _PauseError(Exception):
    """Stops a bot game part way."""


@pytest.mark.timeout(60)
def test_a_ties_extra_round_is_said_as_one_on_the_status_line_and_the_screen(
    tmp_path: Path,
) -> None:
    # a tie of three or more after round 5 plays on: the table said "round 6/5"
    tie = tied_game()
    game = TableGame.start(tmp_path / "j.sqlite", tie.config, load_game_data())

    def submit(event: GameEvent) -> GameState:
        state = game.submit(event)
        if state.round > 5:
            raise _PauseError  # the first state of the extra round
        return state

    with pytest.raises(_PauseError):
        play_game(tie.config, load_game_data(), tie.seed, submit=submit)
    table = TableController(game, seed=1)  # the table (re)started in the extra round
    state = table.state
    assert (state.round, state.extra_rounds) == (6, 1) and not state.over
    assert table.status_line() == (
        f"extra round 1 of 3 (a tie after round 5), {state.players[state.seat]}: "
        f"{phase_label(state)}"
    )
    assert table.render().clock.extra_round == 1  # the screens' view: EXTRA 1/3 on the turn
    game.close()


@pytest.mark.timeout(60)
def test_a_45_minute_games_tie_when_time_ran_out_is_said_as_its_extra_round(
    tmp_path: Path,
) -> None:
    # a tie of three or more when time ran out plays on: the status line said "round 9",
    # the state message no extra round, the screen 0:00 and ROUND 9
    tie = tied_game(Length.MINUTES45)
    game = TableGame.start(tmp_path / "j.sqlite", tie.config, load_game_data())

    def submit(event: GameEvent) -> GameState:
        state = game.submit(event)
        if state.extra_rounds:
            raise _PauseError  # the first state of the extra round
        return state

    with pytest.raises(_PauseError):
        play_game(tie.config, load_game_data(), tie.seed, submit=submit)
    start = 1_000.0  # the clock ran out 45 minutes and more ago
    table = TableController(game, seed=1, clock_start=start, game_clock=lambda: start + 3_000)
    table.on_tick()
    state = table.state
    assert state.time_up and len(state.tied) >= 3 and state.rounds is None and not state.over
    assert (state.extra_rounds, table.seconds_left()) == (1, 0)
    assert table.status_line() == (
        f"extra round 1 of 3 (a tie when time ran out), {state.players[state.seat]}: "
        f"{phase_label(state)}"
    )
    message = state_message(state, "t1", seq=1, seconds_left=table.seconds_left())
    assert message["extra_round"] == {"number": 1, "of": MAX_EXTRA_ROUNDS}
    assert message["rounds"] is None and message["clock"] == {"seconds_left": 0, "time_up": True}
    view = table.render()
    assert view.clock.extra_round == 1 and view.clock.seconds_left == 0
    for size in ((128, 64), (128, 32)):
        drawn = render(view, "turn", size)
        assert shows(drawn, "EXTRA 1/3", SMALL) and shows(drawn, "+1", BIG), size
        assert not shows(drawn, "0:00", BIG) and not shows(drawn, f"ROUND {state.round}", SMALL)
    game.close()
