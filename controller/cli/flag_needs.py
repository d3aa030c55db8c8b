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


@dataclass(frozen=True)
class OnlyWith:
    """``option`` does something only when one of ``needs`` holds."""

    parser: argparse.ArgumentParser
    option: argparse.Action
    needs: tuple[Need, ...]

    def met(self, args: argparse.Namespace) -> bool:
        """Whether the option is absent, or one of its needs holds."""
        if not _given(args, self.option):
            return True
        for need in self.needs:
            if isinstance(need, tuple):
                action, values = need
                if getattr(args, action.dest, action.default) in values:
                    return True
            elif _given(args, need):
                return True
        return False

    def message(self) -> str:
        """``--table-id is used only with --mqtt``."""
        said = []
        for need in self.needs:
            if isinstance(need, tuple):
                action, values = need
                said.append(f"{_name(action)} {' or '.join(str(v) for v in values)}")
            else:
                said.append(_name(need))
        return f"{_name(self.option)} is used only with {' or '.join(said)}"


def only_with(parser: argparse.ArgumentParser, option: argparse.Action, *needs: Need) -> None:
    """Declare that ``option`` of ``parser``'s command acts only beside one of ``needs``
    (another option given, or ``(argument, values)``: that argument holding one of them).

    Raises:
        ValueError: no need named (a programming error).
    """
    if not needs:
        raise ValueError(f"{_name(option)}: only_with needs at least one other argument")
    rules = parser.get_default(NEEDS_KEY)
    if rules is None:
        rules = []
        parser.set_defaults(**{NEEDS_KEY: rules})
    rules.append(OnlyWith(parser, option, tuple(needs)))


def check_needs(args: argparse.Namespace) -> None:
    """Refuse the first option of the parsed command given without what it needs.

    Raises:
        SystemExit: through the command's parser (its one line, exit 2).
    """
    for rule in getattr(args, NEEDS_KEY, None) or ():
        if not rule.met(args):
            rule.parser.error(rule.message())
