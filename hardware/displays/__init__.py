"""The OLED screens at the table edge: a presentation model, pure screens, luma devices.

The daemon builds a :class:`TableView` from the game state and calls
:meth:`DisplayBoard.update` with it; each display shows its screen, sending only
what changed. See ``hardware/displays/README.md``.
"""

from hardware.displays.devices import (
    BusPool,
    DisplayBoard,
    DisplayConfig,
    TableDisplay,
    open_display,
    open_displays,
)
from hardware.displays.errors import (
    DisplayConfigError,
    DisplayError,
    DisplayUnavailableError,
    UnknownScreenError,
)
from hardware.displays.model import (
    Advice,
    AttackOption,
    AttackSpeed,
    Clock,
    Combat,
    Defence,
    Fault,
    Fighter,
    Prompt,
    PromptKind,
    Seat,
    TableView,
    load_view,
    view_from_dict,
)
from hardware.displays.screens import SCREENS, pick_screen, render, show

__all__ = [
    "SCREENS",
    "Advice",
    "AttackOption",
    "AttackSpeed",
    "BusPool",
    "Clock",
    "Combat",
    "Defence",
    "DisplayBoard",
    "DisplayConfig",
    "DisplayConfigError",
    "DisplayError",
    "DisplayUnavailableError",
    "Fault",
    "Fighter",
    "Prompt",
    "PromptKind",
    "Seat",
    "TableDisplay",
    "TableView",
    "UnknownScreenError",
    "load_view",
    "open_display",
    "open_displays",
    "pick_screen",
    "render",
    "show",
    "view_from_dict",
]
