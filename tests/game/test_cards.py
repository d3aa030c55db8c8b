"""The cards file: the demo deck, and malformed files reported with file, card and field."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from controller.cli.main import main
from controller.core.errors import DataError
from controller.core.symbols import Symbol
from controller.game import engine
from controller.game.events import ChooseAttack, DiceThrown, Move, PlayCard, StepAside
from controller.game.legal import legal_actions
from controller.game.state import NOTHING_PLAYED, CardsPlayed, GameConfig, Length, Phase
from controller.gamedata.bundle import GameData, load_game_data
from controller.gamedata.cards import Deck, EffectKind, Timing, load_cards, parse_cards
from controller.rules.variants import Variants
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
            {"name": "CounterInAttack", "deck": "attack", "timing": "counter_attack", "combo": ["kick"], "effect": {"kind": "counter_attack"}},
            {"name": "RetryInDefence", "deck": "defence", "timing": "transformation", "effect": {"kind": "transformation_retry"}},
            {"name": "TargetOnDodge", "deck": "defence", "timing": "defence", "target": 5, "effect": {"kind": "dodge"}},
            {"name": "BigTarget", "deck": "special", "timing": "transformation", "target": 13, "effect": {"kind": "transformation_retry"}},
            {"name": "SphereHeal", "deck": "defence", "timing": "start_of_turn", "sphere_only": True, "effect": {"kind": "heal", "amount": 2}},
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
        "card 'NoComboDamage': field 'combo': every Attack card needs a combo (A l.331)",
        "card 'CounterInAttack': field 'timing': Attack cards are played at after_combat, attack, not counter_attack",
        "card 'RetryInDefence': field 'timing': Defence cards are played at ",
        "card 'TargetOnDodge': field 'target': only a transformation_retry card has a target",
        "card 'BigTarget': field 'target': expected a whole number 1..12, got 13",
        "card 'SphereHeal': field 'sphere_only': only a card that answers an attack",
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


def test_data_check_names_a_card_whose_timing_contradicts_its_deck_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main(["data", "init", str(tmp_path / "own")])
    cards = tmp_path / "own" / "cards.toml"
    text = cards.read_text(encoding="utf-8")
    moved = text.replace('deck = "defence"  # the Counter-Attack card', 'deck = "attack"  #', 1)
    assert moved != text
    cards.write_text(moved, encoding="utf-8")
    capsys.readouterr()
    assert main(["data", "check", str(tmp_path / "own")]) == 2
    bad = [line for line in capsys.readouterr().out.splitlines() if line.startswith("bad ")]
    assert len(bad) == 1, bad
    assert str(cards) in bad[0] and "card 'Strike Back'" in bad[0] and "'timing'" in bad[0]
    assert "Attack cards are played at after_combat, attack, not counter_attack" in bad[0]


def test_demo_cards_follow_the_books() -> None:
    cards = load_cards(DEMO / "cards.toml")
    assert all(cards.card(n).combo for n in set(cards.decks[Deck.ATTACK]))  # A l.331
    assert cards.card("Strike Back").deck is Deck.DEFENCE  # A l.356
    assert cards.card("Afterimage").combo  # the Dodge card needs its combo, A l.203
    assert cards.card("Final Transformation").target == 5  # B l.423
    assert cards.card("Mirror Wall").combo_view().sphere_only  # A l.344


def _played(*names: str) -> CardsPlayed:
    cards = load_cards(DEMO / "cards.toml")
    played = NOTHING_PLAYED
    for name in names:
        played = played.after(cards.card(name))
    return played


def test_a_plays_as_many_cards_as_it_likes_with_three_limits() -> None:
    """A l.265, l.306: as many cards as you like; one card adding a combat (A l.306), one
    Special card (A l.370) and one Counter-Attack card (A l.356) per turn."""
    cards = load_cards(DEMO / "cards.toml")
    a = Variants()
    three = _played("Kamehameha", "Rapid Punches", "Spirit Bomb")
    assert three.problem(cards.card("Kamehameha"), a, turn=True) is None
    assert three.problem(cards.card("Guard"), a, turn=True) is None
    special = _played("Instant Transmission")
    assert "one Special card" in str(special.problem(cards.card("Second Wind"), a, turn=True))
    extra = _played("Second Wind")
    frenzy_like = cards.card("Second Wind")
    assert "extra combat" in str(extra.problem(frenzy_like, a, turn=False))


def test_bs_two_card_limit_binds_only_the_player_whose_turn_it_is() -> None:
    """B l.351 (variant two_attack_or_special_cards): two Attack or Special cards during your
    turn, a third only if it is a Defence card; a defender answering is not bound."""
    cards = load_cards(DEMO / "cards.toml")
    b = Variants(two_attack_or_special_cards=True)
    two = _played("Kamehameha", "Rapid Punches")
    assert "two Attack or Special" in str(two.problem(cards.card("Spirit Bomb"), b, turn=True))
    assert two.problem(cards.card("Guard"), b, turn=True) is None
    assert two.problem(cards.card("Spirit Bomb"), b, turn=False) is None  # a defender
    with_defence = _played("Kamehameha", "Guard")
    assert "third card" in str(with_defence.problem(cards.card("Guard"), b, turn=True))
    assert with_defence.problem(cards.card("Guard"), b, turn=False) is None


BOOK_CARDS = """
[[card]]
name = "Double Strike"
deck = "attack"
timing = "after_combat"
combo = ["punch"]  # every Attack card prints one (A l.331)
effect = { kind = "extra_combat" }

[[card]]
name = "Iron Wall Crash"
deck = "defence"
timing = "attack"
combo = ["kick", "kick"]
effect = { kind = "damage", amount = 15 }
"""


def test_the_books_let_any_deck_grant_a_second_combat_and_a_defence_card_attack(
    tmp_path: Path,
) -> None:
    # A l.19 / B l.321: a second combat by an "Event, Attack, Defence or Special card";
    # A l.63, l.189 / B l.163: an Attack, Defence or Special card's combo instead of the
    # warrior's
    own = tmp_path / "cards.toml"
    own.write_text((DEMO / "cards.toml").read_text(encoding="utf-8") + BOOK_CARDS, "utf-8")
    cards = load_cards(own)
    demo = load_game_data()
    data = GameData(demo.board, demo.roster, cards)
    config = GameConfig(("A", "B"), Length.ROUNDS10, Variants())
    state = engine.arrange(
        config,
        data,
        pieces=[("Kahseral", 0, 16), ("Obuni", 1, 18), ("Harmira", 1, 19)],
        hands=[["Double Strike", "Iron Wall Crash"], []],
        decks={"event": []},
    )
    for event in (
        Move(0, "Kahseral", 18),
        DiceThrown((Symbol.KICK, Symbol.KICK, Symbol.TELEPORT, Symbol.STAR)),
    ):
        state = engine.apply(state, event)
    offered = {a.option for a in legal_actions(state) if isinstance(a, ChooseAttack)}
    assert "Iron Wall Crash" in offered
    state = engine.apply(state, ChooseAttack(0, "sum"))
    assert state.phase is Phase.STEP_ASIDE  # Obuni survived: the step may be the second combat
    plays = [a for a in legal_actions(state) if isinstance(a, PlayCard)]
    assert [(a.card, a.warrior, a.target) for a in plays] == [("Double Strike", None, None)]
    state = engine.apply(engine.apply(state, plays[0]), StepAside(0, 19))
    assert state.combat is not None and state.combat.defender == "Harmira"
