"""``toptable bench daemon``'s demo runs: a demo that fails is reported, not measured."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.bench.daemon import demo_once


def test_a_failing_demo_is_reported_with_its_error(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError, match=r"toptable demo failed \(2\).*--players"):
        demo_once(tmp_path / "run", 1, ("--players", "9"))
