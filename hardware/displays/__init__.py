"""The OLED screens at the table edge: a presentation model, pure screens, luma devices.

The daemon builds a :class:`TableView` from the game state and calls
:meth:`DisplayBoard.update` with it; each display shows its screen, sending only
what changed. See ``hardware/displays/README.md``.

Owns the ``[displays]`` config section (:mod:`hardware.displays.settings`) and
its one mapping to the luma devices (:func:`display_config`). Imports only
:mod:`controller.core` and this package (and luma, Pillow, smbus2).
"""

from hardware.displays.device_config import DisplayConfig, display_config, display_configs
from hardware.displays.display_board import DisplayBoard
from hardware.displays.errors import (
    DisplayConfigError,
    DisplayError,
    DisplayUnavailableError,
    UnknownScreenError,
)
from hardware.displays.i2c_bus import BusPool
from hardware.displays.luma_open import TableDisplay, open_display, open_displays
from hardware.displays.model import (
    AdviceView,
    AttackOption,
    Clock,
    CombatView,
    Fault,
    FighterView,
    Prompt,
    PromptKind,
    SeatView,
    TableView,
)
from hardware.displays.screens import SCREENS, pick_screen, render, show
from hardware.displays.view_json import load_view, view_from_dict

__all__ = [
    "SCREENS",
    "AdviceView",
    "AttackOption",
    "BusPool",
    "Clock",
    "CombatView",
    "DisplayBoard",
    "DisplayConfig",
    "DisplayConfigError",
    "DisplayError",
    "DisplayUnavailableError",
    "Fault",
    "FighterView",
    "Prompt",
    "PromptKind",
    "SeatView",
    "TableDisplay",
    "TableView",
    "UnknownScreenError",
    "display_config",
    "display_configs",
    "load_view",
    "open_display",
    "open_displays",
    "pick_screen",
    "render",
    "show",
    "view_from_dict",
]
