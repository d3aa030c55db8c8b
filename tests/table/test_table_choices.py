"""What the table's choosers offer and what the buttons then enter: who starts, dice and
die numbers by hand, a correction of a die, a long press, the board's lifted token."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.core.symbols import Symbol
from controller.demo.players import TablePlayers
from controller.game.bots import GreedyBot, RandomBot
from controller.game.events import ChooseStarter, Move
from controller.game.session import TableGame
from controller.game.simulate import load_game_data
from controller.game.state import GameConfig, Length, Phase
from controller.gamedata.bundle import GameData
from controller.rules.dice import Die
from controller.table.chooser import ChooserKind
from controller.table.controller import TableController
from hardware.controls.events import ButtonName, ButtonPressed, EncoderTurned
from tests.table.helpers import DirectHands, settled
from vision.events import CameraLost, CameraRestored

CONFIRM = ButtonPressed(ButtonName.CONFIRM)
NEXT = ButtonPressed(ButtonName.NEXT)


def _table(tmp_path: Path, seed: int = 3) -> tuple[TableController, TablePlayers]:
    game = TableGame.start(
        tmp_path / "j.sqlite", GameConfig(("Ann", "Bob"), Length.ROUNDS5), load_game_data()
    )
    table = TableController(game, seed=seed)
    players = TablePlayers(table.awaits, DirectHands(table, seed), [GreedyBot(), RandomBot()], seed)
    return table, players


def _until(table: TableController, players: TablePlayers, phase: Phase) -> None:
    for _ in range(5000):
        if table.state.phase is phase:
            return
        players.step()
    raise AssertionError(f"no {phase} came")


@pytest.mark.timeout(60)
def test_who_starts_is_chosen_by_the_players_names(tmp_path: Path) -> None:
    """The youngest starts (A l.33): the screens name each player, and the name chosen
    is the one who starts."""
    table, players = _table(tmp_path)
    _until(table, players, Phase.STARTER)
    chooser = table.entry.chooser
    assert chooser is not None and chooser.labels == ("Ann", "Bob")
    table.on_button(NEXT)
    prompt = table.render().prompt
    assert prompt is not None and prompt.text == "Bob"
    table.on_button(CONFIRM)
    last = [e for e in table.game.journal.events() if isinstance(e, ChooseStarter)]
    assert [e.starter for e in last] == [1]


@pytest.mark.timeout(60)
def test_a_lifted_token_narrows_the_choice_to_its_own_moves(tmp_path: Path) -> None:
    """A token lifted from the board: the buttons then choose among that warrior's moves
    alone (an attack on an occupied space is confirmed so), not another warrior's."""
    table, players = _table(tmp_path)
    for _ in range(5000):
        chooser = table.entry.chooser
        movers = {a.warrior for a in chooser.values if isinstance(a, Move)} if chooser else set()
        if table.state.phase is Phase.MOVE and len(movers) > 1:
            break
        players.step()
    else:
        raise AssertionError("no move with two warriors to move came")
    token = sorted(movers)[-1]
    table.token_lifted(token)
    chooser = table.entry.chooser
    assert chooser is not None and chooser.title == f"move {token}"
    assert chooser.values and {a.warrior for a in chooser.values} == {token}


def _at_attack(tmp_path: Path, data: GameData | None = None) -> TableController:
    game = TableGame.start(
        tmp_path / "j.sqlite", GameConfig(("Ann", "Bob"), Length.ROUNDS5), data or load_game_data()
    )
    table = TableController(game, seed=3)
    players = TablePlayers(table.awaits, DirectHands(table, 3), [GreedyBot(), RandomBot()], 3)
    for _ in range(5000):
        c = table.state.combat
        if table.state.phase is Phase.ATTACK and c is not None and not c.throws:
            return table
        players.step()
    raise AssertionError("no attack came")


@pytest.mark.timeout(60)
def test_the_encoder_turned_back_offers_the_previous_face(tmp_path: Path) -> None:
    """Correcting a cocked die, the encoder turns both ways: back from the first face
    is the last one, not the next."""
    table = _at_attack(tmp_path)
    c = table.state.combat
    assert c is not None
    table.on_throw(settled((Symbol.KICK,) * c.pool, cocked=(0,)))
    table.on_button(CONFIRM)  # enter the cocked die: it starts on the first face
    check = table.entry.read_check
    assert check is not None and check.fixing == 0 and check.dice[0] == check.faces[0]
    table.on_encoder(EncoderTurned(-1))
    assert check.dice[0] == check.faces[-1]


@pytest.mark.timeout(60)
def test_the_read_published_offers_the_faces_of_the_games_die(tmp_path: Path) -> None:
    """Whoever corrects a read from the published snapshot (the demo's players) is offered
    the faces of the owner's die, not a face it lacks."""
    demo = load_game_data()
    die = Die("no-star", (Symbol.KICK, Symbol.PUNCH, Symbol.SPHERE, Symbol.STRENGTH,
                          Symbol.TELEPORT, Symbol.TELEPORT))  # fmt: skip
    data = GameData(demo.board, demo.roster, demo.cards, demo.story, die=die)
    table = _at_attack(tmp_path, data)
    c = table.state.combat
    assert c is not None
    table.on_throw(settled((Symbol.KICK,) * c.pool, cocked=(0,)))
    shown = table.awaits().read_check
    assert shown is not None and Symbol.STAR not in shown.faces and len(shown.faces) == 5


@pytest.mark.timeout(60)
def test_the_screens_mark_the_attack_the_cursor_is_moved_to(tmp_path: Path) -> None:
    """NEXT moves the cursor off the best attack: the combat screens mark the one now
    under it, the one a CONFIRM would take."""
    table = _at_attack(tmp_path)
    k, p, s = Symbol.KICK, Symbol.PUNCH, Symbol.STRENGTH
    table.on_throw(settled((k, k, k, p, p, s)))
    table.on_button(NEXT)
    view = table.render()
    assert view.prompt is not None and view.prompt.text == "Jiren Rush 16"
    assert view.combat is not None
    assert [(o.label, o.best) for o in view.combat.options] == [
        ("Jiren Rush", True),
        ("symbol sum", False),
    ]


@pytest.mark.timeout(60)
def test_with_the_camera_back_the_dice_are_read_again_not_entered(tmp_path: Path) -> None:
    """The camera lost then back before the throw: the buttons no longer ask for the dice
    face by face, and a throw the camera reads is the attack's."""
    table = _at_attack(tmp_path)
    table.on_camera_lost(CameraLost("/dev/video0", "unplugged", 0.0))
    lost = table.entry.chooser
    assert lost is not None and lost.kind is ChooserKind.DICE_FACES
    table.on_camera_restored(CameraRestored("/dev/video0", 1.0))
    chooser = table.entry.chooser
    assert chooser is None or chooser.kind is not ChooserKind.DICE_FACES
    assert table.awaits().camera_ok and table.render().prompt is None  # the camera gives it
    k, p, s = Symbol.KICK, Symbol.PUNCH, Symbol.STRENGTH
    table.on_throw(settled((k, k, k, p, p, s)))
    c = table.state.combat
    assert c is not None and len(c.throws) == 1


@pytest.mark.timeout(60)
def test_the_advice_goes_once_the_attack_is_chosen(tmp_path: Path) -> None:
    """The advisor's keep-and-reroll line is for the attacker's throw: during the defence
    roll that follows, the published snapshot advises no more (nor do the screens)."""
    table, players = _table(tmp_path)
    _until(table, players, Phase.DEFENCE_ROLL)
    c = table.state.combat
    assert c is not None and c.throws  # the attack's throw stands, its choice made
    assert table.awaits().advice is None
    view = table.render()
    assert view.combat is not None and view.combat.advice is None


@pytest.mark.timeout(60)
def test_a_refusal_shown_goes_once_the_camera_gives_an_accepted_throw(tmp_path: Path) -> None:
    """A refusal on screen covers the question until an action is accepted: a throw the
    camera reads, not a button, takes it off too."""
    table = _at_attack(tmp_path)
    table.on_button(ButtonPressed(ButtonName.UNDO))  # the die rolled before stands
    faults = table.render().faults
    assert [(f.source, f.message) for f in faults] == [
        ("rules", "a die's result is not undone: MENU corrects it")
    ]
    k, p, s = Symbol.KICK, Symbol.PUNCH, Symbol.STRENGTH
    table.on_throw(settled((k, k, k, p, p, s)))
    c = table.state.combat
    assert c is not None and len(c.throws) == 1
    assert table.render().faults == ()


@pytest.mark.timeout(60)
def test_the_screens_name_the_defender_during_its_defence_roll(tmp_path: Path) -> None:
    """During the defence roll the player the screens name is the one who throws now,
    the defender's, not the player whose turn it is."""
    table, players = _table(tmp_path)
    _until(table, players, Phase.DEFENCE_ROLL)
    state = table.state
    c = state.combat
    assert c is not None
    defender = state.pieces[c.defender].seat
    assert defender is not None and defender != state.seat
    view = table.render()
    assert (view.seat, view.player) == (defender, state.players[defender])


@pytest.mark.timeout(60)
def test_a_cocked_die_is_pointed_out_where_it_lies_in_the_throw(tmp_path: Path) -> None:
    """A read with its third die cocked: the screens point at that die, not the first."""
    table = _at_attack(tmp_path)
    c = table.state.combat
    assert c is not None
    table.on_throw(settled((Symbol.KICK,) * c.pool, cocked=(2,)))
    prompt = table.render().prompt
    assert prompt is not None and prompt.text.startswith("die 3 is cocked")
    assert prompt.die_index == 2
