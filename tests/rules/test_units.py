"""Small rules functions: damage division, elimination, health, support, pools, variants."""

from __future__ import annotations

import inspect

import pytest

from controller.core.errors import InvalidThrowError
from controller.core.symbols import (
    AttackSpeed,
    Symbol,
    parse_symbols,
    speed_after_rerolls,
)
from controller.rules.endurance import divided_damage, heal, is_eliminated
from controller.rules.pools import support_dice
from controller.rules.scoring import (
    SUM_OPTION,
    CardCombo,
    Option,
    OptionKind,
    ThrowScore,
    ThrowScorer,
)
from controller.rules.variants import UnknownVariantError, Variants
from controller.rules.warriors import Ability, AbilityKind
from tests.paths import REPO
from tests.rules.helpers import scenario_roster


def test_divided_damage_rounds_up() -> None:
    assert divided_damage(35, 2) == 18  # docs/rules.md §13 (A, Cabba)
    assert divided_damage(18, 3) == 6
    assert divided_damage(19, 3) == 7
    assert divided_damage(0, 2) == 0
    assert divided_damage(5, 1) == 5


def test_elimination_and_its_variant() -> None:
    assert is_eliminated(20, 20)
    assert not is_eliminated(19, 20)
    assert not is_eliminated(20, 20, Variants(eliminate_only_when_exceeded=True))
    assert is_eliminated(21, 20, Variants(eliminate_only_when_exceeded=True))


def test_health_removes_up_to_five() -> None:
    assert heal(12) == 7
    assert heal(3) == 0


def test_support_dice_with_double_support_and_solo() -> None:
    plain, double, solo = Ability(), Ability(AbilityKind.DOUBLE_SUPPORT), Ability(AbilityKind.SOLO)
    assert support_dice([plain]) == 1
    assert support_dice([plain, plain]) == 2
    assert support_dice([double]) == 2
    assert support_dice([solo, plain]) == 1
    assert support_dice([]) == 0


def test_attack_speed_from_rerolls() -> None:
    assert [speed_after_rerolls(n) for n in range(4)] == [
        AttackSpeed.LIGHTNING,
        AttackSpeed.SURPRISE,
        AttackSpeed.NORMAL,
        AttackSpeed.NORMAL,
    ]
    with pytest.raises(ValueError):
        speed_after_rerolls(-1)


def test_variants_by_name() -> None:
    v = Variants.from_names(["green_reward_one", "fusion_for_one_attack"])
    assert v.enabled() == ("green_reward_one", "fusion_for_one_attack")
    assert len(Variants.names()) == 17
    with pytest.raises(UnknownVariantError, match="unknown rule variant 'green'"):
        Variants.from_names(["green"])
    assert Variants.from_names(["six_warriors_in_short_game"]) == Variants()  # now the default


def test_every_variant_is_documented_with_its_book_line() -> None:
    rules = (REPO / "docs" / "rules.md").read_text(encoding="utf-8")
    for name in Variants.names():
        assert f"`{name}`" in rules, name
        doc = _field_doc(name)
        assert "§" in doc and (" l." in doc or "neither book" in doc), name


def _field_doc(name: str) -> str:
    """The docstring under a Variants field (the source is the one definition)."""
    source = inspect.getsource(Variants)
    after = source.split(f"    {name}: bool = False\n", 1)[1]
    return after.split('"""')[1]


def test_parse_symbols() -> None:
    assert [str(s) for s in parse_symbols("Kick, punch,STAR")] == ["kick", "punch", "star"]
    with pytest.raises(InvalidThrowError, match="unknown symbol 'foot'"):
        parse_symbols(["foot"])


def test_attack_speed_from_throws_counts_the_first_throw() -> None:
    from controller.core.symbols import speed_after_throws

    assert [speed_after_throws(n) for n in range(5)] == [
        AttackSpeed.LIGHTNING,
        AttackSpeed.LIGHTNING,
        AttackSpeed.SURPRISE,
        AttackSpeed.NORMAL,
        AttackSpeed.NORMAL,
    ]


def test_an_option_is_found_by_its_name_as_written_in_the_data() -> None:
    """A combo named with a space at its end ("Square 1 Combo ", as a data file may hold it)
    is the option a player names as the table listed it (it was refused: the name asked
    was trimmed, the option's not)."""
    square = Option(OptionKind.CARD, "Square 1 Combo ", 30)
    total = Option(OptionKind.SUM, SUM_OPTION, 12)
    score = ThrowScore((0, 0, 0, 0, 0, 0), (square, total), square)
    assert score.option("Square 1 Combo ") is square and score.option("square 1 combo") is square
    assert score.option("sum") is total and score.option("Goku Blast") is None


def test_the_best_option_is_the_first_on_a_tie() -> None:
    """ThrowScore.best is "first on ties": the fighter's combo before a card of the same
    damage (the card is kept), a card before the symbol sum (review tests r04)."""
    goku = scenario_roster()["Son Goku"].fighter()
    dice = [Symbol.SPHERE, Symbol.SPHERE, Symbol.SPHERE, Symbol.KICK]
    kamehameha = ThrowScorer(goku).score(dice).best
    assert kamehameha.name == "Kamehameha"
    same = CardCombo("Same Blast", (Symbol.SPHERE, Symbol.KICK), kamehameha.damage)
    assert ThrowScorer(goku, [same]).score(dice).best.name == "Kamehameha"
    total = ThrowScorer(goku).score([Symbol.KICK, Symbol.PUNCH]).best
    assert total.kind is OptionKind.SUM
    card = CardCombo("Even", (Symbol.KICK, Symbol.PUNCH), total.damage)
    assert ThrowScorer(goku, [card]).score([Symbol.KICK, Symbol.PUNCH]).best.name == "Even"
