"""The table's controls: buttons and encoder in (typed events), LEDs and buzzer out.

See ``hardware/controls/README.md`` for the wiring table and the default pins.

Owns the ``[controls]`` config section (:mod:`hardware.controls.settings`):
its :class:`ControlsConfig` is what the inputs and outputs are built from.
Imports only :mod:`controller.core`, :mod:`hardware.displays.model` (the view
the LEDs follow) and this package (and gpiozero).
"""

from hardware.controls.errors import ControlsError, ControlUnavailableError
from hardware.controls.events import ButtonName, ButtonPressed, ButtonRepeated, EncoderTurned
from hardware.controls.inputs import TableInputs
from hardware.controls.outputs import TableOutputs
from hardware.controls.settings import ControlsBackend, ControlsConfig

__all__ = [
    "ButtonName",
    "ButtonPressed",
    "ButtonRepeated",
    "ControlUnavailableError",
    "ControlsBackend",
    "ControlsConfig",
    "ControlsError",
    "EncoderTurned",
    "TableInputs",
    "TableOutputs",
]
