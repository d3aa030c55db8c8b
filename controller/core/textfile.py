"""Reading a data, config or script file as text, with errors that name the file."""

from __future__ import annotations

import sys
from pathlib import Path

from controller.core.errors import DataError

BOM = "\ufeff"
"""The UTF-8 byte-order mark some Windows editors put first ("UTF-8 with BOM").

Neither TOML nor JSON allows it: TOML 1.0 defines a document as UTF-8 text
beginning with an expression, and tomllib stops at the mark with "Invalid
statement (at line 1, column 1)"; RFC 8259 §8.1 says implementations must not
add one, and :func:`json.loads` refuses it ("Unexpected UTF-8 BOM").
"""

EMPTY = (
    "empty (0 bytes): a file being written when the power went is left so; "
    "make it again (or put back a copy)"
)


def read_text(path: str | Path, missing: str | None = None) -> str:
    """The whole of a UTF-8 text file.

    ``missing`` replaces the message for a file that does not exist (e.g. a hint
    saying where an example is).

    Raises:
        DataError: the file is missing, a folder, a FIFO or device, or unreadable, empty
            (0 bytes: what a power cut leaves of a file being written), not UTF-8 text, or
            starts with a byte-order mark (the message says to save it without one).
    """
    path = Path(path)
    try:
        if path.exists() and not path.is_dir() and not path.is_file():
            # a FIFO or a device: reading would wait for a writer, or never end
            raise DataError.single(str(path), "", "", "is not a regular file; expected a file")
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        message = missing or f"cannot read: {exc.strerror}"
        raise DataError.single(str(path), "", "", message) from None
    except IsADirectoryError:
        raise DataError.single(str(path), "", "", "is a folder; expected a file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError.single(str(path), "", "", unreadable(exc)) from None
    if not text:
        raise DataError.single(str(path), "", "", EMPTY)
    if text.startswith(BOM):
        raise DataError.single(
            str(path),
            "",
            "",
            'starts with a UTF-8 byte-order mark (BOM): save it as plain "UTF-8", '
            'not "UTF-8 with BOM"',
        )
    return text


def unreadable(exc: OSError | UnicodeDecodeError) -> str:
    """Why a text file could not be read, in one line: the system's reason, or the first
    byte that is not UTF-8 (a file saved in another encoding)."""
    if isinstance(exc, UnicodeDecodeError):
        return f"not UTF-8 text (byte {exc.start})"
    return f"cannot read: {exc.strerror or exc}"


def unparsable(exc: RecursionError | ValueError) -> str:
    """Why a parser that raised no error of its own format gave up, in words: a text
    nested past Python's recursion limit, or a number longer than Python converts
    (``sys.get_int_max_str_digits``: 4300 digits by default, Python 3.11's guard against
    slow conversions)."""
    if isinstance(exc, RecursionError):
        return "nested too deeply"
    if "digits" in str(exc):
        return f"a number of more than {sys.get_int_max_str_digits()} digits"
    return " ".join(str(exc).split())
