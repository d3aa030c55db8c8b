"""The rules at their edges: exact thresholds, abilities against cards, a form's divisor on
its own reflected sphere (docs/rules.md §4–§8), each as a player sees it at the table."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from controller.core.errors import InvalidThrowError
from controller.core.symbols import AttackSpeed, Symbol
from controller.gamedata.scenario import parse_scenario
from controller.rules.attack import resolve_attack
from controller.rules.combat import resolve_combat
from controller.rules.combat_types import Attack
from controller.rules.endurance import damage_still_standing, transformation_total
from controller.rules.pools import attack_pool, attack_rerolls
from controller.rules.variants import Variants
from controller.rules.warriors import Ability, AbilityKind
from tests.rules.helpers import scenario_roster


def _combat(scenario: dict[str, Any]) -> dict[str, Any]:
    """The combat ``scenario`` (the combat file format) resolved, as ``toptable combat``
    prints it."""
    return resolve_combat(parse_scenario(scenario, scenario_roster())).to_json()


def _sphere_card(damage: int, *, invulnerable: bool = False) -> dict[str, Any]:
    return {
        "name": "Ki Blast",
        "symbols": ["sphere", "sphere"],
        "damage": damage,
        "invulnerable": invulnerable,
    }


@pytest.mark.parametrize(
    ("damage", "invulnerable"),
    [(20, False), (15, True)],
    ids=["a sphere of exactly twenty", "an invulnerable card's small sphere"],
)
def test_a_shield_does_not_stop(damage: int, invulnerable: bool) -> None:
    """A l.124: Shield dodges "spheres doing less than 20 damage ... except for spheres from
    invulnerable cards": a sphere card of 20 hits, and so does an invulnerable one of 15."""
    result = _combat(
        {
            "attacker": {
                "warrior": "Test Plain",
                "cards": [_sphere_card(damage, invulnerable=invulnerable)],
            },
            "defender": {"warrior": "Test Shield"},
            "throws": [["sphere", "sphere", "kick", "punch"]],
            "attack": "Ki Blast",
        }
    )
    assert not result["shielded"]
    assert result["damage_dealt"] == damage


def test_a_transformed_attacker_divides_its_reflected_sphere() -> None:
    """§6 (A l.99): a transformed warrior divides the damage it receives, rounded up: Super
    Saiyan Kefla's Enchainement (23) reflected back at her costs her 12, not 23."""
    result = _combat(
        {
            "attacker": {"warrior": "Kefla", "form": "Super Saiyan Kefla"},
            "defender": {"warrior": "Test Reflector"},
            "throws": [["sphere", "sphere", "punch", "punch", "kick", "kick"]],
            "attack": "Enchainement",
        }
    )
    assert result["reflected"]
    assert result["damage_reflected"] == 12


def test_the_most_damage_a_warrior_carries_and_stays() -> None:
    """§7: eliminated when damage reaches endurance (A l.147), so a warrior of 20 stays with
    19; with the variant eliminate_only_when_exceeded (A l.59, B l.59) it stays with 20."""
    assert damage_still_standing(20) == 19
    assert damage_still_standing(20, Variants(eliminate_only_when_exceeded=True)) == 20


def test_a_two_dice_transformation_total_of_one_is_impossible() -> None:
    """A l.87: Son Goku transforms with 2 dice, so a total under 2 is no roll he made."""
    goku = scenario_roster()["Son Goku"]
    assert transformation_total(goku, 2) == 2
    with pytest.raises(InvalidThrowError, match="impossible"):
        transformation_total(goku, 1)


def test_an_ability_taking_two_dice_takes_two() -> None:
    """§8 (A l.128, B l.105): "the attacker has 1 (or 2) fewer dice": Power 4 against a
    defender that takes 2 throws 2 dice."""
    roster = scenario_roster()
    attacker = roster.fighter("Test Plain")
    two = Ability(AbilityKind.ATTACKER_FEWER_DICE, 2)
    defender = replace(roster["Test Shrinker"], ability=two).fighter()
    assert attacker.power == 4
    assert attack_pool(attacker, 0, defender) == 2


def test_a_defender_taking_more_rerolls_than_the_attacker_has_leaves_it_one_throw() -> None:
    """§2: "Abilities change the number of rerolls (never below 0)": Technique 2 against a
    defender taking 3 makes no reroll, and its single throw is a lightning attack."""
    roster = scenario_roster()
    attacker = roster.fighter("Test Plain")
    three = Ability(AbilityKind.ATTACKER_FEWER_REROLLS, 3)
    defender = replace(roster["Test Slower"], ability=three).fighter()
    assert attack_rerolls(attacker, defender) == 0
    result = resolve_attack(
        attacker,
        0,
        defender,
        0,
        20,
        Attack(((Symbol.SPHERE, Symbol.SPHERE, Symbol.KICK, Symbol.PUNCH),)),
    )
    assert result.speed is AttackSpeed.LIGHTNING
    assert result.damage_dealt == 12


def test_a_power_one_attacker_against_a_dice_taker_still_throws_one_die() -> None:
    """§2: a pool is "never fewer than 1" die: Power 1 against a defender that takes 1
    attack die (A l.128) throws 1."""
    roster = scenario_roster()
    attacker = replace(roster["Test Plain"], power=1).fighter()
    assert attack_pool(attacker, 0, roster.fighter("Test Shrinker")) == 1
