"""Fixtures for the publishing tests: a real Mosquitto, the game data, a subscriber."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.publish.broker import Mosquitto


@pytest.fixture(scope="session")
def game_data() -> Any:
    """The bundled demo data (loaded once)."""
    from controller.game.simulate import load_game_data

    return load_game_data()


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Mosquitto]:
    """An anonymous broker on a free loopback port (fails with a hint if not installed)."""
    b = Mosquitto(_dir(tmp_path)).start()
    yield b
    b.stop()


def _dir(tmp_path: Path) -> Path:
    d = tmp_path / "broker"
    d.mkdir()
    return d
