"""Plays the table never offers are refused, not ignored (rules reviews 91 and 92): a name a
card does not take, a Counter-Attack card for a green-space warrior (who holds no cards), a
throw showing a face the game's die lacks, and, in the rules' own path (`toptable combat`),
an answer to a sphere that a Shield or a Reflect deals with by itself."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from controller.core.errors import IllegalActionError, InvalidThrowError
from controller.core.symbols import Symbol
from controller.game import engine
from controller.game.events import (
    ChooseAttack,
    CounterAttack,
    DiceThrown,
    GameEvent,
    Move,
    PlayCard,
    ThrowCorrected,
    event_from_dict,
)
from controller.game.state import Answer, GameConfig, GameState, Phase
from controller.gamedata.bundle import GameData
from controller.rules.attack import fit_answers
from controller.rules.combat import resolve_combat
from controller.rules.combat_types import Attack, CombatInput, Side
from controller.rules.dice import Die
from controller.rules.scoring import Option, scorer_for
from controller.rules.variants import DEFAULT_VARIANTS
from controller.rules.warriors import Fighter
from tests.game.helpers import demo_data

K, P, SP, S, R, T = (Symbol.KICK, Symbol.PUNCH, Symbol.SPHERE, Symbol.STRENGTH, Symbol.STAR,
                     Symbol.TELEPORT)  # fmt: skip


def _arrange(players: tuple[str, ...] = ("A", "B"), data: GameData | None = None,
             **kw: Any) -> GameState:  # fmt: skip
    kw.setdefault("decks", {"event": []})
    kw.setdefault("hands", [[] for _ in players])
    return engine.arrange(GameConfig(players), data or demo_data(), **kw)


def _apply(state: GameState, *events: GameEvent | dict[str, Any]) -> GameState:
    for e in events:
        state = engine.apply(state, event_from_dict(e) if isinstance(e, dict) else e)
    return state


def _refused(state: GameState, event: GameEvent | dict[str, Any], words: str) -> None:
    before = state.summary()
    with pytest.raises((IllegalActionError, InvalidThrowError)) as info:
        _apply(state, event)
    assert words in str(info.value)
    assert state.summary() == before


def test_a_green_warriors_player_spends_no_counter_attack_card_for_it() -> None:
    s = _arrange(
        ("A", "B", "C"),
        pieces=[("Kahseral", 0, 16), ("Obuni", 1, 41), ("Bergamo", 2, 40)],
        hands=[[], [], ["Strike Back"]],
        green_deck=["Pirina"],
    )
    s = _apply(s, Move(0, "Kahseral", 20), DiceThrown((K, P, T, R)), ChooseAttack(0, "sum"))
    assert s.phase is Phase.COUNTER_OFFER and s.pieces["Pirina"].seat is None
    _refused(s, CounterAttack(2, "Strike Back"), "Pirina fights from the green space and holds no")
    assert s.hands[2] == ("Strike Back",)
    assert _apply(s, CounterAttack(2, "")).phase is Phase.ATTACK  # by its ability


def test_a_rescue_card_names_the_warrior_falling_or_none() -> None:
    s = _arrange(
        pieces=[("Kahseral", 0, 16), ("Obuni", 1, 18), ("Monna", 1, 41)],
        damage={"Obuni": 40},
        hands=[[], ["Dragon Balls"]],
    )
    s = _apply(s, Move(0, "Kahseral", 18), DiceThrown((K, K, K, K)), ChooseAttack(0, "sum"))
    assert s.phase is Phase.RESCUE_OFFER
    _refused(s, PlayCard(1, "Dragon Balls", warrior="Kahseral"), "rescues Obuni, the warrior")
    _refused(s, PlayCard(1, "Dragon Balls", target="Kahseral"), "not the target 'Kahseral'")
    for named in (None, "Obuni"):
        after = _apply(s, PlayCard(1, "Dragon Balls", warrior=named))
        assert after.pieces["Obuni"].damage == 0 and not after.pieces["Obuni"].eliminated


def test_a_start_card_takes_only_what_its_effect_uses() -> None:
    s = _arrange(
        pieces=[("Cabba", 0, 16), ("Obuni", 1, 18)],
        hands=[["Capsule Corp Supply"], []],
    )
    assert s.phase is Phase.START_CARD
    _refused(
        s,
        PlayCard(0, "Capsule Corp Supply", warrior="Obuni", target="Cabba", space=3),
        "takes no warrior, target or space here, not the warrior 'Obuni', target 'Cabba', "
        "space 3 given",
    )
    assert _apply(s, PlayCard(0, "Capsule Corp Supply")).phase is Phase.MOVE


def _no_teleport_data() -> GameData:
    demo = demo_data()
    die = Die("no-teleport", (K, K, P, SP, S, R))
    return GameData(demo.board, demo.roster, demo.cards, demo.story, die=die)


def test_a_throw_shows_only_faces_of_the_games_die() -> None:
    s = _arrange(pieces=[("Kahseral", 0, 16), ("Obuni", 1, 18)], data=_no_teleport_data())
    s = _apply(s, Move(0, "Kahseral", 18))
    _refused(s, DiceThrown((T, T, T, T)), "no face of the die 'no-teleport' does")
    s = _apply(s, DiceThrown((K, K, K, K)))
    _refused(s, ThrowCorrected((K, K, K, T)), "the correction shows teleport")
    s = _apply(s, DiceThrown((K, K, K, K)), DiceThrown((K, K, K, K)), ChooseAttack(0, "sum"))
    s = _apply(s, {"kind": "defend", "seat": 1, "answer": Answer.DODGE.value})
    _refused(s, DiceThrown((T, T, T, T, T)), "Obuni's throw shows teleport")


def test_a_journal_before_revision_6_replays_a_face_its_die_lacks() -> None:
    """Review 97: a game recorded before the check (a throw entered by hand) must replay
    as it was played."""
    config = dataclasses.replace(GameConfig(("A", "B")), rules_revision=5)
    s = engine.arrange(
        config, _no_teleport_data(), pieces=[("Kahseral", 0, 16), ("Obuni", 1, 18)],
        hands=[[], []], decks={"event": []},
    )  # fmt: skip
    s = _apply(s, Move(0, "Kahseral", 18), DiceThrown((T, T, T, T)))
    assert s.combat is not None and s.combat.throws == ((T, T, T, T),)


def _combat(attacker: str, defender: str, attack: Attack) -> Any:
    roster = demo_data().roster
    by_name = {w.name: w for w in roster.values()}
    return resolve_combat(CombatInput(Side(by_name[attacker]), Side(by_name[defender]), attack))


RUSH = (SP, SP, S, K)  # Kahseral Rush: a sphere combo, thrown at once (lightning)


@pytest.mark.parametrize(
    ("defender", "acts"), [("Su Roas", "Shield stops"), ("Monna", "Reflect sends back")]
)
def test_no_dodge_answers_a_sphere_a_shield_or_reflect_deals_with(defender: str, acts: str) -> None:
    attack = Attack((RUSH,), "Kahseral Rush", dodge_throws=((T,) * 4,))
    with pytest.raises(IllegalActionError) as info:
        _combat("Kahseral", defender, attack)
    assert str(info.value) == f"{defender}'s {acts} the sphere by itself: it gives no dodge or card"
    fitted = fit_answers(attack, _fighter(defender), _option(attack), DEFAULT_VARIANTS)
    assert fitted.dodge_throws is None
    assert _combat("Kahseral", defender, fitted).attack.damage_dealt == 0


def test_an_attacker_answers_no_sphere_that_was_not_reflected() -> None:
    attack = Attack(((K, P, SP, S),), "sum", reflect_dodge_throws=((T,) * 4,))
    with pytest.raises(IllegalActionError) as info:
        _combat("Kahseral", "Obuni", attack)
    assert str(info.value) == (
        "Kahseral: no sphere is reflected back at it, so it has nothing to answer"
    )


def _fighter(name: str) -> Fighter:
    return next(w for w in demo_data().roster.values() if w.name == name).fighter(None)


def _option(attack: Attack) -> Option:
    score = scorer_for(_fighter("Kahseral"), (), DEFAULT_VARIANTS).score(attack.throws[-1])
    option = score.option(attack.choice or "sum")
    assert option is not None
    return option


@pytest.mark.parametrize(("hand", "said"), [
    ((), "A has no 'Kamehameha' in hand; the last throw makes: sum"),
    (("Kamehameha",), None),
])  # fmt: skip
def test_a_card_attack_without_the_card_says_the_card_is_not_in_hand(
    hand: tuple[str, ...], said: str | None
) -> None:
    """The dice make Kamehameha's combo (sphere sphere punch): without the card in hand the
    refusal said "the last throw does not make 'Kamehameha'" (rules review D)."""
    state = engine.arrange(
        GameConfig(("A", "B")),
        demo_data(),
        pieces=[("Kahseral", 0, 16), ("Obuni", 1, 18)],
        hands=[hand, ()],
        decks={"event": []},
    )
    for event in (Move(0, "Kahseral", 18), DiceThrown((SP, SP, P, K))):
        state = engine.apply(state, event)
    if said is None:
        assert "Kamehameha" not in engine.apply(state, ChooseAttack(0, "kamehameha")).hands[0]
        return
    with pytest.raises(IllegalActionError) as info:
        engine.apply(state, ChooseAttack(0, "kamehameha"))
    assert str(info.value) == said
    with pytest.raises(IllegalActionError, match="does not make 'Rapid Fists'; it makes: sum"):
        engine.apply(state, ChooseAttack(0, "Rapid Fists"))  # no such card
