"""Loading and validating warrior files (``warriors.toml``).

The format is documented in ``controller/data/README.md``. A file may name a
``base`` file whose warriors it completes: the bundled demo set fills the
fields the rulebook does not print on top of the rulebook's own table, so the
printed numbers have one source. ``"unknown"`` marks a field nobody has
entered yet. Every problem is collected and reported at once, each naming the
file, the warrior and the field; a base file's value that a later file replaces is
checked too (each file on its own), so a slip there is named, not hidden.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.core.checked import Problems, name_key, name_problem, shown_name_problem
from controller.core.errors import DataError
from controller.core.pathkind import is_file
from controller.core.quoting import short_repr
from controller.core.symbols import SYMBOL_NAMES, Symbol
from controller.core.tomlfile import read_toml
from controller.gamedata.warrior_entries import (
    REQUIRED_WARRIOR,
    build_warrior,
    check_name_clashes,
)
from controller.rules.dice import TOURNAMENT_DIE, Die
from controller.rules.warriors import (
    Roster,
    Warrior,
)

FILE_KEYS = frozenset({"base", "invented", "note", "die", "warrior"})
DIE_FACES = 6


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
    problems = Problems(str(path))
    merged: dict[str, dict[str, Any]] = {}  # casefold name -> entry (with "_file")
    aliases: dict[str, str] = {}
    invented = False
    die = TOURNAMENT_DIE
    bases: list[dict[str, dict[str, Any]]] = []  # the entries as each base file left them
    for file, data in chain:
        if merged:
            bases.append(dict(merged))  # (a merge makes new entries: this one stays)
        invented = invented or bool(data.get("invented", False))
        _check_file_keys(data, file, problems)
        if "die" in data:
            die = _parse_die(data["die"], file, problems) or die
        entries = data.get("warrior", [])
        if not isinstance(entries, list):
            problems.add("", "warrior", "expected [[warrior]] tables", file=file)
            continue
        seen_here: set[str] = set()
        for i, raw in enumerate(entries):
            if (
                not isinstance(raw, dict)
                or not isinstance(raw.get("name"), str)
                or not raw["name"].strip()
            ):
                problems.add(f"warrior #{i + 1}", "name", "expected a non-empty string", file=file)
                continue
            if (why := shown_name_problem(raw["name"])) is not None:
                problems.add(f"warrior #{i + 1}", "name", why, file=file)
                continue
            key = raw["name"].strip().casefold()
            key = aliases.get(key, key)
            if key in seen_here:
                problems.add(
                    f"warrior {raw['name']!r}", "name", "duplicate warrior name", file=file
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
    lacking = _not_in_base(list(merged.values()), chain, problems)
    for entry in merged.values():
        if entry["name"] in lacking:
            continue
        warrior = build_warrior(entry, problems)
        if warrior is not None:
            warriors.append(warrior)
    check_name_clashes(warriors, merged, problems)
    _check_bases(bases, merged, problems)
    problems.check()
    files = tuple(f for f, _ in chain)
    return WarriorFile(Roster(warriors, str(path)), invented, files, die)


def _not_in_base(
    entries: list[dict[str, Any]], chain: list[tuple[str, dict[str, Any]]], problems: Problems
) -> set[str]:
    """The names of the ``entries`` that first come in a file completing a base and lack
    what a warrior needs, each said in one line (the base's name spelt otherwise, most
    likely: not each field missing), or, where a base holds no warrior at all (cut
    short), that base once."""
    bases = [file for file, _ in chain[:-1]]
    lacking: dict[str, tuple[dict[str, Any], list[str]]] = {}
    for entry in entries:
        gaps = [k for k in REQUIRED_WARRIOR if k not in entry]
        if bases and entry["_file"] not in bases and gaps:
            lacking[entry["name"]] = (entry, gaps)
    empty = [file for file, data in chain[:-1] if not data.get("warrior")]
    if lacking and empty:
        for file in empty:
            problems.add("", "warrior", "holds no [[warrior]] tables; expected the warriors "
                         "the files naming it as their base complete", file=file)  # fmt: skip
        return set(lacking)
    in_base = ", ".join(Path(b).name for b in bases)
    for name, (entry, gaps) in lacking.items():
        problems.add(
            f"warrior {name!r}", "name", f"in none of its base files ({in_base}), and it "
            f"gives no {', '.join(gaps)}: the base's name spelt otherwise, or a warrior new "
            "here needs them", file=entry["_file"],
        )  # fmt: skip
    return set(lacking)


def _check_bases(
    bases: list[dict[str, dict[str, Any]]], merged: Mapping[str, Any], problems: Problems
) -> None:
    """Each base file on its own (with its own bases): a value a later file replaces is
    checked too, named in its file, not hidden. A warrior is named as the whole chain names
    it, so a problem both see is named once."""
    named = set(problems)
    for entries in bases:
        found = Problems(problems.file)
        for key, entry in entries.items():
            build_warrior({**entry, "name": merged[key]["name"]}, found, complete=False)
        fresh = [p for p in dict.fromkeys(found) if p not in named]
        named.update(fresh)
        problems.extend(fresh)


def _parse_die(raw: Any, file: str, problems: Problems) -> Die | None:
    """A ``[die]`` table: ``name`` and ``faces`` (a list of symbols, one per face)."""
    if not isinstance(raw, dict):
        problems.add("die", "", 'expected a table like { name = "...", faces = [...] }', file=file)
        return None
    extra = set(raw) - {"name", "faces"}
    if extra:
        problems.add("die", sorted(extra)[0], "unknown key; expected name and faces", file=file)
    faces = raw.get("faces")
    if not isinstance(faces, list) or not faces or not all(f in SYMBOL_NAMES for f in faces):
        problems.add(
            "die", "faces", f"expected a non-empty list of {', '.join(SYMBOL_NAMES)}", file=file
        )
        return None
    if len(faces) != DIE_FACES:  # the camera reads, and the books throw, six-sided dice
        problems.add(
            "die", "faces", f"{len(faces)} faces; a die has {DIE_FACES} (docs/rules.md §1)",
            file=file,
        )  # fmt: skip
        return None
    name = raw.get("name", "custom")
    if not isinstance(name, str) or not name.strip():
        problems.add("die", "name", f"expected the die's name, got {short_repr(name)}", file=file)
        return None
    if (why := name_problem(name)) is not None:
        problems.add("die", "name", why, file=file)
        return None
    return Die(name, tuple(Symbol(f) for f in faces))


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
        elif not isinstance(base, str) or not base.strip() or "\x00" in base:
            raise DataError.single(
                str(current), "", "base", "expected a path relative to this file"
            )
        else:
            named = current.parent / base
            if not is_file(named):  # said of this file's field, not of a path it made
                raise DataError.single(
                    str(current),
                    "",
                    "base",
                    f"names {short_repr(base)}, which is no file; expected the path of the "
                    "warriors file this one completes, relative to this file",
                )
            current = named
    chain.reverse()
    return chain


def _check_file_keys(data: Mapping[str, Any], file: str, problems: Problems) -> None:
    for k in data:
        if k not in FILE_KEYS:
            problems.add(
                "", k, f"unknown key; expected one of {', '.join(sorted(FILE_KEYS))}", file=file
            )
    problems.optional_text(data, "note", file=file)
    if "invented" in data and not isinstance(data["invented"], bool):
        problems.add("", "invented", "expected true or false", file=file)


def _merge(base: dict[str, Any], over: Mapping[str, Any], file: str) -> dict[str, Any]:
    """``over`` completes ``base``: its keys win, but the name (``over`` names the warrior by
    its name or an alias, in any case: the base's name stays); forms are merged by name."""
    out = dict(base)
    origin: dict[str, str] = dict(base.get("_origin", {}))
    for key, value in over.items():
        if key == "name" and "name" in base:
            continue
        if key == "form" and isinstance(value, list) and isinstance(base.get("form"), list):
            out["form"] = _merge_forms(base["form"], value, file)
        else:
            out[key] = value
            origin[key] = file
    named, base_name = over.get("name"), base.get("name")
    if (
        isinstance(named, str)
        and isinstance(base_name, str)
        and (
            name_key(named) != name_key(base_name)  # named by an alias: the name stays one
        )
    ):
        aliases = out.get("aliases", [])
        if isinstance(aliases, list) and all(
            not isinstance(a, str) or name_key(a) != name_key(named) for a in aliases
        ):
            out["aliases"] = [*aliases, named.strip()]
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
