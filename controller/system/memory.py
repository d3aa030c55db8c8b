"""Keep a long-running table's memory flat on a Pi.

Camera frames are large (a 1280x960 frame is 3.7 MB, 15 MB as float32) and
short-lived. glibc raises its mmap threshold after such a buffer is freed, so
later frames come from the heap, which it rarely gives back: the resident
size only grows. Pinning the thresholds sends large buffers to mmap again,
which returns them to the system when freed.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging

log = logging.getLogger(__name__)

M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 256 * 1024
TRIM_THRESHOLD = 1024 * 1024


def return_large_buffers() -> bool:
    """Pin glibc's mmap and trim thresholds; False (and nothing done) without glibc."""
    name = ctypes.util.find_library("c")
    if name is None:
        return False
    try:
        libc = ctypes.CDLL(name)
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        log.debug("no mallopt in %s: memory thresholds left as they are", name)
        return False
    ok = bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(
        mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD)
    )
    return ok
