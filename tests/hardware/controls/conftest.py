"""gpiozero's MockFactory as the default pin factory for one test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory


@pytest.fixture
def factory() -> Iterator[MockFactory]:
    """A fresh MockFactory as gpiozero's default; the previous one is restored after."""
    saved = Device.pin_factory
    mock = MockFactory()
    Device.pin_factory = mock
    try:
        yield mock
    finally:
        mock.close()
        Device.pin_factory = saved
