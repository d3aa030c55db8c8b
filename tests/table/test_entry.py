"""Entering throws and moves: typed choosers, dice by hand, reads checked by a person, and
the snapshot the table publishes after each change."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import cast

import pytest

from controller.core.symbols import Symbol
from controller.demo.players import TablePlayers
from controller.game import engine
from controller.game.bots import GreedyBot, RandomBot
from controller.game.events import DiceThrown, FirstPlayerChosen, Move, Pass, PlayCard
from controller.game.session import TableGame
from controller.game.simulate import load_game_data
from controller.game.state import Combat, GameConfig, Length, Phase
from controller.gamedata.bundle import GameData
from controller.rules.dice import Die
from controller.table.awaits import TableAwaits
from controller.table.chooser import ENTER_DICE, ChooserKind
from controller.table.controller import TableController
from controller.table.entry import FaultSource, GameOwner, TableEntry
from hardware.controls.events import ButtonName, ButtonPressed
from hardware.displays.model import PromptKind
from tests.table.helpers import DirectHands, settled
from vision.events import CameraLost, ThrowSettled
from vision.reading.evidence import boxes_path

CONFIRM = ButtonPressed(ButtonName.CONFIRM)


def _table(
    tmp_path: Path, seed: int = 1, data: GameData | None = None
) -> tuple[TableController, TablePlayers]:
    data = data or load_game_data()
    game = TableGame.start(tmp_path / "j.sqlite", GameConfig(("Ann", "Bob"), Length.ROUNDS5), data)
    table = TableController(game, seed=seed)
    players = TablePlayers(table.awaits, DirectHands(table, seed), [GreedyBot(), RandomBot()], seed)
    return table, players


def _at_attack(tmp_path: Path) -> tuple[TableController, Combat]:
    """A table of seed 3 at its first attack before any throw, and that combat."""
    table, players = _table(tmp_path, seed=3)
    _until_attack(table, players)
    c = table.state.combat
    assert c is not None
    return table, c


def _until_attack(table: TableController, players: TablePlayers) -> None:
    for _ in range(5000):
        c = table.state.combat
        if table.state.phase is Phase.ATTACK and c is not None and not c.throws:
            return
        players.step()
    raise AssertionError("no attack came")


@pytest.mark.timeout(60)
def test_the_first_player_is_a_seat_chooser(tmp_path: Path) -> None:
    table, _ = _table(tmp_path)
    chooser = table.entry.chooser
    assert chooser is not None and chooser.kind is ChooserKind.SEAT
    assert chooser.values == (0, 1)
    table.on_button(ButtonPressed(ButtonName.NEXT))
    table.on_button(CONFIRM)
    assert table.game.journal.events()[0] == FirstPlayerChosen(1)


@pytest.mark.timeout(60)
def test_without_the_camera_a_throw_is_entered_face_by_face(tmp_path: Path) -> None:
    table, players = _table(tmp_path, seed=2)
    _until_attack(table, players)
    table.on_camera_lost(CameraLost("/dev/video0", "unplugged", 0.0))
    chooser = table.entry.chooser
    c = table.state.combat
    assert chooser is not None and c is not None
    assert chooser.kind is ChooserKind.DICE_FACES and chooser.count == c.pool
    table.on_button(ButtonPressed(ButtonName.NEXT))  # the first die shows a punch
    for _ in range(c.pool):
        table.on_button(CONFIRM)
    last = table.game.journal.events()[-1]
    assert isinstance(last, DiceThrown)
    assert last.dice[0] == Symbol(tuple(Symbol)[1]) and len(last.dice) == c.pool
    # a reroll is offered beside the actions, as a typed choice
    chooser = table.entry.chooser
    if table.state.phase is Phase.ATTACK and chooser is not None:
        assert chooser.kind is ChooserKind.ACTIONS
        if ENTER_DICE in chooser.values:
            assert chooser.count == c.pool


@pytest.mark.timeout(60)
def test_only_the_faces_of_the_games_die_are_offered(tmp_path: Path) -> None:
    """Review 97: the dice entry offered every symbol, and a face the owner's die lacks was
    refused by the engine (a RULES fault on the screens)."""
    demo = load_game_data()
    die = Die("no-star", (Symbol.KICK, Symbol.PUNCH, Symbol.SPHERE, Symbol.STRENGTH,
                          Symbol.TELEPORT, Symbol.TELEPORT))  # fmt: skip
    data = GameData(demo.board, demo.roster, demo.cards, demo.story, die=die)
    table, players = _table(tmp_path, seed=2, data=data)
    _until_attack(table, players)
    table.on_camera_lost(CameraLost("/dev/video0", "unplugged", 0.0))
    chooser = table.entry.chooser
    assert chooser is not None and chooser.kind is ChooserKind.DICE_FACES
    assert Symbol.STAR not in chooser.values and len(chooser.values) == 5
    c = table.state.combat
    assert c is not None
    table.on_throw(settled((Symbol.KICK,) * c.pool, cocked=(0,)))
    table.on_button(CONFIRM)  # enter the cocked die: its faces are the die's
    check = table.entry.read_check
    assert check is not None and check.faces == chooser.values
    for _ in range(7):
        table.on_button(ButtonPressed(ButtonName.NEXT))
        assert check.dice[0] in check.faces


@pytest.mark.timeout(60)
def test_a_cocked_die_is_entered_by_a_person(tmp_path: Path) -> None:
    table, c = _at_attack(tmp_path)
    before = table.state.events_applied
    dice = (Symbol.KICK,) * c.pool
    table.on_throw(settled(dice, cocked=(0,)))
    assert table.entry.read_check is not None
    prompt = table.render().prompt
    assert prompt is not None and prompt.kind is PromptKind.RETHROW
    table.on_button(CONFIRM)  # enter the cocked die: it starts on the first face
    assert table.entry.read_check.fixing == 0
    for _ in range(c.pool):
        table.on_button(CONFIRM)  # keep each face shown
    table.on_button(CONFIRM)  # the read is right
    assert table.entry.read_check is None
    assert table.state.events_applied > before
    assert table.stats.reads_flagged == 1


@pytest.mark.timeout(60)
def test_the_table_publishes_a_snapshot_after_each_change(tmp_path: Path) -> None:
    table, players = _table(tmp_path, seed=4)
    seen: list[TableAwaits] = []
    table.watchers.append(seen.append)
    table.on_button(ButtonPressed(ButtonName.NEXT))
    assert seen and seen[-1].chooser is not None and seen[-1].chooser.selected == 1
    snapshot = seen[-1]
    table.on_button(CONFIRM)
    assert seen[-1].events_applied > snapshot.events_applied
    assert snapshot.state.events_applied == 0  # a snapshot does not change afterwards
    assert snapshot.chooser is not None and snapshot.chooser.selected == 1
    _until_attack(table, players)
    players.step()  # the attacker throws: the advisor's best choice is published
    now = table.awaits()
    if now.state.phase is Phase.ATTACK:
        assert now.advice is not None and now.reads == table.stats.throws_read


def test_throws_before_the_game_wants_them_are_said_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    table, _ = _table(tmp_path)
    assert table.state.phase is Phase.FIRST_PLAYER
    early = settled((Symbol.KICK, Symbol.PUNCH))
    with caplog.at_level("INFO", logger="controller.table.entry"):
        for _ in range(5):  # a camera feeding throws every few seconds
            table.on_throw(early)
    said = [r for r in caplog.records if "read a throw" in r.getMessage()]
    assert [r.getMessage() for r in said] == [
        "the camera read a throw while the game waits for first_player, not for dice: throws "
        "are ignored until the game asks for one (said once; counted in the table's "
        "unexpected throws)"
    ]
    assert said[0].levelname == "WARNING"
    assert table.entry.stats.unexpected_throws == 5


def _until_transform(tmp_path: Path) -> TableController:
    for seed in range(12):
        folder = tmp_path / str(seed)
        folder.mkdir()
        table, players = _table(folder, seed=seed)
        for _ in range(5000):
            if table.state.phase is Phase.TRANSFORM:
                return table
            if table.state.phase is Phase.OVER:
                break
            players.step()
    raise AssertionError("no transformation came in 12 games")


@pytest.mark.timeout(120)
def test_a_transformation_may_be_declined_at_the_table(tmp_path: Path) -> None:
    """Transforming is a choice (A l.89): the die chooser offers the base form too."""
    table = _until_transform(tmp_path)
    chooser = table.entry.chooser
    assert chooser is not None and chooser.kind is ChooserKind.DIE_NUMBERS
    assert chooser.labels == ("1", "2", "3", "4", "5", "6", "keep the base form")
    for _ in range(6):
        table.on_button(ButtonPressed(ButtonName.NEXT))
    table.on_button(CONFIRM)
    last = table.game.journal.events()[-1]
    assert isinstance(last, Pass) and table.state.phase is not Phase.TRANSFORM


class _NoOwner:
    """The chooser is built from the state alone: nothing is submitted."""

    def __init__(self) -> None:
        self.faults: dict[FaultSource, str] = {}


def test_the_fusion_card_is_offered_at_the_table() -> None:
    """A defender holding the Fusion card chooses between playing it and passing (A l.209,
    l.368); the die is not offered."""
    state = engine.arrange(
        GameConfig(("Ann", "Bob")), load_game_data(),
        pieces=[("Kahseral", 0, 16), ("Kale", 1, 18), ("Caulifla", 1, 18)],
        hands=[[], ["Fusion Dance"]], decks={"event": []},
    )  # fmt: skip
    state = engine.apply(state, Move(0, "Kahseral", 18))
    entry = TableEntry(cast(GameOwner, _NoOwner()))
    entry.rebuild(state)
    chooser = entry.chooser
    assert chooser is not None and chooser.kind is ChooserKind.ACTIONS
    assert chooser.title == "fusion?"  # the turn screen's word for it (PHASE_TEXT)
    assert chooser.labels == ("pass", "Fusion Dance > Kefla")
    assert chooser.values[1] == PlayCard(1, "Fusion Dance", "Kefla")


@pytest.mark.timeout(60)
def test_a_read_of_dice_that_did_not_move_is_no_throw(tmp_path: Path) -> None:
    """A reroll's read whose every die lies where the last read saw it, with its face (a hand
    passed over the tray, a camera's exposure settling anew) is not submitted: it used to
    count as a throw, a lightning attack turned into a surprise one."""
    table, c = _at_attack(tmp_path)
    before = table.state.events_applied
    dice = (Symbol.KICK,) * c.pool
    unmoved = replace(settled(dice, roll_no=2), kept=tuple(range(c.pool)), rerolled=())
    table.on_throw(unmoved)
    assert table.state.events_applied == before and table.stats.unmoved_reads == 1
    assert table.stats.throws_read == 0 and table.entry.read_check is None
    # dice lifted out to be thrown again: those left lie where they were (review "throws"
    # f02: it asked about them as a throw with a die "cocked"), an attempt's first too
    short = replace(unmoved, faces=unmoved.faces[1:], boxes=unmoved.boxes[1:],
                    confidences=unmoved.confidences[1:], kept=tuple(range(c.pool - 1)),
                    count_mismatch=True, roll_no=1)  # fmt: skip
    table.on_throw(short)
    assert table.entry.read_check is None and table.stats.unmoved_reads == 2
    table.on_throw(settled(dice, roll_no=2))  # every die thrown again
    assert table.state.events_applied > before and table.stats.throws_read == 1


@pytest.mark.timeout(60)
def test_the_snapshot_counts_every_read_the_camera_reported_used_or_not(tmp_path: Path) -> None:
    """Whoever watches the published snapshot (the demo's players) sees each read the
    camera reported counted, a read of dice that did not move too, and the last of them."""
    table, c = _at_attack(tmp_path)
    dice = (Symbol.KICK,) * c.pool
    assert table.awaits().reads == 0
    unmoved = replace(settled(dice, roll_no=2), kept=tuple(range(c.pool)), rerolled=())
    table.on_throw(unmoved)
    seen = table.awaits()
    assert (seen.reads, seen.last_read) == (1, unmoved)
    table.on_throw(settled(dice))
    assert table.awaits().reads == 2


def _photographed(event: ThrowSettled, folder: Path, n: int) -> ThrowSettled:
    """``event`` with an evidence photo and its boxes, as the reader keeps them."""
    photo = folder / f"throw_{n:05d}.jpg"
    photo.write_bytes(b"\xff\xd8 a frame")
    boxes_path(photo).write_text("{}", encoding="utf-8")
    return replace(event, evidence_path=str(photo))


def _kept(event: ThrowSettled) -> bool:
    assert event.evidence_path is not None
    return Path(event.evidence_path).exists() or boxes_path(event.evidence_path).exists()


def test_a_read_the_table_does_not_take_leaves_no_photo(tmp_path: Path) -> None:
    """A settled read the game waits for no dice for, or of dice nobody threw, is named by
    no journal row: its photo was kept all the same, one a settle all evening (review 109)."""
    for folder in ("early", "attack"):
        (tmp_path / folder).mkdir()
    table, _ = _table(tmp_path / "early")
    early = _photographed(settled((Symbol.KICK, Symbol.PUNCH)), tmp_path, 1)
    table.on_throw(early)
    assert table.stats.unexpected_throws == 1 and not _kept(early)
    table, c = _at_attack(tmp_path / "attack")
    dice = (Symbol.KICK,) * c.pool
    thrown = _photographed(settled(dice), tmp_path, 2)
    unmoved = _photographed(
        replace(settled(dice, roll_no=2), kept=tuple(range(c.pool)), rerolled=()), tmp_path, 3
    )
    table.on_throw(unmoved)
    assert table.stats.unmoved_reads == 1 and not _kept(unmoved)
    table.on_throw(thrown)
    assert table.stats.throws_read == 1 and _kept(thrown)  # the journal names this one


def test_a_read_check_dropped_leaves_no_photo(tmp_path: Path) -> None:
    """A read being checked that is thrown again, or undone, is named by no journal row:
    its photo was kept (review 111)."""
    table, c = _at_attack(tmp_path)
    dice = (Symbol.KICK,) * c.pool
    first = _photographed(settled(dice, cocked=(0,)), tmp_path, 1)
    table.on_throw(first)
    assert table.entry.read_check is not None and _kept(first)
    again = _photographed(settled(dice, cocked=(0,)), tmp_path, 2)
    table.on_throw(again)
    assert not _kept(first) and _kept(again)
    table.on_button(ButtonPressed(ButtonName.UNDO))
    assert table.entry.read_check is None and not _kept(again)


def test_a_throw_the_rules_refuse_leaves_no_photo(tmp_path: Path) -> None:
    """A throw refused (nothing journalled) kept its photo, named by no row."""
    table, c = _at_attack(tmp_path)
    refused = _photographed(settled((Symbol.KICK,) * (c.pool + 1)), tmp_path, 1)
    assert refused.evidence_path is not None
    assert not table.submit(DiceThrown((Symbol.KICK,) * (c.pool + 1), refused.evidence_path))
    assert table.stats.refused and not _kept(refused)
    taken = _photographed(settled((Symbol.KICK,) * c.pool), tmp_path, 2)
    assert taken.evidence_path is not None
    assert table.submit(DiceThrown((Symbol.KICK,) * c.pool, taken.evidence_path))
    assert _kept(taken)
