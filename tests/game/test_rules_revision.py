"""A game journalled under an earlier revision of the rules plays on by the rules it began
with (``RULES_REVISION``): an upgrade never turns a saved game into one that does not
replay, or into another game."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from controller.core.errors import IllegalActionError, InvalidThrowError
from controller.core.symbols import Symbol
from controller.game import engine
from controller.game.engine.defence import defence_answers
from controller.game.events import (
    ChooseAttack,
    Defend,
    DiceThrown,
    DieRolled,
    ExtraCombat,
    GameEvent,
    Move,
    Pass,
    PlayCard,
    StepAside,
    TryFusion,
)
from controller.game.legal import legal_actions
from controller.game.session import journalled_config
from controller.game.state import RULES_REVISION, Answer, GameConfig, GameState, Phase
from controller.gamedata.board import load_board
from controller.gamedata.bundle import GameData
from controller.rules.variants import Variants
from controller.storage.errors import JournalCorruptError
from tests.game.helpers import demo_data, tie_s_duel
from tests.paths import SCENARIOS


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
    two = journalled_config("two.db", {"config": _revision(2)})
    assert _second_combats(_at_the_extra_offer(two)) == {("Kahseral", "Obuni")}
    new = journalled_config("new.db", {"config": GameConfig(("A", "B")).to_dict()})
    assert new.rules_revision == RULES_REVISION == 8


def _revision(revision: int) -> dict[str, object]:
    return {**GameConfig(("A", "B")).to_dict(), "rules_revision": revision}


def test_a_journal_of_revision_2_fights_its_second_combat_after_the_step() -> None:
    """Revision 3 (A l.261): after a combat the foe survived, the step aside is where a
    second combat goes (onto a green space or another foe beside the first foe); a journal
    of revision 2 stepped onto an empty space and fought it after, against a foe next to
    the new space, the same foe too: it replays so."""
    events = [
        Move(0, "Kahseral", 18),
        DiceThrown((Symbol.KICK, Symbol.PUNCH, Symbol.TELEPORT, Symbol.STAR)),
        ChooseAttack(0, "sum"),
        StepAside(0, 17),
        PlayCard(0, "Second Wind", "Kahseral", "Obuni"),
    ]
    for revision, fought in ((2, True), (3, False)):
        state = engine.arrange(
            journalled_config("j.db", {"config": _revision(revision)}),
            demo_data(),
            pieces=[("Kahseral", 0, 16), ("Obuni", 1, 18), ("Harmira", 1, 19)],
            hands=[["Second Wind"], []],
            decks={"event": []},
        )
        at_step = engine.apply(state, events[0])
        for event in events[1:3]:
            at_step = engine.apply(at_step, event)
        steps = {a.space for a in legal_actions(at_step) if isinstance(a, StepAside)}
        assert steps == {11, 17, 25}  # Harmira's 19 only once a card is played (revision 3)
        stepped = engine.apply(at_step, events[3])
        if fought:  # the card opens no step onto a foe: it is played after the step
            with pytest.raises(IllegalActionError):
                engine.apply(at_step, PlayCard(0, "Second Wind"))
            assert stepped.phase is Phase.EXTRA_OFFER
            combat = engine.apply(stepped, events[4]).combat
            assert combat is not None and (combat.defender, combat.adjacent) == ("Obuni", True)
        else:
            granted = engine.apply(at_step, PlayCard(0, "Second Wind"))
            assert 19 in {a.space for a in legal_actions(granted) if isinstance(a, StepAside)}
            assert (stepped.phase, stepped.seat) == (Phase.MOVE, 1)
            with pytest.raises(IllegalActionError):
                engine.apply(stepped, events[4])


@pytest.mark.parametrize("revision", [0, RULES_REVISION + 1, "2", True, 2.0])
def test_a_revision_this_toptable_does_not_play_is_a_damaged_set_up(revision: object) -> None:
    setup: dict[str, object] = {"config": {"players": ["A", "B"], "rules_revision": revision}}
    with pytest.raises(JournalCorruptError) as info:
        journalled_config(Path("j.db"), setup)
    assert "config.rules_revision" in str(info.value)
    assert f"expected a rules revision 1..{RULES_REVISION}" in str(info.value)


def test_a_journal_of_revision_2_keeps_its_space_index_after_a_fusion_for_one_attack() -> None:
    """Revision 3: a defender fused for one attack (B l.287) splits back after the combat
    holding its space, which the attacker steps off (tests/data/scenarios/game/
    variant_fusion_for_one_attack_defender.toml). A journal of revision 2 gave the space
    index to the attacker, and it kept naming it there once it had stepped off: a foe of
    the attacker moving there fought it. It replays so."""
    events = [
        Move(0, "Kahseral", 18),
        TryFusion(1),
        DieRolled((6,)),
        DieRolled((1,)),
        DiceThrown((Symbol.KICK, Symbol.PUNCH, Symbol.TELEPORT, Symbol.STAR)),
        ChooseAttack(0, "sum"),
        StepAside(0, 17),
        Move(1, "Caulifla", 18),
    ]
    variants = ["fusion_for_one_attack", "fusion_partners_adjacent"]
    for revision, named, fought in ((2, "Kahseral", "Kahseral"), (3, "Kale", None)):
        state = engine.arrange(
            journalled_config("j.db", {"config": {**_revision(revision), "variants": variants}}),
            demo_data(),
            pieces=[("Kahseral", 0, 16), ("Kale", 1, 18), ("Caulifla", 1, 19)],
            decks={"event": []},
        )
        for event in events[:-1]:
            state = engine.apply(state, event)
        assert (state.pieces["Kahseral"].space, state.pieces["Kale"].space) == (17, 18)
        assert state.occ[18] == named
        combat = engine.apply(state, events[-1]).combat
        assert (combat.defender if combat is not None else None) == fought


def _fought(
    revision: int, pieces: list[tuple[str, int, int]], events: list[GameEvent], **kw: Any
) -> GameState:
    state = engine.arrange(
        GameConfig(("A", "B"), rules_revision=revision), demo_data(), pieces=pieces, **kw
    )
    for event in events:
        state = engine.apply(state, event)
    return state


_ATTACK = [
    DiceThrown((Symbol.KICK, Symbol.PUNCH, Symbol.TELEPORT, Symbol.STAR)),
    ChooseAttack(0, "sum"),
]


@pytest.mark.parametrize("revision", [3, 4])
def test_revision_4_never_offers_the_foe_that_fled(revision: int) -> None:
    """Revision 4 (A l.261 "another Warrior token"): Katopesia flees with Solar Flare to 11,
    beside the arena; a journal of revision 3 offered it again as the Event card's second
    combat, and replays so."""
    state = _fought(
        revision,
        [("Kahseral", 0, 16), ("Katopesia", 1, 18)],
        [Move(0, "Kahseral", 18), *_ATTACK, Defend(1, Answer.FLEE), StepAside(1, 11)],
        damage={"Katopesia": 5},
        decks={"event": ["Frenzy"]},
    )
    offered = ExtraCombat(0, "Kahseral", "Katopesia") in legal_actions(state)
    assert offered is (revision == 3)
    assert (state.phase is Phase.EXTRA_OFFER) is (revision == 3)


@pytest.mark.parametrize("revision", [3, 4])
def test_revision_4_never_steps_onto_a_fused_foe_s_partner(revision: int) -> None:
    """Revision 4 (A l.209, l.261): Kefla, fused for one attack, splits back after the
    combat; its partner Caulifla beside the arena is the foe just fought. Revision 3 offered
    the step onto it (and the fusion again): a journal of it replays so."""
    config = GameConfig(
        ("A", "B"),
        variants=Variants.from_names(["fusion_for_one_attack", "fusion_partners_adjacent"]),
        rules_revision=revision,
    )
    state = engine.arrange(
        config,
        demo_data(),
        pieces=[("Kahseral", 0, 16), ("Kale", 1, 18), ("Caulifla", 1, 19)],
        decks={"event": ["Frenzy"]},
    )
    for event in (
        Move(0, "Kahseral", 18),
        TryFusion(1),
        DieRolled((6,)),
        DieRolled((1,)),
        *_ATTACK,
    ):
        state = engine.apply(state, event)
    assert state.phase is Phase.STEP_ASIDE
    assert (StepAside(0, 19) in legal_actions(state)) is (revision == 3)


@pytest.mark.parametrize("revision", [3, 4])
def test_revision_4_offers_a_green_space_after_an_elimination(revision: int) -> None:
    """Revision 4 (A l.39): Kahseral eliminates Obuni on 17, beside green 24, holding Second
    Wind: the card may open the green space. Revision 3 offered nothing (no foe beside) and
    the turn ended: a journal of it replays so."""
    state = _fought(
        revision,
        [("Kahseral", 0, 9), ("Obuni", 1, 17), ("Harmira", 1, 40)],
        [Move(0, "Kahseral", 17), *_ATTACK],
        hands=[["Second Wind"], []],
        damage={"Obuni": 13},
        green_deck=["Zium"],
        decks={"event": []},
    )
    assert (state.phase, state.seat) == (
        (Phase.EXTRA_OFFER, 0) if revision == 4 else (Phase.MOVE, 1)
    )
    assert (PlayCard(0, "Second Wind", space=24) in legal_actions(state)) is (revision == 4)


@pytest.mark.parametrize("revision", [2, 3])
def test_declining_the_step_aside_is_revision_3_s(revision: int) -> None:
    """Revision 3 brought the ``Pass`` that declines a step aside only a second combat leaves
    open (A l.39, l.265); a game of revision 2 is not offered it (it played the card and
    stepped onto the green space), but one whose journal holds it (written by the code that
    offered it in every game) replays."""
    data = GameData(
        load_board(SCENARIOS / "game/boards/small.toml"), demo_data().roster, demo_data().cards
    )
    state = engine.arrange(
        GameConfig(("A", "B"), rules_revision=revision),
        data,
        pieces=[("Kahseral", 0, 2), ("Bergamo", 0, 5), ("Obuni", 1, 4)],
        hands=[["Second Wind"], []],
        green_deck=["Zium"],
        decks={"event": []},
    )
    for event in (
        Move(0, "Kahseral", 4),
        DiceThrown((Symbol.KICK, Symbol.PUNCH, Symbol.TELEPORT, Symbol.STAR, Symbol.TELEPORT)),
        ChooseAttack(0, "sum"),
    ):
        state = engine.apply(state, event)
    assert state.phase is Phase.STEP_ASIDE
    assert (Pass(0) in list(legal_actions(state))) is (revision == 3)  # offered
    # a revision-2 journal written by the code that offered it in every game replays
    assert engine.apply(state, Pass(0)).phase is Phase.MOVE


def test_a_journal_of_revision_4_leaves_the_attacker_beside_the_foe_left_on_its_space() -> None:
    """Revision 5 (A l.261): after eliminating one of two foes that shared a space, the
    attacker steps aside from the other (tests/data/scenarios/game/
    elimination_with_a_foe_left_on_the_space.toml). A journal of revision 4 left it on the
    space beside that foe, and a later landing there fought nobody: it replays so."""
    events = [
        Move(1, "Monna", 19),
        Move(0, "Kahseral", 19),
        DiceThrown((Symbol.SPHERE, Symbol.SPHERE, Symbol.PUNCH, Symbol.KICK)),
        ChooseAttack(0, "Kamehameha"),
    ]
    for revision in (4, 5):
        state = engine.arrange(
            journalled_config("j.db", {"config": _revision(revision)}),
            demo_data(),
            pieces=[("Kahseral", 0, 16), ("Harmira", 1, 19), ("Monna", 1, 25)],
            hands=[["Kamehameha"], []],
            decks={"event": []},
            seat=1,
        )
        for event in events:
            state = engine.apply(state, event)
        if revision == 4:
            assert (state.phase, state.seat) == (Phase.MOVE, 1)
            assert state.pieces["Kahseral"].space == state.pieces["Monna"].space == 19
        else:
            assert (state.phase, state.occ[19]) == (Phase.STEP_ASIDE, "Monna")


def test_a_journal_of_revision_4_rewards_a_green_warrior_its_own_cost_eliminated() -> None:
    """Revision 5 (docs/rules.md §7): the green warrior its own form's cost eliminates earns
    the attacker nothing (tests/data/scenarios/game/green_warrior_its_own_cost_earns_nothing
    .toml); a journal of revision 4 was offered the 2 cards, and replays so."""
    events = [
        Move(0, "Jiren", 20),
        Pass(0),
        DieRolled((4,)),
        DiceThrown((Symbol.KICK,) * 5),
        ChooseAttack(0, "sum"),
    ]
    for revision, phase in ((4, Phase.REWARD), (5, Phase.MOVE)):
        state = engine.arrange(
            journalled_config("j.db", {"config": _revision(revision)}),
            demo_data(),
            pieces=[("Jiren", 0, 16), ("Obuni", 1, 0)],
            decks={"event": []},
            green_deck=["Cabba"],
        )
        for event in events:
            state = engine.apply(state, event)
        assert state.phase is phase and state.pieces["Cabba"].eliminated


@pytest.mark.parametrize("revision", [6, 7])
def test_a_destroyed_player_is_not_asked_to_discard_from_revision_7(revision: int) -> None:
    """A l.7: a universe that lost all its warriors is destroyed. Before revision 7 the table
    waited for its player to discard down to 5 cards; its turn still turns its Event card
    (B l.371's count of 30 in 10 rounds of 3 players: tests/game/test_worked_examples.py)."""
    state = engine.arrange(
        GameConfig(("A", "B", "C"), rules_revision=revision),
        demo_data(),
        pieces=[("Kahseral", 0, 16), ("Jiren", 2, 25)],
        eliminated=[("Monna", 1)],
        hands=[[], ["Guard", "Afterimage", "Mirror Wall", "Kamehameha", "Rapid Punches", "Spirit Bomb"], []],
        decks={"event": ["Supply Drop"]},  # draw a card
        seat=1,
    )  # fmt: skip
    if revision == 6:
        assert (state.phase, state.seat) == (Phase.DISCARD, 1)
        return
    assert state.seat == 2 and state.phase is not Phase.DISCARD
    assert state.event_cards_turned == 2  # B's turn's and C's
    assert len(state.hands[1]) == 6 and len(state.hands[2]) == 1  # B's drew nothing


@pytest.mark.parametrize("revision", [6, 7])
def test_nobody_flees_a_tie_s_duel_from_revision_7(revision: int) -> None:
    """B l.359, A l.287: in the duel of a tie "one of the 2 warriors must be eliminated".
    Before revision 7 a warrior with Solar Flare below 10 endurance fled every attack: its
    player could not lose."""
    state = tie_s_duel("Kahseral", "Rozie", revision)
    for _ in range(3):  # Kahseral's attack: three throws, then its worth
        state = engine.apply(state, DiceThrown((Symbol.PUNCH,) * 3 + (Symbol.KICK,)))
    state = engine.apply(
        state, next(a for a in legal_actions(state) if isinstance(a, ChooseAttack))
    )
    combat = state.combat
    assert combat is not None and combat.duel and combat.target == "Rozie"
    assert ((Answer.FLEE, None) in defence_answers(state)) is (revision == 6)


@pytest.mark.parametrize("revision", [6, 7])
def test_son_goku_s_retry_at_a_card_s_target_is_one_die_from_revision_7(revision: int) -> None:
    """B l.423 ("if they roll 5+ he reaches his final transformation, but he gets 4"), A
    l.374 ("rolling the die again"): the target is a die's. Before revision 7 Son Goku and
    Vegeta threw their two dice at it, reaching it 30 times in 36."""
    state = engine.arrange(
        GameConfig(("A", "B"), rules_revision=revision),
        demo_data(),
        pieces=[("Son Goku", 0, 16), ("Kahseral", 1, 18)],
        hands=[["Final Transformation"], []],
        decks={"event": []},
    )
    for event in (Move(0, "Son Goku", 18), DieRolled((1, 1)), PlayCard(0, "Final Transformation")):
        state = engine.apply(state, event)
    dice = 1 if revision == 7 else 2
    assert engine.awaiting(state).die_count == dice
    with pytest.raises(InvalidThrowError, match=("with one die" if dice == 1 else "with 2 dice")):
        engine.apply(state, DieRolled((2,) * (3 - dice)))
    last = demo_data().roster["Son Goku"].forms[-1].name
    combat = engine.apply(state, DieRolled((5,) * dice)).combat
    assert combat is not None and combat.attacker_form == last
