"""A stand-in for libcamera's Python bindings: only ``controls.AfModeEnum`` (libcamera's values)."""

from __future__ import annotations

from enum import IntEnum
from types import SimpleNamespace


class AfModeEnum(IntEnum):
    """libcamera's AfMode values (control_ids: AfModeManual = 0, Auto = 1, Continuous = 2)."""

    Manual = 0
    Auto = 1
    Continuous = 2


controls = SimpleNamespace(AfModeEnum=AfModeEnum)
