"""The symbols a combo asks for, as every data file writes them (warriors, cards, Story squares).

docs/rules.md §1: a combo names attack symbols and teleports, never the wild star, and no more
symbols than a pool has dice.
"""

from __future__ import annotations

from typing import Any

from controller.core.checked import Problems
from controller.core.quoting import short_repr
from controller.core.symbols import MAX_POOL, SYMBOL_NAMES, Symbol


def combo_symbols(
    raw: Any, problems: Problems, entry: str, field: str, *, file: str | None = None
) -> tuple[Symbol, ...] | None:
    """``raw``, a non-empty list of symbol names, as symbols; None when it is wrong (each
    problem noted in ``problems``, naming ``entry``, ``field`` and ``file``, if given)."""
    if not isinstance(raw, list) or not raw:
        problems.add(entry, field, "expected a non-empty list of symbols", file=file)
        return None
    mark = problems.mark()
    out: list[Symbol] = []
    for s in raw:
        if s == Symbol.STAR:
            message = "a combo cannot ask for a star: the star is wild (docs/rules.md §1)"
            problems.add(entry, field, message, file=file)
        elif s not in SYMBOL_NAMES:
            message = f"unknown symbol {short_repr(s)}; expected one of {', '.join(SYMBOL_NAMES)}"
            problems.add(entry, field, message, file=file)
        else:
            out.append(Symbol(s))
    if len(raw) > MAX_POOL:
        message = f"{len(raw)} symbols, but a pool never has more than {MAX_POOL} dice"
        problems.add(entry, field, message, file=file)
    return None if problems.since(mark) else tuple(out)


def combo_problem(names: list[str]) -> str | None:
    """What is wrong with a combo of symbol ``names`` given on its own (a command line's
    card, a scenario's), by :func:`combo_symbols`' rules: its first problem, or None."""
    problems = Problems()
    return (
        None if combo_symbols(names, problems, "", "") is not None else next(iter(problems)).message
    )
