"""The field checkers of one ``[[warrior]]`` entry: numbers, values, ability, combos, aliases."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from controller.core.checked import Problems, name_key, name_problem
from controller.core.quoting import short_repr
from controller.core.symbols import ATTACK_SYMBOLS, Symbol
from controller.gamedata.combo_symbols import combo_symbols
from controller.rules.scoring import NO_COMBO_OPTION, SUM_OPTION
from controller.rules.warriors import (
    COUNTED_ABILITIES,
    Ability,
    AbilityKind,
    Combo,
)

UNKNOWN = "unknown"


MAX_COMBO_DAMAGE = 999  # the most damage a combo may deal (a warrior's, a Story square's)
MAX_SYMBOL_VALUE = 99  # the most a symbol is worth in a warrior's values


class WarriorChecker:
    """Collects problems for one warrior entry."""

    def __init__(self, entry: Mapping[str, Any], problems: Problems) -> None:
        self.entry = entry
        self.problems = problems
        self.name = str(entry.get("name", "?"))
        self.unknown: set[str] = set()
        self.missing: set[str] = set()  # the fields said missing (not said again as None)

    def file_of(self, field: str) -> str:
        origin: Mapping[str, str] = self.entry.get("_origin", {})
        return origin.get(field.split(".")[0].split("[")[0], self.entry.get("_file", "?"))

    @property
    def label(self) -> str:
        """How problems name the entry."""
        return f"warrior {self.name!r}"

    def bad(self, field: str, message: str, file: str | None = None) -> None:
        self.problems.add(self.label, field, message, file=file or self.file_of(field))

    def absent(self, field: str, file: str | None = None) -> None:
        """``field``, which the entry must give, is missing (said once: not also as None)."""
        self.missing.add(field)
        self.bad(field, 'missing (write "unknown" if the card is not at hand)', file)

    def note(self, raw: Mapping[str, Any], field: str = "note", file: str | None = None) -> None:
        """A problem when ``raw`` (the entry or one of its forms) has a ``note`` that is not
        text (a remark for people, never read)."""
        self.problems.optional_text(
            raw, "note", self.label, field, file=file or self.file_of(field)
        )

    def integer(
        self, raw: Any, field: str, low: int, high: int, file: str | None = None
    ) -> int | None:
        if raw == UNKNOWN:
            self.unknown.add(field)
            return None
        if raw is None and field in self.missing:
            return None
        if not isinstance(raw, int) or isinstance(raw, bool) or not low <= raw <= high:
            self.bad(field, f"expected a whole number {low}..{high}, got {short_repr(raw)}", file)
            return None
        return raw

    def values(self, raw: Any, field: str, file: str | None = None) -> dict[Symbol, int] | None:
        if raw == UNKNOWN:
            self.unknown.add(field)
            return None
        if not isinstance(raw, dict):
            self.bad(
                field,
                "expected a table like { kick = 2, punch = 4, sphere = 3, strength = 1 }",
                file,
            )
            return None
        out: dict[Symbol, int] = {}
        for key, value in raw.items():
            if key in (Symbol.STAR, Symbol.TELEPORT):
                self.bad(
                    f"{field}.{key}",
                    "star and teleport are worth 0 (docs/rules.md §1); remove it",
                    file,
                )
            elif key not in [s.value for s in ATTACK_SYMBOLS]:
                self.bad(
                    f"{field}.{key}",
                    "unknown symbol; expected kick, punch, sphere or strength",
                    file,
                )
            elif (
                not isinstance(value, int)
                or isinstance(value, bool)
                or not 0 <= value <= MAX_SYMBOL_VALUE
            ):
                self.bad(
                    f"{field}.{key}",
                    f"expected a whole number 0..{MAX_SYMBOL_VALUE}, got {short_repr(value)}",
                    file,
                )
            else:
                out[Symbol(key)] = value
        missing = [s.value for s in ATTACK_SYMBOLS if s.value not in raw]
        if missing:
            self.bad(field, f"missing the value of {', '.join(missing)}", file)
        return out

    def ability(self, raw: Any, field: str, file: str | None = None) -> Ability | None:
        if raw == UNKNOWN:
            self.unknown.add(field)
            return None
        if not isinstance(raw, dict) or "kind" not in raw:
            self.bad(
                field,
                'expected a table like { kind = "shield" } or { kind = "attacker_fewer_dice", n = 1 }',
                file,
            )
            return None
        try:
            kind = AbilityKind(raw["kind"])
        except ValueError:
            self.bad(
                f"{field}.kind",
                f"unknown ability {short_repr(raw['kind'])}; expected one of {', '.join(k.value for k in AbilityKind)}",
                file,
            )
            return None
        extra = set(raw) - {"kind", "n"}
        if extra:
            self.bad(
                field, f"unknown key {short_repr(sorted(extra)[0])}; expected kind and n", file
            )
        if kind in COUNTED_ABILITIES:
            n = raw.get("n")
            if not isinstance(n, int) or isinstance(n, bool) or n not in (1, 2):
                self.bad(f"{field}.n", f"{kind} needs n = 1 or 2, got {short_repr(n)}", file)
                return None
            return Ability(kind, n)
        if "n" in raw:
            self.bad(f"{field}.n", f"{kind} takes no n", file)
        return Ability(kind)

    def combos(self, raw: Any, field: str, file: str | None = None) -> tuple[Combo, ...] | None:
        if raw == UNKNOWN:
            self.unknown.add(field)
            return None
        if not isinstance(raw, list):
            self.bad(field, "expected a list of { name, symbols, damage } tables", file)
            return None
        out: list[Combo] = []
        names: set[str] = set()
        for i, c in enumerate(raw):
            where = f"{field}[{i}]"
            if not isinstance(c, dict):
                self.bad(where, "expected a { name, symbols, damage } table", file)
                continue
            extra = set(c) - {"name", "symbols", "damage"}
            if extra:
                self.bad(
                    where,
                    f"unknown key {short_repr(sorted(extra)[0])}; expected name, symbols, damage",
                    file,
                )
            name = c.get("name")
            if not isinstance(name, str) or not name.strip():
                self.bad(f"{where}.name", "expected a non-empty string", file)
                continue
            if (why := name_problem(name)) is not None:
                self.bad(f"{where}.name", why, file)
                continue
            same = name_key(name)
            if name.strip().casefold() in (SUM_OPTION, NO_COMBO_OPTION):
                # a player names the option they score: this one would hide the sum's
                self.bad(f"{where}.name", f"{short_repr(name)} names another option", file)
                continue
            if same in names:
                self.bad(f"{where}.name", f"duplicate combo name {short_repr(name)}", file)
            names.add(same)
            symbols = self.symbols(c.get("symbols"), f"{where}.symbols", file)
            damage = self.integer(c.get("damage"), f"{where}.damage", 0, MAX_COMBO_DAMAGE, file)
            if symbols is not None and damage is not None:
                out.append(Combo(name.strip(), symbols, damage))  # named as it is asked
        return tuple(out)

    def symbols(self, raw: Any, field: str, file: str | None = None) -> tuple[Symbol, ...] | None:
        where = file or self.file_of(field)
        return combo_symbols(raw, self.problems, f"warrior {self.name!r}", field, file=where)

    def aliases(self, raw: Any, field: str, file: str | None = None) -> tuple[str, ...]:
        if raw is None:
            return ()
        if not isinstance(raw, list) or not all(isinstance(a, str) and a.strip() for a in raw):
            self.bad(field, "expected a list of names", file)
            return ()
        for i, alias in enumerate(raw):
            if (why := name_problem(alias)) is not None:
                self.bad(f"{field}[{i}]", why, file)
                return ()
        return tuple(a.strip() for a in raw)
