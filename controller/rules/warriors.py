"""Warrior cards as the rules engine sees them: combos, values, abilities, forms.

A :class:`Warrior` is a printed card with its transformations; a
:class:`Fighter` is that warrior in one form, with the form's numbers and the
base card's where the form does not print its own. Loading and validating the
TOML files is :mod:`controller.gamedata.warriors`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from controller.core.errors import DataError, UnknownNameError
from controller.core.quoting import short_repr
from controller.core.symbols import ATTACK_SYMBOLS, Symbol


class AbilityKind(StrEnum):
    """The abilities of docs/rules.md §8, by their data-file names."""

    NONE = "none"
    EXTRA_REROLL = "extra_reroll"
    ATTACKER_FEWER_REROLLS = "attacker_fewer_rerolls"
    REFLECT_SPHERE = "reflect_sphere"
    COUNTER_ATTACK = "counter_attack"
    EXTRA_ATTACK_DIE = "extra_attack_die"
    EXTRA_DEFENCE_DIE = "extra_defence_die"
    NO_DEFENCE_DICE = "no_defence_dice"
    DOUBLE_SUPPORT = "double_support"
    SOLAR_FLARE = "solar_flare"
    SHIELD = "shield"
    HEALTH = "health"
    ATTACKER_FEWER_DICE = "attacker_fewer_dice"
    SOLO = "solo"


# Abilities that take a count n (1 or 2).
COUNTED_ABILITIES = frozenset({AbilityKind.ATTACKER_FEWER_REROLLS, AbilityKind.ATTACKER_FEWER_DICE})


@dataclass(frozen=True)
class Ability:
    """One ability; ``n`` is the count for the 'fewer rerolls / dice' kinds."""

    kind: AbilityKind = AbilityKind.NONE
    n: int = 0

    def __str__(self) -> str:
        return f"{self.kind}({self.n})" if self.kind in COUNTED_ABILITIES else str(self.kind)


NO_ABILITY = Ability()


@dataclass(frozen=True)
class Combo:
    """A combo: a multiset of symbols (stars wild when matching) and its damage."""

    name: str
    symbols: tuple[Symbol, ...]
    damage: int

    @property
    def holds_sphere(self) -> bool:
        """Whether the combo asks for a sphere (reflect sphere and shield, §8)."""
        return Symbol.SPHERE in self.symbols


@dataclass(frozen=True)
class Form:
    """A transformation printed on a warrior's card. ``None`` fields: the base card's."""

    name: str
    threshold: int
    power: int
    technique: int
    divisor: int
    cost: int
    values: Mapping[Symbol, int] | None = None
    combos: tuple[Combo, ...] | None = None
    dodge: int | None = None
    ability: Ability | None = None
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True)
class Warrior:
    """A warrior card and its forms. ``unknown`` names fields no data file has filled."""

    name: str
    endurance: int
    power: int
    technique: int
    values: Mapping[Symbol, int]
    dodge: int
    ability: Ability
    combos: tuple[Combo, ...]
    transform_dice: int = 1
    forms: tuple[Form, ...] = ()
    aliases: tuple[str, ...] = ()
    unknown: frozenset[str] = field(default_factory=frozenset)
    story_only: bool = False  # a Story-mode card (Beerus): never drafted nor met on green
    source: str = field(default="", compare=False)  # its data file ("": built in code)

    def fighter(self, form: Form | None = None) -> Fighter:
        """This warrior in ``form`` (None: the base form).

        Raises:
            DataError: the card has fields no data file filled in (the rulebook
                does not print them); the message names them.
        """
        if self.unknown:
            raise DataError.single(
                self.source or "warrior data",
                f"warrior {self.name!r}",
                ", ".join(sorted(self.unknown)),
                "not printed in the rulebooks and not filled in by the data set; "
                "enter the card's values (see controller/data/README.md) or use the demo data",
            )
        if form is None:
            return Fighter(
                self,
                None,
                self.power,
                self.technique,
                self.values,
                self.combos,
                self.dodge,
                self.ability,
                divisor=1,
                cost=0,
            )
        return Fighter(
            self,
            form,
            form.power,
            form.technique,
            form.values if form.values is not None else self.values,
            form.combos if form.combos is not None else self.combos,
            form.dodge if form.dodge is not None else self.dodge,
            form.ability if form.ability is not None else self.ability,
            divisor=form.divisor,
            cost=form.cost,
        )

    def form_named(self, name: str) -> Form | None:
        """The form called ``name`` (case-insensitive, aliases too); None for the base name.

        Raises:
            UnknownNameError: neither the base name nor a form's.
        """
        key = name.strip().casefold()
        if key == self.name.casefold() or key in (a.casefold() for a in self.aliases):
            return None
        for form in self.forms:
            if key == form.name.casefold() or key in (a.casefold() for a in form.aliases):
                return form
        raise UnknownNameError(
            f"{self.name} has no form {short_repr(name)}: expected one of "
            + ", ".join([self.name, *(f.name for f in self.forms)])
        )

    def form_for_roll(self, roll: int) -> Form | None:
        """The highest form whose threshold ``roll`` reaches (docs/rules.md §6); None: base."""
        chosen: Form | None = None
        for form in self.forms:
            if roll >= form.threshold and (chosen is None or form.threshold >= chosen.threshold):
                chosen = form
        return chosen


@dataclass(frozen=True)
class Fighter:
    """A warrior in one form: the numbers a combat uses."""

    warrior: Warrior
    form: Form | None
    power: int
    technique: int
    values: Mapping[Symbol, int]
    combos: tuple[Combo, ...]
    dodge: int
    ability: Ability
    divisor: int
    cost: int
    # what is worked out once per fighter (its throw scorers): owned here, never shared
    memo: dict[tuple[object, ...], object] = field(
        default_factory=dict, init=False, compare=False, repr=False
    )

    @property
    def name(self) -> str:
        """The name of the form fighting (the card's name in base form)."""
        return self.form.name if self.form is not None else self.warrior.name

    def has(self, kind: AbilityKind) -> bool:
        """Whether this fighter's ability is ``kind``."""
        return self.ability.kind is kind

    def value_vector(self) -> tuple[int, int, int, int, int, int]:
        """Symbol values in Symbol order (star and teleport are 0, docs/rules.md §1)."""
        v = [self.values.get(s, 0) if s in ATTACK_SYMBOLS else 0 for s in Symbol]
        return (v[0], v[1], v[2], v[3], v[4], v[5])


class Roster(Mapping[str, Warrior]):
    """Warriors by name; lookups are case-insensitive and accept aliases and form names."""

    def __init__(self, warriors: Sequence[Warrior], source: str = "") -> None:
        self._warriors: dict[str, Warrior] = {w.name: w for w in warriors}
        self.source = source
        self._index: dict[str, tuple[Warrior, Form | None]] = {}
        for w in warriors:
            for key in (w.name, *w.aliases):
                self._index[key.casefold()] = (w, None)
            for f in w.forms:
                for key in (f.name, *f.aliases):
                    self._index.setdefault(key.casefold(), (w, f))

    def __getitem__(self, name: str) -> Warrior:
        return self.find(name)[0]

    def __iter__(self) -> Iterator[str]:
        return iter(self._warriors)

    def __len__(self) -> int:
        return len(self._warriors)

    def find(self, name: str) -> tuple[Warrior, Form | None]:
        """The warrior (and form, if ``name`` names one) called ``name``.

        Raises:
            UnknownNameError: no warrior, alias or form has that name.
        """
        hit = self._index.get(name.strip().casefold())
        if hit is None:
            close = [
                w for w in self._warriors if w.casefold().startswith(name.strip()[:3].casefold())
            ]
            hint = f" (did you mean {', '.join(close[:3])}?)" if close else ""
            raise UnknownNameError(f"unknown warrior {short_repr(name)}{hint}")
        return hit

    def fighter(self, name: str, form: str | None = None) -> Fighter:
        """The fighter called ``name``, in the form ``name`` or ``form`` names.

        Raises:
            UnknownNameError: unknown warrior or form.
            DataError: the card is incomplete (see :meth:`Warrior.fighter`).
        """
        warrior, found_form = self.find(name)
        if form is not None:
            found_form = warrior.form_named(form)
        return warrior.fighter(found_form)
