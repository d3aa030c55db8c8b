"""Story mode at the table (docs/rules.md §12), played like the Tournament: throws from the
camera, choices with the buttons, every event journalled (undo, resume)."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.core.kinds import GameKind
from controller.core.symbols import Symbol
from controller.demo.players import TablePlayers
from controller.game import engine
from controller.game.bots import GreedyBot, RandomBot
from controller.game.events import ChooseAttack, ChooseFight, ThrowCorrected
from controller.game.session import TableGame
from controller.game.simulate import load_game_data
from controller.game.state import GameConfig, Phase
from controller.table.controller import TableController
from hardware.controls.events import ButtonName, ButtonPressed
from tests.table.helpers import DirectHands, settled

NAMES = ("Ann", "Bob", "Cid", "Dee")


def _table(tmp_path: Path, players: int = 2, seed: int = 0) -> TableController:
    config = GameConfig(NAMES[:players], kind=GameKind.STORY)
    game = TableGame.start(tmp_path / "story.sqlite", config, load_game_data())
    return TableController(game, seed=seed)


def _press(table: TableController, button: ButtonName, long: bool = False) -> None:
    table.on_button(ButtonPressed(button, long))


def _choose(table: TableController, value: object) -> None:
    """Step the cursor to ``value`` and confirm."""
    chooser = table.entry.chooser
    assert chooser is not None and value in chooser.values, chooser
    while chooser.value != value:
        _press(table, ButtonName.NEXT)
    _press(table, ButtonName.CONFIRM)


def _combo(table: TableController) -> tuple[str, tuple[Symbol, ...]]:
    """The square's combo and a throw of the attempt's pool that makes it."""
    st, c = table.state.story, table.state.combat
    assert st is not None and c is not None
    combo = st.story.squares[st.square].combo
    dice = (*combo.symbols, *(Symbol.KICK,) * c.pool)[: c.pool]
    return combo.name, tuple(dice)


def _green_wins_square(table: TableController) -> None:
    """Green throws the square's combo and takes it; red throws teleports and cashes in."""
    for _ in range(20):
        state = table.state
        c = state.combat
        if state.phase is not Phase.ATTACK or c is None:
            return
        if c.striker == c.attacker:
            name, dice = _combo(table)
            table.on_throw(settled(dice))
            _choose(table, ChooseAttack(c.attacker_seat, name))
        else:
            table.on_throw(settled((Symbol.TELEPORT,) * c.pool))
            options = engine.attack_options(table.state)
            _choose(table, ChooseAttack(c.defender_seat, min(options, key=lambda o: o[1])[0]))


def test_the_screens_show_the_square_the_fight_and_the_victory_points(tmp_path: Path) -> None:
    table = _table(tmp_path)
    view = table.render()
    assert view.phase == "sq 1 G0 R0"
    assert (view.clock.round_no, view.clock.rounds) == (1, 13)  # square 1 of 13
    assert view.combat is not None
    assert (view.combat.attacker.name, view.combat.defender.name) == ("Son Goku", "Beerus")
    name, dice = _combo(table)
    table.on_throw(settled(dice))  # the camera's read is the throw
    view = table.render()
    assert view.combat is not None and view.combat.dice == dice
    assert name in [o.label for o in view.combat.options]  # the square's combo, with its damage
    assert view.combat.defences == ()  # a Story attempt has no defence
    assert table.advice.best is not None  # the advisor says what to keep
    assert table.stats.throws_read == 1


def test_the_players_agree_on_the_fight_with_the_buttons(tmp_path: Path) -> None:
    table = _table(tmp_path)
    _green_wins_square(table)
    assert table.state.phase is Phase.STORY_FIGHT
    assert table.render().phase == "sq 2 G1 R0"
    assert [seat.victory_points for seat in table.render().seats] == [1, 0]
    chooser = table.entry.chooser
    assert chooser is not None and chooser.title == "propose the fight"
    assert chooser.labels == ("Vegeta v Toppo", "Son Gohan v Dyspo", "Piccolo v Kakunsa")
    prompt = table.render().prompt
    assert prompt is not None and prompt.text == "Vegeta v Toppo"
    _choose(table, ChooseFight(0, 1))  # green proposes
    chooser = table.entry.chooser
    assert chooser is not None and chooser.title == "agree to the fight?"
    assert chooser.labels[0] == "yes: Son Gohan v Dyspo" and chooser.value == ChooseFight(1, 1)
    _choose(table, ChooseFight(1, 1))  # red confirms on its screen
    assert table.game.journal.events()[-2:] == [ChooseFight(0, 1), ChooseFight(1, 1)]
    c = table.state.combat
    assert c is not None and (c.attacker, c.defender) == ("Son Gohan", "Dyspo")


def test_four_players_play_two_fights_on_a_square_with_several(tmp_path: Path) -> None:
    table = _table(tmp_path, players=4)
    _green_wins_square(table)
    _choose(table, ChooseFight(2, 0))  # square 2 is P3-P4's first (B l.225)
    _choose(table, ChooseFight(3, 0))
    _green_wins_square(table)
    chooser = table.entry.chooser
    assert table.state.phase is Phase.STORY_FIGHT and engine.actor(table.state) == 0
    assert chooser is not None and chooser.labels == ("Son Gohan v Dyspo", "Piccolo v Kakunsa")
    _choose(table, ChooseFight(0, 2))
    _choose(table, ChooseFight(1, 2))
    c = table.state.combat
    assert c is not None and (c.attacker_seat, c.defender_seat) == (0, 1)


def test_a_tie_goes_to_red_at_the_table(tmp_path: Path) -> None:
    table = _table(tmp_path)
    for seat in (0, 1):
        name, dice = _combo(table)
        table.on_throw(settled(dice))
        _choose(table, ChooseAttack(seat, name))
    st = table.state.story
    assert st is not None and st.square == 1 and st.points == (0, 1)  # B l.188


def test_undo_at_the_table_takes_back_the_choice_not_the_dice(tmp_path: Path) -> None:
    table = _table(tmp_path)
    _, dice = _combo(table)
    table.on_throw(settled(dice))
    _press(table, ButtonName.CONFIRM, long=True)  # cash in the best
    assert engine.actor(table.state) == 1
    _press(table, ButtonName.UNDO)
    c = table.state.combat
    assert engine.actor(table.state) == 0 and c is not None and c.throws == (dice,)
    with TableGame.resume(table.game.journal.path, writable=False) as again:  # a look
        assert again.state.summary() == table.state.summary()


@pytest.mark.timeout(60)
def test_the_camera_is_told_each_new_attempt_at_a_square(tmp_path: Path) -> None:
    """An attempt that fails is followed by the next with as many dice: the camera is told
    a new roll starts (its first throw is not a reroll of the last attempt's dice)."""
    config = GameConfig(NAMES[:2], kind=GameKind.STORY)
    game = TableGame.start(tmp_path / "story.sqlite", config, load_game_data())
    told: list[int] = []
    table = TableController(game, seed=2, roll_started=told.append)
    bots = TablePlayers(table.awaits, DirectHands(table, seed=2), [GreedyBot(), RandomBot()], 2)
    for _ in range(5000):
        before, was = len(told), table.state.combat
        bots.step()
        c = table.state.combat
        attempt = table.state.phase is Phase.ATTACK and c is not None and not c.throws
        # an attempt at the square right after one thrown with as many dice
        if attempt and c is not None and was is not None and was.throws and was.pool == c.pool:
            assert told[before:] == [c.pool]
            return
    raise AssertionError("no second attempt came")


@pytest.mark.timeout(120)
@pytest.mark.parametrize("players", [2, 4])
def test_bots_play_a_whole_story_through_the_table(tmp_path: Path, players: int) -> None:
    table = _table(tmp_path, players, seed=players)
    hands = DirectHands(table, seed=players, misread_every=4)
    bots = TablePlayers(table.awaits, hands, [GreedyBot(), RandomBot()], seed=players)
    for _ in range(20_000):
        if bots.done():
            break
        bots.step()
    state = table.state
    st = state.story
    assert state.phase is Phase.OVER and st is not None and st.over and state.round == 13
    assert table.status_line().startswith("round 13/13, ")  # its last square, no extra round
    assert state.winners and table.stats.throws_read > 0 and table.stats.reads_flagged > 0
    assert "win" in table.render().phase
    with TableGame.resume(table.game.journal.path, writable=False) as again:  # a look
        assert again.state.summary() == state.summary()


def test_the_config_sets_up_story_mode_and_keeps_to_it(tmp_path: Path) -> None:
    from controller.config import parse_config
    from controller.daemon.journals import StartError, open_game

    journal = str(tmp_path / "table.sqlite")
    story = parse_config({"table": {"story": True, "journal": journal, "players": 4}})
    assert story.table.mode is GameKind.STORY
    with open_game(story, load_game_data()) as game:
        assert game.config.story and game.state.story is not None
        assert game.journal.setup["mode"] == "story"
    with open_game(story, load_game_data()) as game:  # resumed
        assert game.state.phase is Phase.ATTACK
    tournament = parse_config({"table": {"journal": journal, "players": 4}})
    with pytest.raises(StartError, match=r'holds a story game, .* mode = "tournament"'):
        open_game(tournament, load_game_data())


def test_a_misread_throw_is_corrected_with_the_buttons_and_journalled(tmp_path: Path) -> None:
    table = _table(tmp_path)
    _, dice = _combo(table)
    table.on_throw(settled(dice))
    _press(table, ButtonName.MENU)  # correct the last throw, die by die
    check = table.entry.read_check
    assert check is not None and check.fixing == 0
    _press(table, ButtonName.NEXT)  # die 1 shows the next face
    for _ in dice:
        _press(table, ButtonName.CONFIRM)
    _press(table, ButtonName.CONFIRM)  # accept the corrected dice
    faces = tuple(Symbol)
    fixed = (faces[(faces.index(dice[0]) + 1) % len(faces)], *dice[1:])
    assert table.game.journal.events()[-1] == ThrowCorrected(fixed)
    c = table.state.combat
    assert c is not None and c.throws == (fixed,) and table.stats.reads_corrected == 1
