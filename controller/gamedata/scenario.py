"""Combat scenario files: what happened at the table in one combat, as JSON.

The format (also in ``controller/data/README.md``)::

    {"attacker": {"warrior": "Kefla", "damage": 0, "support": 1, "transform_roll": 6},
     "defender": {"warrior": "Cabba", "damage": 4, "support": 0, "transform_roll": 5},
     "throws": [["sphere", "punch", ...], ...],
     "attack": "best",
     "dodge_throws": [["teleport", "kick", "star"], ...]}

Optional keys: a side's ``form`` (a form fixed without a roll) and ``cards``
(card combos in hand: ``{"name", "symbols", "damage", "defence",
"invulnerable", "sphere_only"}``); ``defence_card`` (``{"card": {...}, "deck",
"throws"}``), ``flee``, ``reflect_dodge_throws`` or ``reflect_card`` (the attacker's
answer to its reflected sphere), ``counter`` (``{"throws", "attack",
"dodge_throws"}``), ``green`` (the defender is a green-space warrior) and
``variants`` (a list of variant names, docs/rules.md).
Scenario test files add ``expect`` (a subset of the JSON result to compare).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from controller.core.checked import name_problem
from controller.core.errors import DataError, InvalidThrowError, TopTableError, UnknownNameError
from controller.core.jsonfile import read_json
from controller.core.quoting import printable, short_repr
from controller.core.symbols import MAX_POOL, parse_symbol
from controller.gamedata.cards import DRAW_DECKS, MAX_AMOUNT, Deck
from controller.gamedata.combo_symbols import combo_problem
from controller.rules.combat_types import (
    Attack,
    CombatInput,
    DefenceCardPlay,
    Side,
    Throw,
)
from controller.rules.endurance import damage_still_standing, is_eliminated
from controller.rules.scoring import CardCombo, CardDefence
from controller.rules.variants import Variants
from controller.rules.warriors import Roster

BEST = "best"  # the files' spelling of an attack cashing in its best option
SIDE_KEYS = frozenset({"warrior", "damage", "support", "transform_roll", "form", "cards"})
TOP_KEYS = frozenset(
    {"attacker", "defender", "throws", "attack", "dodge_throws", "defence_card", "flee",
     "reflect_dodge_throws", "reflect_card", "counter", "variants", "green", "expect",
     "description", "data"}
)  # fmt: skip
CARD_KEYS = frozenset({"name", "symbols", "damage", "defence", "invulnerable", "sphere_only"})
PLAY_KEYS = frozenset({"card", "deck", "throws"})
ATTACK_KEYS = frozenset(
    {"throws", "attack", "dodge_throws", "defence_card", "flee", "reflect_dodge_throws",
     "reflect_card"}
)  # fmt: skip


class ScenarioError(TopTableError, ValueError):
    """A scenario file that does not describe a combat; the message names the key."""


def load_scenario_file(path: str | Path) -> dict[str, Any]:
    """Read a scenario JSON file.

    Raises:
        DataError: unreadable or not JSON (with the line and column).
    """
    path = Path(path)
    data = read_json(path)
    if not isinstance(data, dict):
        raise DataError.single(str(path), "", "", "expected a JSON object")
    return data


def parse_scenario(data: Mapping[str, Any], roster: Roster) -> CombatInput:
    """Turn a scenario object into a :class:`CombatInput`.

    Raises:
        ScenarioError: a missing or malformed key (named in the message).
        InvalidThrowError: an unknown symbol in a throw.
        UnknownNameError: an unknown warrior or form.
    """
    for key in data:
        if key not in TOP_KEYS:
            raise ScenarioError(
                f"unknown key {short_repr(key)}; expected one of {', '.join(sorted(TOP_KEYS))}"
            )
    names = _list(data.get("variants", []), "variants")
    if not all(isinstance(n, str) for n in names):
        raise ScenarioError("'variants': expected a list of variant names")
    variants = Variants.from_names(names)
    attacker = _side(data, "attacker", roster, variants)
    defender = _side(data, "defender", roster, variants)
    attack = _attack(data, "")
    counter = None
    if data.get("counter") is not None:
        raw = data["counter"]
        if not isinstance(raw, dict):
            raise ScenarioError("'counter': expected an object with throws, attack, dodge_throws")
        for key in raw:
            if key not in ATTACK_KEYS:
                raise ScenarioError(f"'counter': unknown key {short_repr(key)}")
        counter = _attack(raw, "counter.")
    green = data.get("green", False)
    if not isinstance(green, bool):
        raise ScenarioError("'green': expected true or false")
    return CombatInput(attacker, defender, attack, counter, variants, green)


def _side(data: Mapping[str, Any], role: str, roster: Roster, variants: Variants) -> Side:
    raw = data.get(role)
    if not isinstance(raw, dict):
        raise ScenarioError(f"'{role}': expected an object with at least 'warrior'")
    for key in raw:
        if key not in SIDE_KEYS:
            raise ScenarioError(
                f"'{role}.{printable(key)}': unknown key; expected one of {', '.join(sorted(SIDE_KEYS))}"
            )
    name = raw.get("warrior")
    if not isinstance(name, str):
        raise ScenarioError(f"'{role}.warrior': expected a warrior name")
    try:
        warrior, form = roster.find(name)
        if raw.get("form") is not None:
            if not isinstance(raw["form"], str):
                raise ScenarioError(f"'{role}.form': expected a form name")
            form = warrior.form_named(raw["form"])
    except UnknownNameError as exc:
        raise UnknownNameError(f"'{role}': {exc}") from None
    roll = raw.get("transform_roll")
    if roll is not None and not (
        _is_int(roll) or (isinstance(roll, list) and all(_is_int(r) for r in roll))
    ):
        raise ScenarioError(f"'{role}.transform_roll': expected a number or a list of dice")
    cards = tuple(
        _card(c, f"{role}.cards[{i}]")
        for i, c in enumerate(_list(raw.get("cards", []), f"{role}.cards"))
    )
    damage = _count(raw.get("damage", 0), f"{role}.damage")
    if is_eliminated(damage, warrior.endurance, variants):
        most = damage_still_standing(warrior.endurance, variants)
        raise ScenarioError(
            f"'{role}.damage': {short_repr(damage)}, but {warrior.name} has {warrior.endurance} endurance "
            f"(a warrior with that much damage is out); expected 0..{most}"
        )
    support = _count(raw.get("support", 0), f"{role}.support")
    if support > MAX_POOL:
        raise ScenarioError(
            f"'{role}.support': {short_repr(support)} support dice; expected 0..{MAX_POOL}"
        )
    return Side(
        warrior=warrior,
        damage=damage,
        support=support,
        transform_roll=tuple(roll) if isinstance(roll, list) else roll,
        form=form,
        cards=cards,
    )


def _attack(data: Mapping[str, Any], prefix: str) -> Attack:
    choice = data.get("attack", BEST)
    if not isinstance(choice, str):
        raise ScenarioError(f'\'{prefix}attack\': expected a combo name, "sum" or "{BEST}"')
    defence_card = _card_play(data.get("defence_card"), f"{prefix}defence_card")
    reflect_card = _card_play(data.get("reflect_card"), f"{prefix}reflect_card")
    return Attack(
        throws=_throws(data.get("throws"), f"{prefix}throws"),
        choice=None if choice.strip().casefold() == BEST else choice,
        dodge_throws=_throws(data["dodge_throws"], f"{prefix}dodge_throws")
        if data.get("dodge_throws") is not None
        else None,
        defence_card=defence_card,
        flee=_flag(data, "flee", prefix),
        reflect_dodge_throws=(
            _throws(data["reflect_dodge_throws"], f"{prefix}reflect_dodge_throws")
            if data.get("reflect_dodge_throws") is not None
            else None
        ),
        reflect_card=reflect_card,
    )


def _card_play(raw: Any, where: str) -> DefenceCardPlay | None:
    """A card played as an answer (``{card, deck, throws}``), or None when absent.

    Raises:
        ScenarioError: not such an object, an unknown key, a bad card, deck or throws.
    """
    if raw is None:
        return None
    if not isinstance(raw, dict) or "card" not in raw:
        raise ScenarioError(f"'{where}': expected {{card, deck, throws}}")
    for key in raw:
        if key not in PLAY_KEYS:
            raise ScenarioError(
                f"'{where}.{printable(key)}': unknown key; expected one of {', '.join(sorted(PLAY_KEYS))}"
            )
    wanted = raw.get("deck", Deck.DEFENCE.value)
    deck = next((d for d in DRAW_DECKS if d.value == wanted), None)
    if deck is None:  # an event card answers no attack
        raise ScenarioError(f"'{where}.deck': expected attack, defence or special")
    return DefenceCardPlay(
        _card(raw["card"], f"{where}.card"), deck, _throws(raw.get("throws"), f"{where}.throws")
    )


def _card(raw: Any, where: str) -> CardCombo:
    if not isinstance(raw, dict) or not isinstance(raw.get("name"), str):
        raise ScenarioError(f"'{where}': expected {{name, symbols, damage}}")
    if not raw["name"].strip():
        raise ScenarioError(
            f"'{where}.name': expected the card's name, got {short_repr(raw['name'])}"
        )
    if (why := name_problem(raw["name"])) is not None:
        raise ScenarioError(f"'{where}.name': {why}")
    for key in raw:
        if key not in CARD_KEYS:
            raise ScenarioError(
                f"'{where}.{printable(key)}': unknown key; expected one of {', '.join(sorted(CARD_KEYS))}"
            )
    try:
        defence = CardDefence(raw.get("defence", CardDefence.ANY.value))
    except ValueError:
        raise ScenarioError(
            f"'{where}.defence': expected one of {', '.join(d.value for d in CardDefence)}"
        ) from None
    symbols = _throw(raw.get("symbols"), f"{where}.symbols")
    wrong = combo_problem([s.value for s in symbols])  # the data files' rules for a combo
    if wrong is not None:
        raise ScenarioError(f"'{where}.symbols': {wrong}")
    damage = _count(raw.get("damage", 0), f"{where}.damage")
    if damage > MAX_AMOUNT:
        raise ScenarioError(f"'{where}.damage': {short_repr(damage)}; expected 0..{MAX_AMOUNT}")
    return CardCombo(
        name=raw["name"],
        symbols=symbols,
        damage=damage,
        defence=defence,
        invulnerable=_flag(raw, "invulnerable", f"{where}."),
        sphere_only=_flag(raw, "sphere_only", f"{where}."),
    )


def _throws(raw: Any, where: str) -> tuple[Throw, ...]:
    if not isinstance(raw, list) or not raw:
        raise ScenarioError(f"'{where}': expected a list of throws (each a list of symbols)")
    return tuple(_throw(t, f"{where}[{i}]") for i, t in enumerate(raw))


def _throw(raw: Any, where: str) -> Throw:
    if not isinstance(raw, list) or not all(isinstance(s, str) for s in raw):
        raise ScenarioError(f"'{where}': expected a list of symbol names")
    try:
        return tuple(parse_symbol(s) for s in raw)
    except InvalidThrowError as exc:
        raise InvalidThrowError(f"'{where}': {exc}") from None


def _list(raw: Any, where: str) -> list[Any]:
    if not isinstance(raw, list):
        raise ScenarioError(f"'{where}': expected a list")
    return raw


def _flag(data: Mapping[str, Any], key: str, prefix: str) -> bool:
    """``data[key]`` as true or false (False when absent); "no" or 0 is refused, where
    ``bool`` would read "no" as true."""
    value = data.get(key, False)
    if not isinstance(value, bool):
        raise ScenarioError(f"'{prefix}{key}': expected true or false, got {short_repr(value)}")
    return value


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _count(raw: Any, where: str) -> int:
    if not _is_int(raw) or raw < 0:
        raise ScenarioError(f"'{where}': expected a whole number >= 0, got {short_repr(raw)}")
    return int(raw)
