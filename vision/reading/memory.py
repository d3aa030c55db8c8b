"""Giving the memory of a large read back to the system.

A photo taken by hand is looked at over many die sizes, some of them several times the
photo's pixels, and the next photo comes seconds later. glibc's allocator keeps what
such a read freed resident: after the first large frames it serves blocks up to 32 MB
from its heap rather than mapping them (the dynamic mmap threshold, ``mallopt(3)``), and
a heap returns only its free top. ``malloc_trim(0)`` hands every free page back. A fixed
camera's frames are not trimmed: each frame needs the same memory again at once, and
a trim (about 2 ms) is a tenth of such a frame's read.
"""

from __future__ import annotations

import ctypes
from functools import cache
from typing import Any


@cache
def _malloc_trim() -> Any | None:
    """glibc's ``malloc_trim``, or None where the C library has none (musl, macOS)."""
    try:
        trim = ctypes.CDLL(None).malloc_trim  # the C library the interpreter runs on
    except (OSError, AttributeError, TypeError):
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim


def release_freed_memory() -> bool:
    """Return the C allocator's free heap pages to the system; False where it cannot."""
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True
