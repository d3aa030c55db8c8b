"""The table's controls: buttons and encoder in (typed events), LEDs and buzzer out.

See ``hardware/controls/README.md`` for the wiring table and the default pins.
"""

from hardware.controls.config import ControlsConfig
from hardware.controls.errors import ControlsError, ControlUnavailableError
from hardware.controls.events import ButtonName, ButtonPressed, ButtonRepeated, EncoderTurned
from hardware.controls.inputs import TableInputs
from hardware.controls.outputs import TableOutputs

__all__ = [
    "ButtonName",
    "ButtonPressed",
    "ButtonRepeated",
    "ControlUnavailableError",
    "ControlsConfig",
    "ControlsError",
    "EncoderTurned",
    "TableInputs",
    "TableOutputs",
]
