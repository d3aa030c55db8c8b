"""A huge value from outside the engine (a journal's row, an event's text from the
table's link or the command line) is quoted in part in the engine's refusals and the
event decoder's errors (:func:`controller.core.quoting.short_repr`): one short line."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from controller.cli.main import main
from controller.core.errors import IllegalActionError, InvalidThrowError
from controller.core.kinds import GameKind
from controller.game import engine
from controller.game.events import (
    ChooseAttack,
    CounterAttack,
    Defend,
    Discard,
    Draft,
    DuelPick,
    EventDecodeError,
    ExtraCombat,
    GameEvent,
    Move,
    Place,
    PlayCard,
    event_from_dict,
)
from controller.game.legal import legal_actions
from controller.game.simulate import play_game
from controller.game.state import Answer, GameConfig, GameState, Length
from tests.game.helpers import demo_data
from tests.game.test_journal_rows import _journal, _rechain

HUGE = "x" * 100_000
CUT = "(100000 characters)"
LONGEST = 300


def _states(kind: GameKind) -> list[GameState]:
    """Every state of a bot game of two players."""
    config = GameConfig(("P1", "P2"), Length.ROUNDS5, game_id="huge", kind=kind)
    states = [engine.new_game(config, demo_data())]

    def submit(event: GameEvent) -> GameState:
        states.append(engine.apply(states[-1], event))
        return states[-1]

    play_game(config, demo_data(), 1, submit=submit)
    return states


@pytest.mark.parametrize(
    ("kind", "named"),
    [
        (GameKind.TOURNAMENT, {"Place", "Discard", "ChooseAttack", "Defend"}),
        (GameKind.STORY, {"ChooseAttack"}),
    ],
)
def test_the_engine_quotes_a_huge_name_in_part(kind: GameKind, named: set[str]) -> None:
    """Each action naming a warrior, a card or an option, given a 100,000-character name
    at every point of a bot game where its seat may act: each refusal is short, and
    those that name the value show its start and its length."""
    quoted: set[str] = set()
    for state in _states(kind):
        for seat in {a.seat for a in legal_actions(state)}:
            for event in (
                Draft(seat, HUGE), Place(seat, HUGE, 0), Discard(seat, HUGE),
                PlayCard(seat, HUGE), PlayCard(seat, "Kamehameha", HUGE), Move(seat, HUGE, 0),
                ChooseAttack(seat, HUGE), Defend(seat, Answer.CARD, HUGE),
                ExtraCombat(seat, HUGE, HUGE), DuelPick(seat, HUGE), CounterAttack(seat, HUGE),
            ):  # fmt: skip
                try:
                    engine.apply(state, event)
                except (IllegalActionError, InvalidThrowError) as exc:
                    assert len(str(exc)) < LONGEST, f"{type(event).__name__}: {str(exc)[:120]}"
                    if CUT in str(exc):
                        quoted.add(type(event).__name__)
    assert named <= quoted, quoted


@pytest.mark.parametrize(
    ("data", "said"),
    [
        ({"kind": HUGE}, "unknown event kind 'xxx"),
        ({"kind": "discard", "seat": 0, "card": [1] * 5000}, "expected text, got [1, 1,"),
        ({"kind": "reward", "seat": 0, "deck": HUGE}, "expected one of attack, "),
        ({"kind": "dice", "dice": HUGE}, "expected a list, got 'xxx"),
        ({"kind": "defend", "seat": HUGE, "answer": "none"}, "expected a whole number, got 'xx"),
        # a die that is no text, and a time past a float's range: a traceback (review fuzz)
        ({"kind": "dice", "dice": ["kick", 3]}, "expected a face name, got 3"),
        ({"kind": "dice", "dice": [None]}, "expected a face name, got None"),
        ({"kind": "clock_started", "at": 10**400}, "expected a finite number, got 1000"),
    ],
)
def test_an_event_with_a_huge_value_is_refused_in_one_short_line(
    data: dict[str, object], said: str
) -> None:
    with pytest.raises(EventDecodeError) as err:
        event_from_dict(data)
    assert said in str(err.value) and len(str(err.value)) < LONGEST


def test_a_row_stored_as_a_huge_kind_is_named_in_part(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "g.sqlite"
    _journal(path)
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE events SET kind = ? WHERE seq = 2", (HUGE,))
        _rechain(conn)
    assert main(["game", "check", str(path)]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"toptable: error: {path}: row 2 is stored as '{'x' * 40}...' {CUT} but holds "
        "a 'draft' event\n"
    )
