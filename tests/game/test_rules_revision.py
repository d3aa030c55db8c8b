"""A game journalled under an earlier revision of the rules plays on by the rules it began
with (``RULES_REVISION``): an upgrade never turns a saved game into one that does not
replay, or into another game."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.core.symbols import Symbol
from controller.game import engine
from controller.game.events import ChooseAttack, DiceThrown, Move, PlayCard, StepAside
from controller.game.legal import legal_actions
from controller.game.session import journalled_config
from controller.game.state import RULES_REVISION, GameConfig, GameState, Phase
from controller.storage.errors import JournalCorruptError
from tests.game.helpers import demo_data


def _at_the_extra_offer(config: GameConfig) -> GameState:
    """Kahseral fought Obuni, who survived; Bergamo, who did not move, stands by Monna."""
    state = engine.arrange(
        config,
        demo_data(),
        pieces=[("Kahseral", 0, 16), ("Obuni", 1, 18), ("Bergamo", 0, 40), ("Monna", 1, 41)],
        hands=[["Second Wind"], []],
        decks={"event": []},
    )
    for event in (
        Move(0, "Kahseral", 18),
        DiceThrown((Symbol.KICK, Symbol.PUNCH, Symbol.TELEPORT, Symbol.STAR)),
        ChooseAttack(0, "sum"),
        StepAside(0, 17),
    ):
        state = engine.apply(state, event)
    assert state.phase is Phase.EXTRA_OFFER
    return state


def _second_combats(state: GameState) -> set[tuple[str | None, str | None]]:
    return {(a.warrior, a.target) for a in legal_actions(state) if isinstance(a, PlayCard)}


def test_a_journal_without_a_revision_replays_by_the_rules_it_began_with() -> None:
    setup: dict[str, object] = {
        "config": {"players": ["A", "B"], "length": "rounds10", "variants": []}
    }
    old = journalled_config("old.db", setup)
    assert old.rules_revision == 1
    assert _second_combats(_at_the_extra_offer(old)) == {
        ("Kahseral", "Obuni"),
        ("Bergamo", "Monna"),  # any warrior of the player, as before revision 2
    }
    new = journalled_config("new.db", {"config": GameConfig(("A", "B")).to_dict()})
    assert new.rules_revision == RULES_REVISION == 2
    assert _second_combats(_at_the_extra_offer(new)) == {("Kahseral", "Obuni")}


@pytest.mark.parametrize("revision", [0, RULES_REVISION + 1, "2", True, 2.0])
def test_a_revision_this_toptable_does_not_play_is_a_damaged_set_up(revision: object) -> None:
    setup: dict[str, object] = {"config": {"players": ["A", "B"], "rules_revision": revision}}
    with pytest.raises(JournalCorruptError) as info:
        journalled_config(Path("j.db"), setup)
    assert "config.rules_revision" in str(info.value)
    assert f"expected a rules revision 1..{RULES_REVISION}" in str(info.value)
