"""The throws a journalled game settled on, as labelled photos (``dice table-photos``)."""

from __future__ import annotations

import random
from pathlib import Path

import cv2
import numpy as np
import pytest

from controller.cli.main import main
from controller.core.symbols import Symbol
from controller.game.bots import GreedyBot, table_input
from controller.game.events import DiceThrown, FirstPlayerChosen, ThrowCorrected
from controller.game.played_throws import PlayedFrame, frame_path, played_throws
from controller.game.session import TableGame
from controller.game.state import GameConfig, Length, Phase
from tests.game.helpers import demo_data
from vision.learning.dataset import load_dataset
from vision.reading.evidence import ThrowBoxes, write_boxes

K, P, S, T = Symbol.KICK, Symbol.PUNCH, Symbol.STAR, Symbol.TELEPORT


def test_each_throw_with_a_frame_as_the_players_left_it() -> None:
    events = [
        FirstPlayerChosen(0),
        DiceThrown((K, K), evidence="f/1.jpg"),
        ThrowCorrected((K, P)),  # folded into the throw it corrects
        DiceThrown((S,), evidence=""),  # entered by hand: no frame
        DiceThrown((T, T), evidence="f/3.jpg"),
        FirstPlayerChosen(1),  # an action: the correction after it is not folded...
        ThrowCorrected((T, S)),  # ...but still says what the dice showed
    ]
    assert played_throws(events) == [
        PlayedFrame("f/1.jpg", ("kick", "punch")),
        PlayedFrame("f/3.jpg", ("teleport", "star")),
    ]


def test_a_frame_moved_with_its_journal_is_found_in_the_journals_frames(tmp_path: Path) -> None:
    kept = tmp_path / "var" / "g.frames" / "gid" / "throw_00001.jpg"  # where the table kept it
    journal = tmp_path / "moved" / "g.sqlite"
    moved = tmp_path / "moved" / "g.frames" / "gid" / "throw_00001.jpg"
    assert frame_path(str(kept), journal, "gid") == kept  # (neither there: named as kept)
    moved.parent.mkdir(parents=True)
    moved.write_bytes(b"jpeg")
    assert frame_path(str(kept), journal, "gid") == moved
    kept.parent.mkdir(parents=True)
    kept.write_bytes(b"jpeg")
    assert frame_path(str(kept), journal, "gid") == kept  # where the journal names it first


def _attack(game: TableGame) -> int:
    """Play bots' moves until the game waits for a throw; the dice it wants."""
    rng = random.Random(3)
    while game.state.phase is not Phase.ATTACK:
        event = table_input(game.state, rng) or GreedyBot().act(game.state, rng)
        game.submit(event)
    combat = game.state.combat
    assert combat is not None
    return combat.pool


def _kept_frame(path: Path, dice: int) -> None:
    """A frame as the reader keeps it: the JPEG and its dice boxes beside it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(path), np.full((240, 320, 3), 90, np.uint8))
    boxes = tuple((10.0 + 50 * i, 30.0, 40.0, 40.0) for i in range(dice))
    write_boxes(path, ThrowBoxes((320, 240), boxes, ("kick",) * dice))


def test_table_photos_label_each_die_with_the_face_settled_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    journal = tmp_path / "g.sqlite"
    frame = tmp_path / "g.frames" / "one" / "throw_00001.jpg"
    with TableGame.start(journal, GameConfig(("A", "B"), Length.ROUNDS5), demo_data()) as game:
        pool = _attack(game)
        _kept_frame(frame, pool)
        game.submit(DiceThrown((K,) * pool, evidence=str(frame)))
        game.submit(ThrowCorrected((P,) + (S,) * (pool - 1)))  # the first die was misread
        gid = game.journal.game_id
    out = tmp_path / "table"
    assert main(["dice", "table-photos", str(journal), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith(f"wrote 1 photos ({pool} dice) to {out}\n")
    assert f"--also {out}" in printed
    (item,) = load_dataset(out).items
    assert item.image.name == f"{gid[:12]}_throw_00001.jpg"
    names = load_dataset(out).names
    assert [names[d.cls] for d in item.dice] == ["punch"] + ["star"] * (pool - 1)
    assert item.dice[0].box_px(320, 240) == pytest.approx((10, 30, 40, 40), abs=0.01)


def test_table_photos_of_a_file_that_is_no_journal_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "notes.txt"
    bad.write_text("not a journal\n", encoding="utf-8")
    assert main(["dice", "table-photos", str(bad), "--out", str(tmp_path / "t")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"toptable: error: {bad}") and err.count("\n") == 1


@pytest.mark.parametrize("kind", ["dbz-tcg", "challengers"])
def test_table_photos_of_a_companion_journal_names_its_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    from controller.companion.journal import CompanionJournal
    from controller.core.kinds import GameKind

    journal = tmp_path / f"companion-{kind}.sqlite"
    CompanionJournal.start(journal, GameKind(kind), ["Ann", "Bob"]).close()
    assert main(["dice", "table-photos", str(journal), "--out", str(tmp_path / "t")]) == 2
    assert capsys.readouterr().err == (
        f"toptable: error: {journal}: a {kind} companion game's journal, not a Tournament "
        "of Power game's (tournament or story mode): it keeps no dice throws or frames\n"
    )
    assert not (tmp_path / "t").exists()
