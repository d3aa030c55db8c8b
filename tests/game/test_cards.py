"""The cards file: the demo deck, and malformed files reported with file, card and field."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from controller.core.errors import DataError
from controller.gamedata.bundle import load_game_data
from controller.gamedata.cards import Deck, EffectKind, Timing, load_cards, parse_cards
from tests.paths import REPO

DEMO = REPO / "controller" / "data" / "demo"


def test_demo_deck_is_invented_and_uses_every_primitive() -> None:
    cards = load_cards(DEMO / "cards.toml")
    assert cards.invented
    assert "INVENTED" in (DEMO / "cards.toml").read_text(encoding="utf-8")
    kinds = {c.effect.kind for c in cards.cards.values()}
    assert kinds == set(EffectKind)
    assert all(cards.decks[d] for d in Deck)
    assert cards.card("Kamehameha").combo_view().damage == 22
    assert cards.decks[Deck.ATTACK].count("Kamehameha") == 3


def test_all_problems_reported_at_once() -> None:
    data = {
        "invented": True,
        "card": [
            {"name": "Ok", "deck": "attack", "timing": "attack", "combo": ["kick"], "effect": {"kind": "damage", "amount": 5}},
            {"name": "Ok", "deck": "attack", "timing": "attack", "combo": ["kick"], "effect": {"kind": "damage", "amount": 5}},
            {"name": "BadDeck", "deck": "hand", "timing": "attack", "effect": {"kind": "damage", "amount": 5}},
            {"name": "BadCombo", "deck": "attack", "timing": "attack", "combo": ["star", "fist"], "effect": {"kind": "damage", "amount": 5}},
            {"name": "BadTiming", "deck": "defence", "timing": "attack", "effect": {"kind": "prevent"}},
            {"name": "NoAmount", "deck": "special", "timing": "start_of_turn", "effect": {"kind": "heal"}},
            {"name": "BadEffect", "deck": "special", "timing": "start_of_turn", "effect": {"kind": "teleport"}},
            {"name": "EventTiming", "deck": "event", "timing": "start_of_turn", "effect": {"kind": "heal", "amount": 2}},
            {"name": "Extra", "deck": "defence", "timing": "defence", "effect": {"kind": "dodge"}, "colour": "red"},
            {"name": "DrawEvent", "deck": "special", "timing": "start_of_turn", "effect": {"kind": "draw", "amount": 1, "deck": "event"}},
            {"name": "NoComboDamage", "deck": "attack", "timing": "attack", "effect": {"kind": "damage", "amount": 5}},
        ],
    }  # fmt: skip
    with pytest.raises(DataError) as info:
        parse_cards(data, "cards.toml")
    text = str(info.value)
    for needle in (
        "card 'Ok': field 'name': duplicate card name",
        "card 'BadDeck': field 'deck'",
        "card 'BadCombo': field 'combo': a combo cannot ask for a star",
        "card 'BadCombo': field 'combo': unknown symbol",
        "card 'BadTiming': field 'timing': a prevent effect is played at defence",
        "card 'NoAmount': field 'effect': a heal effect needs amount >= 1",
        "card 'BadEffect': field 'effect': kind",
        "card 'EventTiming': field 'timing'",
        "card 'Extra': field 'colour': unknown key",
        "card 'DrawEvent': field 'effect': deck: cannot draw from the event deck",
        "card 'NoComboDamage': field 'combo': an attack card that deals damage needs a combo",
        "the event deck has no card",
    ):
        assert needle in text, needle
    assert all(p.file == "cards.toml" for p in info.value.problems)


def test_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="cannot read"):
        load_cards(tmp_path / "missing.toml")
    bad = tmp_path / "cards.toml"
    bad.write_text("[[card]\nname=", encoding="utf-8")
    with pytest.raises(DataError, match="not valid TOML"):
        load_cards(bad)
    bad.write_text("invented = true\n", encoding="utf-8")
    with pytest.raises(DataError, match="at least one"):
        load_cards(bad)


def test_timing_enum_covers_every_effect() -> None:
    from controller.gamedata.cards import EFFECT_TIMINGS

    assert set(EFFECT_TIMINGS) == set(EffectKind)
    assert set().union(*EFFECT_TIMINGS.values()) == set(Timing)


def test_malformed_data_directory_names_the_file(tmp_path: Path) -> None:
    shutil.copytree(DEMO.parent / "rulebook", tmp_path / "rulebook")
    tmp_path = tmp_path / "demo"
    tmp_path.mkdir()
    for name in ("warriors.toml", "board.toml", "cards.toml"):
        shutil.copy(DEMO / name, tmp_path / name)
    board = tmp_path / "board.toml"
    board.write_text(
        board.read_text(encoding="utf-8").replace('colour = "red"', 'colour = "pink"', 1),
        encoding="utf-8",
    )
    with pytest.raises(DataError) as info:
        load_game_data(tmp_path)
    assert "board.toml: space 0: field 'colour'" in str(info.value)
    shutil.copy(DEMO / "board.toml", board)
    cards = tmp_path / "cards.toml"
    cards.write_text(
        cards.read_text(encoding="utf-8").replace("amount = 22", "amount = -3"), encoding="utf-8"
    )
    with pytest.raises(DataError, match="card 'Kamehameha': field 'effect'"):
        load_game_data(tmp_path)
    (tmp_path / "cards.toml").unlink()
    with pytest.raises(DataError, match=r"cards\.toml"):
        load_game_data(tmp_path)
