"""One ``[[warrior]]`` table and its ``[[warrior.form]]`` tables checked and built, and name clashes across them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from controller.core.checked import Problems, name_key, shown_name_problem
from controller.core.quoting import short_repr
from controller.core.symbols import MAX_POOL
from controller.gamedata.warrior_fields import WarriorChecker
from controller.rules.warriors import (
    NO_ABILITY,
    Form,
    Warrior,
)

WARRIOR_KEYS = frozenset(
    {"name", "aliases", "endurance", "power", "technique", "values", "dodge", "ability",
     "transform_dice", "combos", "form", "note", "story_only"}
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
MAX_ENDURANCE = 99


def build_warrior(
    entry: dict[str, Any], problems: Problems, *, complete: bool = True
) -> Warrior | None:
    """The warrior of one merged entry, or None with its problems added to ``problems``.

    ``complete=False`` checks the values a base file gives on its own: the keys it leaves
    out are not missing (the file completing it may give them).
    """
    chk = WarriorChecker(entry, problems)
    for key in entry:
        if not key.startswith("_") and key not in WARRIOR_KEYS:
            chk.bad(key, f"unknown key; expected one of {', '.join(sorted(WARRIOR_KEYS))}")
    for key in REQUIRED_WARRIOR if complete else ():
        if key not in entry:
            chk.absent(key)
    chk.note(entry)
    before = problems.mark()
    endurance = chk.integer(entry.get("endurance"), "endurance", 1, MAX_ENDURANCE)
    power = chk.integer(entry.get("power"), "power", 1, MAX_POOL)
    technique = chk.integer(entry.get("technique"), "technique", 0, MAX_TECHNIQUE)
    transform_dice = chk.integer(entry.get("transform_dice", 1), "transform_dice", 1, 2)
    values = chk.values(entry.get("values"), "values") if "values" in entry else None
    dodge = chk.integer(entry.get("dodge"), "dodge", 1, MAX_POOL) if "dodge" in entry else None
    ability = chk.ability(entry.get("ability"), "ability") if "ability" in entry else None
    combos = chk.combos(entry.get("combos"), "combos") if "combos" in entry else None
    aliases = chk.aliases(entry.get("aliases"), "aliases")
    story_only = entry.get("story_only", False)
    if not isinstance(story_only, bool):
        chk.bad("story_only", f"expected true or false, got {short_repr(story_only)}")
    forms = _build_forms(entry.get("form", []), chk, transform_dice or 1, complete)
    if problems.since(before) or endurance is None or power is None or technique is None:
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
        story_only=story_only is True,
        source=str(entry.get("_file", "")),
    )


def _build_forms(raw: Any, chk: WarriorChecker, dice: int, complete: bool) -> tuple[Form, ...]:
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
        chk.note(f, f"{label}.note", file)
        for key in REQUIRED_FORM if complete else ():
            if key not in f:
                chk.absent(f"{label}.{key}", file)
        name = f.get("name")
        if not isinstance(name, str) or not name.strip():
            if "name" in f:  # (a missing one is named above)
                chk.bad(f"{label}.name", "expected the form's name", file)
            continue
        if (why := shown_name_problem(name)) is not None:
            chk.bad(f"{label}.name", why, file)
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


def check_name_clashes(
    warriors: list[Warrior], entries: Mapping[str, Mapping[str, Any]], problems: Problems
) -> None:
    """Add a problem for every name or alias two warriors share, or one gives twice (its
    name, its forms' and their aliases; whatever their case and spaces)."""
    owner: dict[str, _Written] = {}
    for w in warriors:
        entry = entries.get(w.name.casefold(), {})
        file = str(entry.get("_file", "?"))
        # Each name with the field and file it is written in: an owner's alias for a
        # rulebook form is said of that form's aliases, in the owner's file.
        origin = entry.get("_origin", {})
        aliases_file = str(origin.get("aliases", file)) if isinstance(origin, Mapping) else file
        names = [("name", w.name, file), *(("aliases", a, aliases_file) for a in w.aliases)]
        for f in w.forms:
            field, form_file = f"form {f.name!r}", _form_file(entry, f.name, file)
            names += [(f"{field}.name", f.name, form_file)]
            names += [(f"{field}.aliases", a, form_file) for a in f.aliases]
        own: set[str] = set()
        for field, n, where in names:
            key = name_key(n)
            here = _Written(w.name, field, n, where, completed=where != file)
            first = owner.get(key)
            if key in own:
                said = f"{short_repr(n)} is given twice among its names, forms and aliases"
                problems.add(f"warrior {w.name!r}", field, said, file=where)
            elif first is not None and first.warrior != w.name:
                # said where the owner wrote it: of the side a later file added, if one did
                blamed, other = (
                    (first, here) if first.completed and not here.completed else (here, first)
                )
                said = f"{short_repr(blamed.text)} is also a name of {short_repr(other.warrior)}"
                problems.add(f"warrior {blamed.warrior!r}", blamed.field, said, file=blamed.file)
            own.add(key)
            owner.setdefault(key, here)


@dataclass(frozen=True)
class _Written:
    """A name as a warriors file gives it: whose, in which field and file; ``completed``:
    written by a file that completes the warrior's entry (an owner's, over the rulebook's)."""

    warrior: str
    field: str
    text: str
    file: str
    completed: bool


def _form_file(entry: Mapping[str, Any], name: str, file: str) -> str:
    """The file that last wrote the form ``name`` of a merged entry (its warrior's if none)."""
    forms = entry.get("form")
    for f in forms if isinstance(forms, list) else []:
        if isinstance(f, dict) and str(f.get("name", "")).casefold() == name.casefold():
            return str(f.get("_file", file))
    return file
