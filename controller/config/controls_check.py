"""The ``[controls]`` device check: the GPIO chip and the lgpio pin library."""

from __future__ import annotations

from controller.config.device_checker import DeviceChecker
from hardware.controls.settings import ControlsBackend


def check_controls(chk: DeviceChecker) -> None:
    """``[controls]``: a GPIO chip this user may open, and the lgpio pin library."""
    if chk.cfg.controls.backend is not ControlsBackend.GPIOZERO:
        return
    chips = chk.probe.glob("/dev/gpiochip*")
    if not chips:
        chk.add(
            "controls",
            "backend",
            "is 'gpiozero', but this machine has no /dev/gpiochip*: on a machine that is "
            "not a Raspberry Pi, use backend = 'mock'",
        )
        return
    why = chk.why_not(chips[0], "gpio", "the GPIO chip")
    if why:
        chk.add("controls", "backend", why)
    if not chk.probe.module_available("lgpio"):
        chk.add(
            "controls",
            "backend",
            "is 'gpiozero', but its pin library lgpio is not installed (the unit sets "
            "GPIOZERO_PIN_FACTORY=lgpio): install the 'pi' extra "
            "(/opt/toptable/venv/bin/pip install 'toptable[pi]') or apt install python3-lgpio",
        )
