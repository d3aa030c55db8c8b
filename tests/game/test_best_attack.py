"""The attack the table marks, and a long CONFIRM cashes in: what costs the foe most, its
Shield, Reflect and divisor counted (A l.153, l.253: "look at the active ability of the 2
Warriors involved then choose the attack that will make your opponent lose the most
Endurance"); it took the highest printed damage (rules review E)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from controller.core.kinds import GameKind
from controller.core.symbols import Symbol
from controller.game import engine
from controller.game.events import DiceThrown, DieRolled, GameEvent, Move, Pass
from controller.game.simulate import play_game
from controller.game.state import GameConfig, GameState, Phase
from controller.table.entry import FaultSource, TableEntry
from controller.table.view import combat_view
from hardware.controls.events import ButtonName, ButtonPressed
from tests.game.helpers import demo_data

SP, ST, K, P = Symbol.SPHERE, Symbol.STRENGTH, Symbol.KICK, Symbol.PUNCH


def _thrown(
    attacker: str,
    defender: str,
    damage: int,
    throw: tuple[Symbol, ...],
    *,
    throws: int = 3,
    defender_roll: int | None = None,
) -> GameState:
    state = engine.arrange(
        GameConfig(("A", "B")),
        demo_data(),
        pieces=[(attacker, 0, 16), (defender, 1, 18)],
        damage={attacker: damage},
        decks={"event": []},
    )
    state = engine.apply(state, Move(0, attacker, 18))
    while state.phase is Phase.TRANSFORM:  # the base forms fight, unless the defender rolls
        assert state.combat is not None
        rolling = state.combat.to_transform[0]
        if rolling == defender and defender_roll is not None:
            state = engine.apply(state, DieRolled((defender_roll,)))
        else:
            state = engine.apply(state, Pass(0 if rolling == attacker else 1))
    for _ in range(throws):
        state = engine.apply(state, DiceThrown(throw))
    return state


Position = tuple[str, str, int, tuple[Symbol, ...]]
SHIELD: Position = ("Kahseral", "Su Roas", 0, (SP, SP, ST, K))  # a sphere of 18 the Shield stops
REFLECT: Position = (
    "Son Gohan",
    "Monna",
    18,
    (P, P, SP),
)  # a sphere of 19 sent back: Gohan has 10 left


@pytest.mark.parametrize("position", [SHIELD, REFLECT], ids=["shield", "reflect"])
def test_the_best_attack_counts_the_foe_s_ability(position: Position) -> None:
    state = _thrown(*position)
    printed = dict(engine.attack_options(state))
    assert max(printed, key=lambda name: printed[name]) != "sum"  # the sphere prints more
    assert engine.best_attack_option(state) == "sum"


def test_against_a_reflect_every_sphere_the_best_is_the_one_that_comes_back_smallest() -> None:
    """A l.110, l.253: Zium's two options are spheres Monna reflects (his combo of 22, his
    doubled sum of 12): both cost her nothing, so the table marks the one costing him less."""
    state = _thrown("Zium", "Monna", 0, (SP, SP), throws=1)
    assert dict(engine.attack_options(state)) == {"Zium Blast": 22, "sum": 12}
    assert engine.best_attack_option(state) == "sum"


def test_two_attacks_costing_the_foe_alike_the_best_is_the_higher_printed() -> None:
    """§6 (A l.102): Super Saiyan Kefla halves and rounds up, so Android 18's 18 Rush (15)
    and sum (16) both cost her 8: the tie goes to the higher printed damage, the sum."""
    state = _thrown("Android 18", "Kefla", 0, (K, P, P, P, SP), throws=1, defender_roll=4)
    assert state.combat is not None and state.combat.defender_form == "Super Saiyan Kefla"
    assert dict(engine.attack_options(state)) == {"18 Rush": 15, "sum": 16}
    assert engine.best_attack_option(state) == "sum"


def test_the_combat_screen_with_no_cursor_marks_the_best_attack() -> None:
    """The paused table's screen (no cursor), or one whose cursor is on no option, marked
    the highest printed damage."""
    for cursor in (None, (None,)):  # paused; on "enter dice" (the camera out)
        view = combat_view(_thrown(*SHIELD), None, cursor)
        assert view is not None and [o.label for o in view.options if o.best] == ["symbol sum"]


@dataclass
class _Owner:
    """The table's game holder, applying what is entered (no journal)."""

    state: GameState

    def __post_init__(self) -> None:
        self.faults: dict[FaultSource, str] = {}

    def submit(self, event: GameEvent) -> bool:
        self.state = engine.apply(self.state, event)
        return True

    def undo(self) -> None:
        pass

    def correctable(self) -> None:
        return None

    def next_game(self) -> None:
        pass


def test_the_table_marks_and_cashes_in_the_attack_that_does_not_come_back() -> None:
    owner = _Owner(_thrown(*REFLECT))
    entry = TableEntry(owner)
    entry.rebuild(owner.state)
    assert entry.marked_option(owner.state) == "sum"
    entry.press(ButtonPressed(ButtonName.CONFIRM, long=True))
    combat = owner.state.combat  # the sum, to which Monna may answer; the sphere would
    assert combat is not None and combat.option == "sum"  # have come back at Gohan's 10 left
    assert owner.state.phase is Phase.DEFENCE_CHOICE


def test_a_story_attempt_s_best_is_its_highest_damage() -> None:
    """A Story attempt is resolved by no rules of the Tournament's combat (its rerolls are
    its technique alone): resolving it so refused the attempt's own throws."""
    data = demo_data()
    config = GameConfig(("Ann", "Bob"), kind=GameKind.STORY)
    states = [engine.new_game(config, data)]

    def submit(event: GameEvent) -> GameState:
        states.append(engine.apply(states[-1], event))
        return states[-1]

    play_game(config, data, 6, submit=submit)
    thrown = [s for s in states if s.phase is Phase.ATTACK and s.combat and s.combat.throws]
    assert len(thrown) > 10
    for state in thrown:
        printed = dict(engine.attack_options(state))
        assert printed[engine.best_attack_option(state) or ""] == max(printed.values())
