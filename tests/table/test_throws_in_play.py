"""The camera's throws as a real table makes them (review "throws"): dice thrown again
while a read is asked about, a read of more or fewer dice than the roll has, a throw the
game does not want now, a die the reader doubts, and the roll the camera is told of."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from controller.core.symbols import Symbol
from controller.demo.players import TablePlayers
from controller.game import engine
from controller.game.bots import GreedyBot, RandomBot
from controller.game.engine import Awaiting, InputKind
from controller.game.events import DiceThrown, ThrowCorrected
from controller.game.session import TableGame
from controller.game.simulate import load_game_data
from controller.game.state import Combat, GameConfig, Length, Phase
from controller.rules.variants import Variants
from controller.table.controller import TableController
from controller.table.entry import DIE_BY_BUTTONS, THROW_NOT_WANTED, FaultSource
from hardware.controls.events import ButtonName, ButtonPressed
from hardware.displays.draw import DIE_BOX, LINE
from hardware.displays.model import PromptKind
from hardware.displays.screens import render
from tests.table.helpers import DirectHands, settled

CONFIRM = ButtonPressed(ButtonName.CONFIRM)
DICE = (Symbol.KICK, Symbol.PUNCH, Symbol.STAR, Symbol.SPHERE, Symbol.STRENGTH, Symbol.TELEPORT)


def _table(tmp_path: Path, told: list[int] | None = None) -> tuple[TableController, TablePlayers]:
    game = TableGame.start(
        tmp_path / "j.sqlite", GameConfig(("Ann", "Bob"), Length.ROUNDS5), load_game_data()
    )
    roll_started = told.append if told is not None else None
    table = TableController(game, seed=3, roll_started=roll_started)
    players = TablePlayers(table.awaits, DirectHands(table, 3), [GreedyBot(), RandomBot()], 3)
    return table, players


def _until(table: TableController, players: TablePlayers, phase: Phase) -> Combat:
    """Play on until the roll ``phase`` of an attempt, before its first throw."""
    for _ in range(5000):
        c = table.state.combat
        thrown = c is not None and (c.defence_throws if phase is Phase.DEFENCE_ROLL else c.throws)
        if table.state.phase is phase and c is not None and not thrown:
            return c
        players.step()
    raise AssertionError(f"no {phase} came")


def _dice(c: Combat, n: int | None = None) -> tuple[Symbol, ...]:
    return tuple(DICE[i % len(DICE)] for i in range(c.pool if n is None else n))


def _throws(table: TableController) -> list[DiceThrown]:
    return [e for e in table.game.journal.events() if isinstance(e, DiceThrown)]


@pytest.mark.timeout(60)
def test_a_throw_read_since_a_question_drops_the_question(tmp_path: Path) -> None:
    """A cocked die thrown again was recorded, and the "cocked" question stayed: OK on it
    entered the old read as a throw of its own, a lightning attack made a surprise one."""
    table, players = _table(tmp_path)
    c = _until(table, players, Phase.ATTACK)
    dice = _dice(c)
    table.on_throw(settled(dice, cocked=(c.pool - 1,)))
    assert table.entry.read_check is not None
    again = replace(settled(dice), kept=tuple(range(c.pool - 1)), rerolled=(c.pool - 1,))
    table.on_throw(again)
    assert table.entry.read_check is None and table.render().prompt is not None
    assert table.render().prompt.kind is not PromptKind.RETHROW
    for _ in range(3):  # the presses that entered the old read go to the game's choice
        table.on_button(CONFIRM)
    assert [t.dice for t in _throws(table)] == [dice] and table.stats.throws_read == 2


@pytest.mark.timeout(60)
def test_a_correction_under_way_is_dropped_by_a_throw(tmp_path: Path) -> None:
    """MENU opened a correction of the first throw; the player then threw again: finishing
    the correction wrote the first throw's dice over the reroll."""
    table, players = _table(tmp_path)
    c = _until(table, players, Phase.ATTACK)
    table.on_throw(settled(_dice(c)))
    table.on_button(ButtonPressed(ButtonName.MENU))
    assert table.entry.read_check is not None and table.entry.read_check.event is None
    reroll = tuple(reversed(_dice(c)))
    table.on_throw(settled(reroll, roll_no=2))
    assert table.entry.read_check is None
    assert [t.dice for t in _throws(table)] == [_dice(c), reroll]
    assert not any(isinstance(e, ThrowCorrected) for e in table.game.journal.events())


@pytest.mark.timeout(60)
@pytest.mark.parametrize("extra", [1, -1])
def test_a_read_of_another_count_says_so_and_has_each_die_entered(
    tmp_path: Path, extra: int
) -> None:
    """Seven dice for six: the first six were shown as "is this read right?" and OK took
    them; five: "die 6 is cocked", though no die was."""
    table, players = _table(tmp_path)
    c = _until(table, players, Phase.ATTACK)
    read = replace(settled(_dice(c, c.pool + extra)), expected=c.pool, count_mismatch=True)
    # a read sure of every die, of a camera not told the pool (nothing to mismatch), is
    # asked about the same (review tests rc01: it went to the rules, refused)
    table.on_throw(read if extra > 0 else replace(read, expected=None, count_mismatch=False))
    prompt = table.render().prompt
    assert prompt is not None and prompt.kind is PromptKind.RETHROW
    assert prompt.text.startswith(f"{c.pool + extra} dice seen, not {c.pool}: throw again")
    assert "cocked" not in prompt.text
    table.on_button(CONFIRM)  # enter them: every die is gone through, the missing first
    check = table.entry.read_check
    assert check is not None and check.fixing == (0 if extra > 0 else c.pool - 1)
    assert not _throws(table)
    for _ in range(c.pool + 1):
        table.on_button(CONFIRM)
    (thrown,) = _throws(table)
    assert len(thrown.dice) == c.pool


@pytest.mark.timeout(60)
def test_a_doubted_die_past_the_roll_s_count_is_not_asked_about(tmp_path: Path) -> None:
    """Seven dice read for six, the seventh doubted: once each die is entered, the last
    question is of the roll's dice, not of a die 7 the roll does not have."""
    table, players = _table(tmp_path)
    c = _until(table, players, Phase.ATTACK)
    read = replace(settled(_dice(c, c.pool + 1)), expected=c.pool, count_mismatch=True)
    table.on_throw(replace(read, unsure=(c.pool,)))
    for _ in range(c.pool + 1):  # OK to enter them, then each die as read
        table.on_button(CONFIRM)
    check = table.entry.read_check
    assert check is not None and check.fixing is None and not _throws(table)
    prompt = table.render().prompt
    assert prompt is not None and prompt.text == "is this read right?"
    render(table.render(), "prompt", (128, 64))
    table.on_button(CONFIRM)
    assert len(_throws(table)) == 1


@pytest.mark.timeout(60)
def test_a_die_the_reader_doubts_is_named_and_marked(tmp_path: Path) -> None:
    table, players = _table(tmp_path)
    c = _until(table, players, Phase.ATTACK)
    table.on_throw(replace(settled(_dice(c)), unsure=(2,)))
    prompt = table.render().prompt
    assert prompt is not None and prompt.kind is PromptKind.CONFIRM_READ
    assert (prompt.text, prompt.die_index) == ("is die 3 read right?", 2)
    table.entry.read_check = None
    table.on_throw(replace(settled(_dice(c)), unsure=(0, 4)))
    prompt = table.render().prompt
    assert prompt is not None and (prompt.text, prompt.die_index) == (
        "are dice 1, 5 read right?",
        0,
    )
    assert prompt.marked == (4,)  # each doubted die inverted, not the first alone
    drawn = render(table.render(), "prompt", (128, 64))
    inverted = [drawn.getpixel((1 + i * (DIE_BOX + 1) + 1, LINE + 3)) for i in range(6)]
    assert inverted == [1, 0, 0, 0, 1, 0]


@pytest.mark.timeout(60)
def test_a_throw_the_game_does_not_want_now_is_said_on_the_screens(tmp_path: Path) -> None:
    """It was dropped with a log line only: the screens showed nothing."""
    table, _ = _table(tmp_path)
    assert table.state.phase is Phase.FIRST_PLAYER
    table.on_throw(settled(DICE))
    assert table.faults[FaultSource.RULES] == THROW_NOT_WANTED
    view = table.render()
    assert any(f.message == THROW_NOT_WANTED for f in view.faults)
    table.on_button(ButtonPressed(ButtonName.NEXT))  # read: it goes
    assert FaultSource.RULES not in table.faults


def test_a_die_rolled_in_the_tray_for_its_number_says_the_buttons_enter_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A transformation die rolled in the tray (A l.85) was told "the table does not ask
    for dice now" beside the question asking for the die (review diff14 f02)."""
    table, _ = _table(tmp_path)
    waits = Awaiting(Phase.TRANSFORM, 0, InputKind.DIE, die_count=1)
    monkeypatch.setattr(engine, "awaiting", lambda state: waits)
    table.entry.on_throw(settled((Symbol.KICK,)))
    assert table.faults[FaultSource.RULES] == DIE_BY_BUTTONS


@pytest.mark.timeout(60)
def test_the_camera_is_told_the_roll_again_after_an_undo(tmp_path: Path) -> None:
    """UNDO from the defence roll back to the attack left the camera expecting the
    defence's dice: every reroll of the attack's was asked about as a wrong count."""
    told: list[int] = []
    table, players = _table(tmp_path, told)
    c = _until(table, players, Phase.DEFENCE_ROLL)
    assert told[-1] == c.defence_pool and c.defence_pool != c.pool
    for _ in range(6):
        if table.state.phase is Phase.ATTACK:
            break
        table.on_button(ButtonPressed(ButtonName.UNDO))
    back = table.state.combat
    assert table.state.phase is Phase.ATTACK and back is not None and back.throws
    assert told[-1] == back.pool
    count = len(told)
    table.render()
    table.on_button(ButtonPressed(ButtonName.NEXT))  # no change of roll: not told again
    assert len(told) == count


@pytest.mark.timeout(60)
def test_the_camera_is_told_when_a_roll_is_over(tmp_path: Path) -> None:
    """Review diff17 f01: the camera kept the last attack's pool as awaited through moves
    and other turns, and said "no dice found" of trays nobody threw into; a roll's end is
    told (0), once, and the next roll after it."""
    told: list[int] = []
    table, players = _table(tmp_path, told)
    c = _until(table, players, Phase.ATTACK)
    assert told == [c.pool]
    while table.state.combat is not None:
        players.step()
    assert told[1::2] == [0] * (len(told) // 2) and 0 not in told[::2]  # each roll, its end
    assert told[-1] == 0
    ended = len(told)
    nxt = _until(table, players, Phase.ATTACK)
    assert told[ended - 1 :] == [0, nxt.pool]


@pytest.mark.timeout(60)
def test_a_corrected_throw_is_offered_as_corrected(tmp_path: Path) -> None:
    """Review buttons f01, f02: a correction is folded into the throw it corrects, the
    events applied as many as before, and the chooser stayed the old throw's (its options
    and damage; after a die's correction, the die's question itself: stuck)."""
    table, players = _table(tmp_path)
    c = _until(table, players, Phase.ATTACK)
    table.on_throw(settled((Symbol.STAR,) * c.pool))
    before = table.entry.chooser
    assert before is not None
    assert table.submit(ThrowCorrected((Symbol.PUNCH,) * c.pool))
    after = table.entry.chooser
    assert after is not None and after is not before
    options = dict(engine.attack_options(table.state))
    offered = [label for label in after.labels if "sum" in label]
    assert offered == [f"symbol sum {options['sum']}"]
    assert offered != [label for label in before.labels if "sum" in label]


@pytest.mark.timeout(60)
def test_the_demo_player_judges_a_dodge_as_the_variant_does(tmp_path: Path) -> None:
    """Under B's "as many teleports as dice" the demo's player took the card's number of
    teleports for a dodge made, and stopped rerolling (review diff20)."""
    game = TableGame.start(
        tmp_path / "j.sqlite",
        GameConfig(("Ann", "Bob"), Length.ROUNDS5, Variants(dodge_needs_every_die=True)),
        load_game_data(),
    )
    table = TableController(game, seed=2)  # seed 2: a dodge needing more than the card's
    players = TablePlayers(table.awaits, DirectHands(table, 2), [GreedyBot(), RandomBot()], 2)
    for _ in range(3000):
        s, c = table.state, table.state.combat
        dodging = s.phase is Phase.DEFENCE_ROLL and c is not None and c.answer == "dodge"
        if dodging and c is not None and not c.defence_throws:
            break
        players.step()
    assert c is not None and c.answer == "dodge"
    dodger = table.state.data.fighter(c.target or c.defender, c.defender_form)
    card = dodger.dodge
    assert 1 <= card < c.defence_pool
    table.on_throw(settled((Symbol.TELEPORT,) * card + (Symbol.KICK,) * (c.defence_pool - card)))
    assert table.state.phase is Phase.DEFENCE_ROLL  # the rules: not made, throw again
    players.seen = None  # the player looks again at the table, the throw on it
    assert not players._defence_made()
