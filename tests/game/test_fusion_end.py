"""A fused warrior eliminated takes its two partners with it (docs/rules.md §11): they
leave the game as eliminated, not as fused into a warrior who is gone (review tests2 e07:
no test saw the partners' state after it)."""

from __future__ import annotations

import tomllib

from controller.game import engine
from controller.game.engine.fusion import eliminate
from controller.game.events import PlayCard
from tests.game.helpers import build
from tests.paths import SCENARIOS


def test_a_fused_warrior_eliminated_takes_its_partners_with_it() -> None:
    path = SCENARIOS / "game" / "card_fusion.toml"
    state = build(tomllib.loads(path.read_text(encoding="utf-8")), path)
    state = engine.apply(state, PlayCard(0, "Fusion Dance", "Kefla"))
    assert state.pieces["Kale"].fused_into == "Kefla"
    eliminate(state, "Kefla", 16)
    for partner in ("Kale", "Caulifla"):
        piece = state.pieces[partner]
        assert piece.eliminated and piece.fused_into == "" and piece.last_space == 16
    assert state.counts()[0] == 0
