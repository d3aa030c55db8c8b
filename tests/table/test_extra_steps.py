"""A second combat's step onto a green space, made on the board (rules revision 4, A l.39):
the token moved there is the legal step, the Event's before a card."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from controller.core.errors import IllegalActionError
from controller.game import engine
from controller.game.events import GameEvent, PlayCard, StepAside, event_from_dict
from controller.game.state import GameState, Phase
from controller.table.entry import FaultSource, TableEntry
from controller.table.extra_steps import extra_green_step
from tests.game.helpers import build
from tests.paths import SCENARIOS


class _Owner:
    """The game's holder as the table's entry sees it, over an arranged state."""

    def __init__(self, state: GameState) -> None:
        self.state = state
        self.faults: dict[FaultSource, str] = {}
        self.submitted: list[GameEvent] = []

    def submit(self, event: GameEvent) -> bool:
        try:
            self.state = engine.apply(self.state, event)
        except IllegalActionError:
            return False
        self.submitted.append(event)
        return True

    def undo(self) -> None:  # pragma: no cover - not used here
        raise AssertionError

    def correctable(self) -> None:  # pragma: no cover - not used here
        raise AssertionError

    def next_game(self) -> None:  # pragma: no cover - not used here
        raise AssertionError


def _at_offer(name: str, hand: list[str] | None = None) -> GameState:
    """The state of scenario ``name`` after its first step: Kahseral has eliminated Obuni on
    17, beside the empty green space 24, and the extra-combat offer is open."""
    path = SCENARIOS / "game" / f"{name}.toml"
    sc = tomllib.loads(path.read_text(encoding="utf-8"))
    if hand is not None:
        sc["hands"] = [hand, []]
    state = build(sc, Path(path))
    for raw in sc["step"][0]["events"]:
        state = engine.apply(state, event_from_dict(raw))
    assert state.phase is Phase.EXTRA_OFFER and state.fighter == "Kahseral"
    return state


def _moved(state: GameState, token: str, src: int, dst: int) -> _Owner:
    owner = _Owner(state)
    TableEntry(owner).on_board_move(token, src, dst)
    return owner


def test_the_events_step_is_taken_from_the_board_before_a_card() -> None:
    state = _at_offer("second_combat_onto_green_after_an_elimination_event", ["Second Wind"])
    owner = _moved(state, "Kahseral", 17, 24)
    assert owner.submitted == [StepAside(0, 24)]  # the Event's: no card spent
    assert owner.state.combat is not None and owner.state.combat.arena == 24


def test_the_one_card_that_grants_it_is_played_from_the_board() -> None:
    owner = _moved(_at_offer("second_combat_onto_green_after_an_elimination"), "Kahseral", 17, 24)
    assert owner.submitted == [PlayCard(0, "Second Wind", space=24)]
    assert owner.state.combat is not None and owner.state.combat.defender == "Zium"


def test_a_move_that_is_no_such_step_is_left_alone() -> None:
    state = _at_offer("second_combat_onto_green_after_an_elimination")
    assert _moved(state, "Kahseral", 17, 23).submitted == []  # not green
    assert _moved(state, "Harmira", 40, 24).submitted == []  # not the warrior that fought


def test_two_cards_that_grant_it_are_chosen_with_the_buttons(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The demo deck has one such card; with two, the board cannot tell which is spent."""
    state = _at_offer("second_combat_onto_green_after_an_elimination")
    two = [PlayCard(0, "Second Wind", space=24), PlayCard(0, "Another Wind", space=24)]
    monkeypatch.setattr("controller.table.extra_steps.legal_actions", lambda s: two)
    assert extra_green_step(state, "Kahseral", 24) is None
    monkeypatch.setattr("controller.table.extra_steps.legal_actions", lambda s: two[:1] * 2)
    assert extra_green_step(state, "Kahseral", 24) == two[0]
