"""Loading and validating warrior files (``warriors.toml``).

The format is documented in ``controller/data/README.md``. A file may name a
``base`` file whose warriors it completes: the bundled demo set fills the
fields the rulebook does not print on top of the rulebook's own table, so the
printed numbers have one source. ``"unknown"`` marks a field nobody has
entered yet. Every problem is collected and reported at once, each naming the
file, the warrior and the field.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.core.errors import DataError, DataProblem
from controller.core.symbols import ATTACK_SYMBOLS, MAX_POOL, SYMBOL_NAMES, Symbol
from controller.core.tomlfile import read_toml
from controller.rules.dice import TOURNAMENT_DIE, Die
from controller.rules.warriors import (
    COUNTED_ABILITIES,
    NO_ABILITY,
    Ability,
    AbilityKind,
    Combo,
    Form,
    Roster,
    Warrior,
)

UNKNOWN = "unknown"
FILE_KEYS = frozenset({"base", "invented", "note", "die", "warrior"})
WARRIOR_KEYS = frozenset(
    {"name", "aliases", "endurance", "power", "technique", "values", "dodge", "ability",
     "transform_dice", "combos", "form", "note"}
)  # fmt: skip
FORM_KEYS = frozenset(
    {"name", "aliases", "threshold", "power", "technique", "divisor", "cost", "values", "combos",
     "dodge", "ability", "note"}
)  # fmt: skip
REQUIRED_WARRIOR = (
    "name",
    "endurance",
    "power",
    "technique",
    "values",
    "dodge",
    "ability",
    "combos",
)
REQUIRED_FORM = ("name", "threshold", "power", "technique", "divisor", "cost")
MAX_TECHNIQUE = 10
MAX_DIVISOR = 10


@dataclass(frozen=True)
class WarriorFile:
    """A parsed warriors file: its roster and whether its contents are invented."""

    roster: Roster
    invented: bool
    files: tuple[str, ...]  # this file and the base files it completes
    die: Die = TOURNAMENT_DIE  # the dice's faces (a ``[die]`` table; default: one of each symbol)


def load_warriors(path: str | Path) -> WarriorFile:
    """Load, merge (with its ``base`` chain) and validate a warriors file.

    Raises:
        DataError: every problem found, each naming file, warrior and field.
    """
    path = Path(path)
    chain = _read_chain(path)
    problems: list[DataProblem] = []
    merged: dict[str, dict[str, Any]] = {}  # casefold name -> entry (with "_file")
    aliases: dict[str, str] = {}
    invented = False
    die = TOURNAMENT_DIE
    for file, data in chain:
        invented = invented or bool(data.get("invented", False))
        problems.extend(_check_file_keys(data, file))
        if "die" in data:
            die = _parse_die(data["die"], file, problems) or die
        entries = data.get("warrior", [])
        if not isinstance(entries, list):
            problems.append(DataProblem(file, "", "warrior", "expected [[warrior]] tables"))
            continue
        seen_here: set[str] = set()
        for i, raw in enumerate(entries):
            if (
                not isinstance(raw, dict)
                or not isinstance(raw.get("name"), str)
                or not raw["name"].strip()
            ):
                problems.append(
                    DataProblem(file, f"warrior #{i + 1}", "name", "expected a non-empty string")
                )
                continue
            key = raw["name"].strip().casefold()
            key = aliases.get(key, key)
            if key in seen_here:
                problems.append(
                    DataProblem(file, f"warrior {raw['name']!r}", "name", "duplicate warrior name")
                )
                continue
            seen_here.add(key)
            if key in merged:
                merged[key] = _merge(merged[key], raw, file)
            else:
                merged[key] = {**raw, "_file": file}
            for alias in raw.get("aliases", []) if isinstance(raw.get("aliases"), list) else []:
                if isinstance(alias, str):
                    aliases[alias.casefold()] = key
    warriors: list[Warrior] = []
    for entry in merged.values():
        warrior = _build_warrior(entry, problems)
        if warrior is not None:
            warriors.append(warrior)
    _check_name_clashes(warriors, merged, problems)
    if problems:
        raise DataError(problems)
    files = tuple(f for f, _ in chain)
    return WarriorFile(Roster(warriors, str(path)), invented, files, die)


def _parse_die(raw: Any, file: str, problems: list[DataProblem]) -> Die | None:
    """A ``[die]`` table: ``name`` and ``faces`` (a list of symbols, one per face)."""
    if not isinstance(raw, dict):
        problems.append(
            DataProblem(file, "die", "", 'expected a table like { name = "...", faces = [...] }')
        )
        return None
    extra = set(raw) - {"name", "faces"}
    if extra:
        problems.append(
            DataProblem(file, "die", sorted(extra)[0], "unknown key; expected name and faces")
        )
    faces = raw.get("faces")
    if not isinstance(faces, list) or not faces or not all(f in SYMBOL_NAMES for f in faces):
        problems.append(
            DataProblem(
                file, "die", "faces", f"expected a non-empty list of {', '.join(SYMBOL_NAMES)}"
            )
        )
        return None
    name = raw.get("name", "custom")
    return Die(str(name), tuple(Symbol(f) for f in faces))


def _read_chain(path: Path) -> list[tuple[str, dict[str, Any]]]:
    """The file and its base files, base first."""
    chain: list[tuple[str, dict[str, Any]]] = []
    seen: set[Path] = set()
    current: Path | None = path
    while current is not None:
        resolved = current.resolve()
        if resolved in seen:
            raise DataError.single(str(current), "", "base", "base files form a loop")
        seen.add(resolved)
        data = read_toml(current)
        chain.append((str(current), data))
        base = data.get("base")
        if base is None:
            current = None
        elif not isinstance(base, str):
            raise DataError.single(
                str(current), "", "base", "expected a path relative to this file"
            )
        else:
            current = current.parent / base
    chain.reverse()
    return chain


def _check_file_keys(data: Mapping[str, Any], file: str) -> list[DataProblem]:
    out = [
        DataProblem(file, "", k, f"unknown key; expected one of {', '.join(sorted(FILE_KEYS))}")
        for k in data
        if k not in FILE_KEYS
    ]
    if "invented" in data and not isinstance(data["invented"], bool):
        out.append(DataProblem(file, "", "invented", "expected true or false"))
    return out


def _merge(base: dict[str, Any], over: Mapping[str, Any], file: str) -> dict[str, Any]:
    """``over`` completes ``base``: its keys win; forms are merged by name."""
    out = dict(base)
    origin: dict[str, str] = dict(base.get("_origin", {}))
    for key, value in over.items():
        if key == "form" and isinstance(value, list) and isinstance(base.get("form"), list):
            out["form"] = _merge_forms(base["form"], value, file)
        else:
            out[key] = value
            origin[key] = file
    out["_origin"] = origin
    return out


def _merge_forms(base: list[Any], over: list[Any], file: str) -> list[Any]:
    forms = [dict(f) if isinstance(f, dict) else f for f in base]
    by_name = {
        f["name"].casefold(): i
        for i, f in enumerate(forms)
        if isinstance(f, dict) and isinstance(f.get("name"), str)
    }
    for f in over:
        name = f.get("name") if isinstance(f, dict) else None
        if isinstance(name, str) and name.casefold() in by_name:
            i = by_name[name.casefold()]
            forms[i] = {**forms[i], **f, "_file": file}
        else:
            forms.append({**f, "_file": file} if isinstance(f, dict) else f)
    return forms


class _Checker:
    """Collects problems for one warrior entry."""

    def __init__(self, entry: Mapping[str, Any], problems: list[DataProblem]) -> None:
        self.entry = entry
        self.problems = problems
        self.name = str(entry.get("name", "?"))
        self.unknown: set[str] = set()

    def file_of(self, field: str) -> str:
        origin: Mapping[str, str] = self.entry.get("_origin", {})
        return origin.get(field.split(".")[0].split("[")[0], self.entry.get("_file", "?"))

    def bad(self, field: str, message: str, file: str | None = None) -> None:
        self.problems.append(
            DataProblem(file or self.file_of(field), f"warrior {self.name!r}", field, message)
        )

    def integer(
        self, raw: Any, field: str, low: int, high: int, file: str | None = None
    ) -> int | None:
        if raw == UNKNOWN:
            self.unknown.add(field)
            return None
        if not isinstance(raw, int) or isinstance(raw, bool) or not low <= raw <= high:
            self.bad(field, f"expected a whole number {low}..{high}, got {raw!r}", file)
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
            if key in ("star", "teleport"):
                self.bad(
                    f"{field}.{key}", "star and teleport are worth 0 (RULES.md §1); remove it", file
                )
            elif key not in [s.value for s in ATTACK_SYMBOLS]:
                self.bad(
                    f"{field}.{key}",
                    "unknown symbol; expected kick, punch, sphere or strength",
                    file,
                )
            elif not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 99:
                self.bad(f"{field}.{key}", f"expected a whole number 0..99, got {value!r}", file)
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
                f"unknown ability {raw['kind']!r}; expected one of {', '.join(k.value for k in AbilityKind)}",
                file,
            )
            return None
        extra = set(raw) - {"kind", "n"}
        if extra:
            self.bad(field, f"unknown key {sorted(extra)[0]!r}; expected kind and n", file)
        if kind in COUNTED_ABILITIES:
            n = raw.get("n")
            if not isinstance(n, int) or isinstance(n, bool) or n not in (1, 2):
                self.bad(f"{field}.n", f"{kind} needs n = 1 or 2, got {n!r}", file)
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
                    where, f"unknown key {sorted(extra)[0]!r}; expected name, symbols, damage", file
                )
            name = c.get("name")
            if not isinstance(name, str) or not name.strip():
                self.bad(f"{where}.name", "expected a non-empty string", file)
                continue
            if name.casefold() in names:
                self.bad(f"{where}.name", f"duplicate combo name {name!r}", file)
            names.add(name.casefold())
            symbols = self.symbols(c.get("symbols"), f"{where}.symbols", file)
            damage = self.integer(c.get("damage"), f"{where}.damage", 0, 999, file)
            if symbols is not None and damage is not None:
                out.append(Combo(name, symbols, damage))
        return tuple(out)

    def symbols(self, raw: Any, field: str, file: str | None = None) -> tuple[Symbol, ...] | None:
        if not isinstance(raw, list) or not raw:
            self.bad(field, "expected a non-empty list of symbols", file)
            return None
        out: list[Symbol] = []
        for s in raw:
            if s == "star":
                self.bad(
                    field, "a combo cannot ask for a star: the star is wild (RULES.md §1)", file
                )
                return None
            if s not in SYMBOL_NAMES:
                self.bad(
                    field, f"unknown symbol {s!r}; expected one of {', '.join(SYMBOL_NAMES)}", file
                )
                return None
            out.append(Symbol(s))
        if len(out) > MAX_POOL:
            self.bad(
                field, f"{len(out)} symbols, but a pool never has more than {MAX_POOL} dice", file
            )
            return None
        return tuple(out)

    def aliases(self, raw: Any, field: str, file: str | None = None) -> tuple[str, ...]:
        if raw is None:
            return ()
        if not isinstance(raw, list) or not all(isinstance(a, str) and a.strip() for a in raw):
            self.bad(field, "expected a list of names", file)
            return ()
        return tuple(a.strip() for a in raw)


def _build_warrior(entry: dict[str, Any], problems: list[DataProblem]) -> Warrior | None:
    chk = _Checker(entry, problems)
    for key in entry:
        if not key.startswith("_") and key not in WARRIOR_KEYS:
            chk.bad(key, f"unknown key; expected one of {', '.join(sorted(WARRIOR_KEYS))}")
    for key in REQUIRED_WARRIOR:
        if key not in entry:
            chk.bad(key, 'missing (write "unknown" if the card is not at hand)')
    before = len(problems)
    endurance = chk.integer(entry.get("endurance"), "endurance", 1, 99)
    power = chk.integer(entry.get("power"), "power", 1, MAX_POOL)
    technique = chk.integer(entry.get("technique"), "technique", 0, MAX_TECHNIQUE)
    transform_dice = chk.integer(entry.get("transform_dice", 1), "transform_dice", 1, 2)
    values = chk.values(entry.get("values"), "values") if "values" in entry else None
    dodge = chk.integer(entry.get("dodge"), "dodge", 1, MAX_POOL) if "dodge" in entry else None
    ability = chk.ability(entry.get("ability"), "ability") if "ability" in entry else None
    combos = chk.combos(entry.get("combos"), "combos") if "combos" in entry else None
    aliases = chk.aliases(entry.get("aliases"), "aliases")
    forms = _build_forms(entry.get("form", []), chk, transform_dice or 1)
    if len(problems) > before or endurance is None or power is None or technique is None:
        return None
    return Warrior(
        name=chk.name.strip(),
        endurance=endurance,
        power=power,
        technique=technique,
        values=values or {},
        dodge=dodge or 0,
        ability=ability or NO_ABILITY,
        combos=combos or (),
        transform_dice=transform_dice or 1,
        forms=forms,
        aliases=aliases,
        unknown=frozenset(chk.unknown),
    )


def _build_forms(raw: Any, chk: _Checker, dice: int) -> tuple[Form, ...]:
    if not isinstance(raw, list):
        chk.bad("form", "expected [[warrior.form]] tables")
        return ()
    forms: list[Form] = []
    last_threshold = 0
    for i, f in enumerate(raw):
        if not isinstance(f, dict):
            chk.bad(f"form[{i}]", "expected a table")
            continue
        file = f.get("_file") or chk.file_of("form")
        label = f"form {f.get('name', i)!r}"
        for key in f:
            if not key.startswith("_") and key not in FORM_KEYS:
                chk.bad(
                    f"{label}.{key}",
                    f"unknown key; expected one of {', '.join(sorted(FORM_KEYS))}",
                    file,
                )
        for key in REQUIRED_FORM:
            if key not in f:
                chk.bad(
                    f"{label}.{key}", 'missing (write "unknown" if the card is not at hand)', file
                )
        name = f.get("name")
        if not isinstance(name, str) or not name.strip():
            continue
        threshold = chk.integer(f.get("threshold"), f"{label}.threshold", dice, 6 * dice, file)
        if threshold is not None:
            if threshold <= last_threshold:
                chk.bad(
                    f"{label}.threshold",
                    f"thresholds must rise in form order ({threshold} after {last_threshold})",
                    file,
                )
            last_threshold = threshold
        power = chk.integer(f.get("power"), f"{label}.power", 1, MAX_POOL, file)
        technique = chk.integer(f.get("technique"), f"{label}.technique", 0, MAX_TECHNIQUE, file)
        divisor = chk.integer(f.get("divisor"), f"{label}.divisor", 1, MAX_DIVISOR, file)
        cost = chk.integer(f.get("cost"), f"{label}.cost", 0, 99, file)
        values = chk.values(f["values"], f"{label}.values", file) if "values" in f else None
        combos = chk.combos(f["combos"], f"{label}.combos", file) if "combos" in f else None
        dodge = (
            chk.integer(f["dodge"], f"{label}.dodge", 1, MAX_POOL, file) if "dodge" in f else None
        )
        ability = chk.ability(f["ability"], f"{label}.ability", file) if "ability" in f else None
        if power is None or technique is None:
            continue
        forms.append(
            Form(
                name=name.strip(),
                threshold=threshold or 0,
                power=power,
                technique=technique,
                divisor=divisor or 1,
                cost=cost or 0,
                values=values,
                combos=combos,
                dodge=dodge,
                ability=ability,
                aliases=chk.aliases(f.get("aliases"), f"{label}.aliases", file),
            )
        )
    return tuple(forms)


def _check_name_clashes(
    warriors: list[Warrior], entries: Mapping[str, Mapping[str, Any]], problems: list[DataProblem]
) -> None:
    owner: dict[str, str] = {}
    for w in warriors:
        names = [w.name, *w.aliases]
        for f in w.forms:
            names += [f.name, *f.aliases]
        for n in names:
            key = n.casefold()
            if key in owner and owner[key] != w.name:
                file = str(entries.get(w.name.casefold(), {}).get("_file", "?"))
                problems.append(
                    DataProblem(
                        file,
                        f"warrior {w.name!r}",
                        "name",
                        f"{n!r} is also a name of {owner[key]!r}",
                    )
                )
            owner.setdefault(key, w.name)
