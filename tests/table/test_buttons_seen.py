"""The buttons act on what a screen shows (review 101): a chooser the screens hid is shown
by the first press, the attack option marked is the one under the cursor, UNDO takes back
the last face entered by hand, a refusal goes with the next press, and MENU corrects only
what a correction can still replace (a throw, or a die's result)."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.core.symbols import Symbol
from controller.game.events import ChooseAttack, DiceThrown, DieCorrected, DieRolled, Move
from controller.game.state import Phase
from controller.table.chooser import ChooserKind
from controller.table.controller import TableController
from controller.table.entry import NOTHING_TO_CORRECT, FaultSource
from controller.table.read_check import die_faces
from hardware.controls.events import ButtonName, ButtonPressed
from tests.table.helpers import settled
from tests.table.test_entry import _at_attack, _table, _until_transform
from vision.events import CameraLost

pytestmark = pytest.mark.timeout(120)

CONFIRM, NEXT, UNDO, MENU = (ButtonPressed(b) for b in ButtonName)
THROW = (Symbol.KICK, Symbol.PUNCH, Symbol.STAR, Symbol.STAR, Symbol.SPHERE, Symbol.STRENGTH)


def _events(table: TableController) -> list[object]:
    return list(table.game.journal.events())


def _until_move(tmp_path: Path) -> TableController:
    table, players = _table(tmp_path, seed=3)
    for _ in range(5000):
        if table.state.phase is Phase.MOVE:
            return table
        players.step()
    raise AssertionError("no move came")


@pytest.mark.parametrize("long", [False, True])
def test_a_move_the_board_gives_is_not_chosen_unseen(tmp_path: Path, long: bool) -> None:
    """With the board working no screen shows the move chooser: a CONFIRM (or a long
    one) journalled its first move, a move nobody saw, the board disagreeing."""
    table = _until_move(tmp_path)
    assert table.view is not None and table.view.prompt is None
    before = _events(table)
    table.on_button(ButtonPressed(ButtonName.CONFIRM, long))
    assert _events(table) == before  # shown, not taken
    assert table.view.prompt is not None and table.view.prompt.step == 1
    table.on_button(CONFIRM)  # now seen: taken
    assert isinstance(_events(table)[-1], Move)


def test_the_attack_option_shown_is_the_one_the_buttons_take(tmp_path: Path) -> None:
    """Before the throw the camera gives the dice (no question); after it, the choice is
    asked on the screens (a table may have no combat screen: review 105), and the combat
    screens mark the option under the cursor."""
    table, combat = _at_attack(tmp_path)
    assert table.view is not None and table.view.prompt is None
    table.on_throw(settled(THROW[: combat.pool]))
    view = table.view
    assert view is not None and view.combat is not None and view.prompt is not None
    first = view.combat.best
    assert first is not None and first.best  # the best, the cursor's start
    table.on_button(NEXT)
    chooser = table.entry.chooser
    assert chooser is not None and isinstance(chooser.value, ChooseAttack)
    marked = table.view.combat.best if table.view and table.view.combat else None
    assert marked is not None and marked is not first and marked.best
    prompt = table.view.prompt if table.view else None
    assert prompt is not None and prompt.text == chooser.labels[chooser.selected]
    table.on_button(CONFIRM)
    taken = _events(table)[-1]
    assert isinstance(taken, ChooseAttack) and taken.option == chooser.value.option


def test_undo_while_entering_dice_by_hand_takes_back_the_last_face(tmp_path: Path) -> None:
    table, combat = _at_attack(tmp_path)
    table.on_camera_lost(CameraLost("/dev/video0", "unplugged", 0.0))
    before = _events(table)
    table.on_button(CONFIRM)  # die 1: the first face
    table.on_button(NEXT)
    table.on_button(CONFIRM)  # die 2: the second
    table.on_button(UNDO)  # the second face, not the move that began the combat
    assert _events(table) == before and table.state.phase is Phase.ATTACK
    assert table.entry.faces_entered == [die_faces(table.state)[0]]
    chooser = table.entry.chooser
    assert chooser is not None and chooser.title == "die 2"
    for _ in range(combat.pool - 1):
        table.on_button(CONFIRM)
    thrown = _events(table)[-1]
    assert isinstance(thrown, DiceThrown) and len(thrown.dice) == combat.pool


def test_a_refusal_goes_with_the_next_press_and_is_said_in_the_tables_words(
    tmp_path: Path,
) -> None:
    table, _ = _table(tmp_path)
    table.on_button(UNDO)  # at the start: nothing to undo (the journal's path was shown)
    assert table.faults[FaultSource.RULES] == "nothing to undo"
    assert table.view is not None and table.view.prompt is not None  # the question stays
    table.on_button(CONFIRM)  # who drafts first: seat 0
    assert FaultSource.RULES not in table.faults
    table.on_button(UNDO)
    assert table.faults[FaultSource.RULES] == "who drafts first is not undone"
    table.on_button(NEXT)
    assert FaultSource.RULES not in table.faults


def test_menu_after_the_attack_is_chosen_says_undo_comes_first(tmp_path: Path) -> None:
    """The correction was offered die by die, then refused as an event not expected."""
    table, combat = _at_attack(tmp_path)
    table.on_throw(settled(THROW[: combat.pool]))
    table.on_button(CONFIRM)  # the attack is chosen: the throw is used
    assert isinstance(_events(table)[-1], ChooseAttack)
    table.on_button(MENU)
    assert table.entry.read_check is None
    assert table.faults[FaultSource.RULES] == NOTHING_TO_CORRECT
    table.on_button(UNDO)  # the choice taken back: the throw is open again
    table.on_button(MENU)
    check = table.entry.read_check
    assert check is not None and check.fixing == 0
    assert check.dice == list(THROW[: combat.pool])


def test_menu_corrects_a_transformation_die(tmp_path: Path) -> None:
    table = _until_transform(tmp_path)
    chooser = table.entry.chooser
    assert chooser is not None and chooser.kind is ChooserKind.DIE_NUMBERS
    count = chooser.count
    for _ in range(count):
        table.on_button(CONFIRM)  # each die read as 1
    rolled = _events(table)[-1]
    assert rolled == DieRolled((1,) * count)
    table.on_button(UNDO)
    assert table.faults[FaultSource.RULES] == "a die's result is not undone: MENU corrects it"
    table.on_button(MENU)
    chooser = table.entry.chooser
    assert chooser is not None and chooser.title == "correct die 1"
    for _ in range(count):
        table.on_button(NEXT)
        table.on_button(CONFIRM)  # each die really showed a 2
    assert _events(table)[-1] == DieCorrected((2,) * count)
    played = table.game.events()  # the correction folded into the roll it mends
    assert DieRolled((2,) * count) in played and DieRolled((1,) * count) not in played
    # the buttons go on with the game, not with the corrected die's question (stuck: its
    # answer was refused as a correction with nothing left to correct)
    after = table.entry.chooser
    assert after is None or not after.title.startswith("correct die")
    table.on_button(CONFIRM)
    assert FaultSource.RULES not in table.faults
