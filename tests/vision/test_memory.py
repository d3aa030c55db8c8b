"""After a hand-held photo's read, glibc's freed heap goes back to the system
(vision.reading.memory)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision.reading import memory


def _resident_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024.0
    raise AssertionError("no VmRSS in /proc/self/status")


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs Linux's /proc")
def test_freed_heap_blocks_go_back_to_the_system() -> None:
    if memory._malloc_trim() is None:
        pytest.skip("this C library has no malloc_trim (not glibc)")
    # 60 MB in blocks under glibc's mmap threshold come from the heap; one kept block
    # above them holds the heap's top, so freeing the rest leaves them resident
    blocks = [np.ones(100_000 // 8) for _ in range(600)]
    top = np.ones(100_000 // 8)
    del blocks[:]
    held = _resident_mb()
    assert memory.release_freed_memory()
    assert _resident_mb() < held - 30
    assert top.sum() == 100_000 // 8


def test_without_malloc_trim_nothing_is_released(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(memory, "_malloc_trim", lambda: None)
    assert memory.release_freed_memory() is False
