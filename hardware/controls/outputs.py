"""Status LEDs and the buzzer, driven from the table's state (a :class:`TableView`).

:meth:`TableOutputs.show` is called with each new view: the current seat's LED
is lit and the others are dark; the link and camera LEDs are lit while healthy
and go dark while a fault of their device (``board``/``camera``) is active; the
buzzer sounds three short beeps when the clock runs out and one long beep when
a warrior is eliminated (a seat's warriors left goes down).
"""

from __future__ import annotations

from typing import Any

from hardware.controls.errors import ControlUnavailableError
from hardware.controls.inputs import describe_gpio_error, gpio_errors
from hardware.controls.settings import ControlsConfig
from hardware.displays.model import TableView

# The devices the link and camera LEDs watch. A fault's source is its device's name, or
# that and a colon and a part ("board:link": the link had trouble in the last minute);
# "camera view" (the camera works but sees the dice unlike its calibration photos) is no
# fault of the camera's. (Sources: controller/table/entry.py FaultSource and
# controller/daemon/hardware.py TableDevices.faults.)
LINK_DEVICE = "board"
CAMERA_DEVICE = "camera"


def device_of(source: str) -> str:
    """The device a fault's source names (``board:link`` -> ``board``)."""
    return source.split(":", 1)[0]


def clock_ran_out(before: TableView | None, after: TableView) -> bool:
    """True when the time left reaches 0 between two views."""
    left = after.clock.seconds_left
    was = before.clock.seconds_left if before is not None else None
    return left == 0 and (was is None or was > 0)


def eliminations(before: TableView | None, after: TableView) -> int:
    """How many warriors left the board between two views (seats matched by position)."""
    if before is None:
        return 0
    return sum(
        max(0, a.warriors_left - b.warriors_left)
        for a, b in zip(before.seats, after.seats, strict=False)
    )


class TableOutputs:
    """The seat LEDs, link/camera LEDs and buzzer. A context manager; close is idempotent.

    Outputs that cannot be set up are skipped; :attr:`failed` names them and their pins.
    """

    def __init__(self, config: ControlsConfig, pin_factory: Any = None) -> None:
        from gpiozero import LED, Buzzer

        self.config = config
        self.failed: list[ControlUnavailableError] = []
        errors = gpio_errors()

        def make(kind: Any, role: str, pin: int | None) -> Any:
            if pin is None:
                return None
            try:
                return kind(pin, pin_factory=pin_factory)
            except errors as exc:
                self.failed.append(describe_gpio_error(role, f"GPIO{pin}", exc))
                return None

        self.seat_leds: list[Any] = [
            make(LED, f"seat LED {i}", p) for i, p in enumerate(config.led_seats)
        ]
        self.link_led = make(LED, "link LED", config.led_link)
        self.camera_led = make(LED, "camera LED", config.led_camera)
        self.buzzer = make(Buzzer, "buzzer", config.buzzer)
        self._last: TableView | None = None

    def show(self, view: TableView) -> None:
        """Set the LEDs for ``view`` and sound the buzzer for what changed since the last one."""
        for i, led in enumerate(self.seat_leds):
            if led is not None:
                led.value = i == view.seat
        devices = {device_of(f.source) for f in view.faults}
        if self.link_led is not None:
            self.link_led.value = LINK_DEVICE not in devices
        if self.camera_led is not None:
            self.camera_led.value = CAMERA_DEVICE not in devices
        if self.buzzer is not None:
            unit = self.config.beep_s
            if clock_ran_out(self._last, view):
                self.buzzer.beep(on_time=unit, off_time=unit, n=3, background=True)
            elif eliminations(self._last, view):
                self.buzzer.beep(on_time=4 * unit, off_time=unit, n=1, background=True)
        self._last = view

    def __enter__(self) -> TableOutputs:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Switch everything off and release the pins (idempotent)."""
        devices = [*self.seat_leds, self.link_led, self.camera_led, self.buzzer]
        self.seat_leds, self.link_led, self.camera_led, self.buzzer = [], None, None, None
        for device in devices:
            if device is not None:
                device.close()
