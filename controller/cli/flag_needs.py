"""Options that act only beside another: refused alone, not silently ignored.

``toptable demo --table-id hall-2`` without ``--mqtt`` used to play the whole game and
publish nothing, the table id read by nobody; an owner who mistyped ``--mqtt`` learned it
only from an empty scoreboard. A command declares such an option where it adds it
(:func:`only_with`); :func:`check_needs` runs after parsing, before the command, and turns
an option given without what it needs into argparse's one line and exit 2.

An option counts as given when its value differs from its default: one typed with its
default's value (``--pace 0.5``) changes nothing, so it is let through.
"""

from __future__ import annotations

import argparse
from collections.abc import Collection
from dataclasses import dataclass

NEEDS_KEY = "_only_with"
"""The namespace attribute holding the parsed command's rules (set as a parser default)."""

Need = argparse.Action | tuple[argparse.Action, Collection[object]]
"""What an option needs: another option given, or an argument holding one of some values."""


def _name(action: argparse.Action) -> str:
    """An option as the user types it (``--mqtt``), a positional by its metavar."""
    if action.option_strings:
        return max(action.option_strings, key=len)
    return str(action.metavar or action.dest).upper()


def _given(args: argparse.Namespace, action: argparse.Action) -> bool:
    return bool(getattr(args, action.dest, action.default) != action.default)


def _holds(args: argparse.Namespace, need: Need) -> bool:
    """Whether ``need`` holds: its option given, or its argument holding one of the values
    (a list argument: one of its items; left out, it holds them all)."""
    if not isinstance(need, tuple):
        return _given(args, need)
    action, values = need
    value = getattr(args, action.dest, action.default)
    if action.nargs in ("*", "+") or isinstance(value, list):
        return not value or any(v in values for v in value)
    return value in values


def _said(need: Need) -> str:
    if isinstance(need, tuple):
        action, values = need
        return f"{_name(action)} {' or '.join(str(v) for v in values)}"
    return _name(need)


@dataclass(frozen=True)
class OnlyWith:
    """``option`` does something only when one of ``needs`` holds (``against``: only when
    none holds: another option takes its place)."""

    parser: argparse.ArgumentParser
    option: argparse.Action
    needs: tuple[Need, ...]
    against: bool = False

    def met(self, args: argparse.Namespace) -> bool:
        """Whether the option is absent, or what it needs holds."""
        if not _given(args, self.option):
            return True
        held = [need for need in self.needs if _holds(args, need)]
        return not held if self.against else bool(held)

    def message(self, args: argparse.Namespace) -> str:
        """``--table-id is used only with --mqtt``; ``--seed is not used with --folder``."""
        if self.against:
            held = next(n for n in self.needs if _holds(args, n))
            if isinstance(held, tuple):  # the value typed: --mode tournament
                said = f"{_name(held[0])} {getattr(args, held[0].dest)}"
            else:
                said = _said(held)
            return f"{_name(self.option)} is not used with {said}"
        said = " or ".join(_said(n) for n in self.needs)
        return f"{_name(self.option)} is used only with {said}"


def only_with(parser: argparse.ArgumentParser, option: argparse.Action, *needs: Need) -> None:
    """Declare that ``option`` of ``parser``'s command acts only beside one of ``needs``
    (another option given, or ``(argument, values)``: that argument holding one of them).

    Raises:
        ValueError: no need named (a programming error).
    """
    _add(parser, OnlyWith(parser, option, _checked(option, needs)))


def not_with(parser: argparse.ArgumentParser, option: argparse.Action, *others: Need) -> None:
    """Declare that ``option`` of ``parser``'s command does nothing beside any of
    ``others`` (one of them takes its place: ``--seed`` beside ``--folder``).

    Raises:
        ValueError: no other named (a programming error).
    """
    _add(parser, OnlyWith(parser, option, _checked(option, others), against=True))


def _checked(option: argparse.Action, needs: tuple[Need, ...]) -> tuple[Need, ...]:
    if not needs:
        raise ValueError(f"{_name(option)}: a rule needs at least one other argument")
    return needs


def _add(parser: argparse.ArgumentParser, rule: OnlyWith) -> None:
    rules = parser.get_default(NEEDS_KEY)
    if rules is None:
        rules = []
        parser.set_defaults(**{NEEDS_KEY: rules})
    rules.append(rule)


def check_needs(args: argparse.Namespace) -> None:
    """Refuse the first option of the parsed command given without what it needs.

    Raises:
        SystemExit: through the command's parser (its one line, exit 2).
    """
    for rule in getattr(args, NEEDS_KEY, None) or ():
        if not rule.met(args):
            rule.parser.error(rule.message(args))
