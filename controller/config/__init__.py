"""The daemon's one TOML config, composed from sections each owned by its package.

=============  =================================  ==========================
section        schema (dataclass, limits, parse)  owner
=============  =================================  ==========================
``[table]``    :mod:`controller.table.settings`   the game at this table
``[camera]``   :mod:`vision.settings`             the camera over the tray
``[board]``    :mod:`hardware.board.settings`     the sensor board link
``[displays]`` :mod:`hardware.displays.settings`  the OLED screens
``[controls]`` :mod:`hardware.controls.settings`  buttons, LEDs, buzzer
``[log]``      :mod:`controller.system.settings`  logging
``[events]``   :mod:`controller.publish.settings` MQTT publishing (optional)
=============  =================================  ==========================

Each schema reads its section with :mod:`controller.core.config_schema` (the
Klipper-style reader: every problem at once, unknown options rejected with a
"did you mean"). :mod:`controller.config.compose` puts them together into one
:class:`Config` and checks what spans sections (GPIO pins);
:mod:`controller.config.devices` checks that the devices named are there
(``toptable config check`` runs both), a module per section
(:mod:`.camera_check`, :mod:`.board_check`, :mod:`.display_check`,
:mod:`.controls_check`) sharing :class:`~controller.config.device_checker.DeviceChecker`,
with the OS calls behind :class:`~controller.config.probe.DeviceProbe`. Each section's type is what its
package's device code takes; the two mappings that remain (a screen to its luma
device, the camera section to a frame source) live with their package.

May import: the packages whose sections it composes (their settings and device
probes), controller.core; never daemon, demo or cli.

Imports :mod:`controller.core`, the section owners above, and
:mod:`controller.gamedata` (the board layout check); nothing below the daemon
and the CLI imports this package.
"""

from controller.config.compose import (
    DEFAULT_CONFIG_PATH,
    MISSING_CONFIG,
    SECTIONS,
    Config,
    load_config,
    parse_config,
)
from controller.core.config_schema import ConfigProblem

__all__ = [
    "DEFAULT_CONFIG_PATH",
    "MISSING_CONFIG",
    "SECTIONS",
    "Config",
    "ConfigProblem",
    "load_config",
    "parse_config",
]
