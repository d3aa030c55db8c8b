"""Shared fixtures: paths to the bundled data and to ../shared, a serial device."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "controller" / "data"
SHARED = REPO.parent / "shared"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--docs-images",
        action="store_true",
        help="also write the documentation's images (docs/scoreboard.png) from the tests "
        "that make them (`make docs-images`); without it no test writes into the checkout",
    )


@pytest.fixture
def demo_data() -> Path:
    """The bundled demo data directory (invented card details, marked so)."""
    return DATA / "demo"


@pytest.fixture
def shared_dir() -> Path:
    """../shared beside the checkout; tests that need it skip with a reason if absent."""
    if not SHARED.is_dir():
        pytest.skip(f"{SHARED} is absent: the shared datasets sit beside the checkout in CI")
    return SHARED


@pytest.fixture
def pty_port() -> Iterator[str]:
    """A serial device that is there: the device side of a pseudo-terminal (standing for a
    Pico's /dev/ttyACM0)."""
    controller_fd, device_fd = os.openpty()
    try:
        yield os.ttyname(device_fd)
    finally:
        os.close(device_fd)
        os.close(controller_fd)
