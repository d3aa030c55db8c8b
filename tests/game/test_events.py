"""The events' JSON form: typed in memory, written as the first release wrote them."""

from __future__ import annotations

from typing import Any

import pytest

from controller.core.symbols import Symbol
from controller.game.events import (
    ChooseReward,
    CounterAttack,
    Defend,
    DiceThrown,
    EventDecodeError,
    GameEvent,
    PlayCard,
    Shuffled,
    event_from_dict,
)
from controller.game.state import WARRIOR_DECK, Answer
from controller.gamedata.cards import Deck


@pytest.mark.parametrize(
    ("event", "wire"),
    [
        (
            PlayCard(0, "Senzu Bean"),
            {"kind": "play", "seat": 0, "card": "Senzu Bean", "warrior": "", "target": "",
             "space": -1},
        ),
        (
            PlayCard(1, "Dragon Balls", "Obuni", None, 7),
            {"kind": "play", "seat": 1, "card": "Dragon Balls", "warrior": "Obuni", "target": "",
             "space": 7},
        ),
        (CounterAttack(1), {"kind": "counter", "seat": 1, "card": ""}),
        (Defend(0, Answer.NONE), {"kind": "defend", "seat": 0, "answer": "none"}),
        (Defend(0, Answer.FLEE), {"kind": "defend", "seat": 0, "answer": "flee"}),
        (Defend(1, Answer.CARD, "Guard"), {"kind": "defend", "seat": 1, "answer": "Guard"}),
        (ChooseReward(0, Deck.SPECIAL), {"kind": "reward", "seat": 0, "deck": "special"}),
        (Shuffled(WARRIOR_DECK, ("Jiren",)), {"kind": "shuffled", "deck": "warriors",
                                              "order": ["Jiren"]}),
        (
            DiceThrown((Symbol.KICK, Symbol.STAR)),
            {"kind": "dice", "dice": ["kick", "star"], "evidence": "", "corrected_from": []},
        ),
    ],
)  # fmt: skip
def test_absent_values_and_enums_keep_the_first_release_spelling(
    event: GameEvent, wire: dict[str, Any]
) -> None:
    assert event.to_dict() == wire
    back = event_from_dict(wire)
    assert back == event and type(back) is type(event)


def test_absent_values_are_none_in_memory() -> None:
    play = event_from_dict({"kind": "play", "seat": 0, "card": "X", "space": -1})
    assert isinstance(play, PlayCard)
    assert (play.warrior, play.target, play.space) == (None, None, None)
    shuffled = event_from_dict({"kind": "shuffled", "deck": "attack", "order": []})
    assert isinstance(shuffled, Shuffled) and shuffled.deck is Deck.ATTACK


@pytest.mark.parametrize(
    "wire",
    [
        {"kind": "reward", "seat": 0, "deck": "event-ish"},
        {"kind": "shuffled", "deck": "cards", "order": []},
        {"kind": "dice", "dice": ["kick", "moon"]},
        {"kind": "defend", "seat": 0, "answer": 3},
        {"kind": "defend", "seat": 0},
        {"kind": "nothing"},
    ],
)
def test_a_bad_stored_event_is_a_decode_error(wire: dict[str, Any]) -> None:
    with pytest.raises(EventDecodeError):
        event_from_dict(wire)
