"""How a problem shows what came from its input: names escaped, values cut short.

A problem is one line of bounded length whatever the file holds. Two helpers make the
parts of it that come from the input:

- :func:`printable` shows a name (a key, an entry, a file): as is when every character
  prints, else with each control or other unprintable character escaped the way Python
  writes it (``zz\\nINJ``: a newline, a tab, ``\\x1b`` cannot break the line); and a name
  longer than :data:`NAME_LIMIT` cut short, saying its length.
- :func:`short_repr` shows a value: its ``repr`` when that is at most :data:`VALUE_LIMIT`
  characters, else its start, ``...`` and its size (``[1, 2, 3, ... (10000 items)]``,
  ``'aaaa...' (1000000 characters)``), never building the whole ``repr`` of a huge value.

:class:`~controller.core.errors.DataProblem` passes its file, entry, field and message
through :func:`printable`; the checks of :mod:`controller.core.checked` and
:mod:`controller.core.config_schema` show a wrong value with :func:`short_repr`.
"""

from __future__ import annotations

import sys

NAME_LIMIT = 1000
"""The longest name (in characters) shown whole; a longer one keeps :data:`NAME_KEPT`."""
NAME_KEPT = 100
VALUE_LIMIT = 80
"""The longest ``repr`` of a value shown whole; a longer one keeps about :data:`VALUE_KEPT`."""
VALUE_KEPT = 40
_BIG_INT_BITS = 1000  # an integer past this (about 300 digits) has a long repr anyway


def printable(text: str, limit: int | None = NAME_LIMIT) -> str:
    """``text`` as is when every character prints and it is at most ``limit`` characters
    long (None: any length); else its printable form: each character that does not print
    (``str.isprintable``) escaped as in a Python literal (``\\n``, ``\\t``, ``\\x1b``,
    ``\\u2028``, and a backslash doubled, so the form reads back one way), and past
    ``limit``, its first :data:`NAME_KEPT` characters, ``...`` and its length."""
    long = limit is not None and len(text) > limit
    if not long and text.isprintable():
        return text
    head = text[:NAME_KEPT] if long else text
    if not head.isprintable():
        head = "".join(_escaped(c) for c in head)
    return f"{head}... ({len(text)} characters)" if long else head


def short_repr(value: object) -> str:
    """``repr(value)`` when it is at most :data:`VALUE_LIMIT` characters; else the start of
    it, ``...`` and the value's size: ``'abc...' (1000000 characters)`` for a string,
    ``[1, 2, 3, ... (10000 items)]`` for a list, tuple, set or dict."""
    if _small(value, VALUE_LIMIT):
        text = _plain(value)
        if len(text) <= VALUE_LIMIT:
            return text
    return _cut(value)


def _escaped(char: str) -> str:
    if char == "\\":
        return "\\\\"
    return char if char.isprintable() else repr(char)[1:-1]


def _small(value: object, room: int) -> bool:
    """Whether ``repr(value)`` is short enough to build and measure (a bound, not exact:
    its items are counted without building the ``repr`` of a huge one)."""
    if isinstance(value, str | bytes):
        return len(value) <= room
    if isinstance(value, list | tuple | set | frozenset | dict):
        room -= 2
        for item in value.items() if isinstance(value, dict) else value:
            if room < 1 or not _small(item, room):
                return False
            room -= len(_plain(item)) + 2
        return room >= 0
    if isinstance(value, int):  # too many digits for Python to convert: words, not digits
        return value.bit_length() <= _BIG_INT_BITS
    return True


def _plain(value: object) -> str:
    """``repr(value)``, or words for an integer too long for Python to convert."""
    try:
        return repr(value)
    except ValueError:  # an int of more digits than sys.get_int_max_str_digits()
        return f"a number of more than {sys.get_int_max_str_digits()} digits"


def _cut(value: object) -> str:
    """``value`` shown in about :data:`VALUE_KEPT` characters, and its size: a string's
    start, a container's first items (as many as fit whole)."""
    if isinstance(value, str | bytes):
        head = repr(value[:VALUE_KEPT])
        unit = "characters" if isinstance(value, str) else "bytes"
        return f"{head[:-1]}...{head[-1]} ({len(value)} {unit})"
    if isinstance(value, list | tuple | set | frozenset | dict):
        shown = ""
        for item in value.items() if isinstance(value, dict) else value:
            room = VALUE_KEPT - len(shown)
            if not _small(item, room):
                break
            text = (
                f"{_plain(item[0])}: {_plain(item[1])}" if isinstance(value, dict) else _plain(item)
            )
            if len(text) > room:
                break
            shown += f"{text}, "
        n = len(value)
        opening, closing = (
            "[]" if isinstance(value, list) else "()" if isinstance(value, tuple) else "{}"
        )
        return f"{opening}{shown}... ({n} item{'' if n == 1 else 's'}){closing}"
    text = _plain(value)
    return text if len(text) <= VALUE_LIMIT else f"{text[:VALUE_KEPT]}... ({len(text)} characters)"


__all__ = ["NAME_LIMIT", "VALUE_LIMIT", "printable", "short_repr"]
