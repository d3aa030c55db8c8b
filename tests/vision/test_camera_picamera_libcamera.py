"""The picamera2 source against what libcamera and picamera2 really do (the review of the
simulation against their sources): a fixed exposure fixes the gain too, the reason a
camera cannot be opened, ColourTemperature, the HQ camera's 10-bit mode, picamera2's
stream checks. The simulation's behaviours cite Raspberry Pi's libcamera
(``ipa_base.cpp`` ``IpaBase::applyControls``, ``agc_channel.cpp``, ``camera.cpp``) and
picamera2's releases 0.3.21 to 0.3.38."""

from __future__ import annotations

import errno
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from vision.errors import CameraError
from vision.settings import CameraConfig, CameraSource
from vision.sources.delivery import delivery_text, measure_delivery
from vision.sources.picamera import Picamera2Source
from vision.sources.simulated import picamera2 as simulated

pytestmark = pytest.mark.timeout(30)


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """The simulation importable as ``picamera2``: one Camera Module 3, picamera2 0.3.38
    over libcamera 0.5, the scene as bright as the bare tray."""
    monkeypatch.setitem(sys.modules, "picamera2", simulated)
    for name, value in (
        ("CAMERAS", [simulated.CAMERA_MODULE_3]),
        ("STALL_AFTER", None),
        ("CMA_BYTES", None),
        ("VERSION", "0.3.38"),
        ("LIBCAMERA", "0.5"),
        ("SCENE", 1.0),
        ("ACQUIRE_ERRNO", None),
    ):
        monkeypatch.setattr(simulated, name, value, raising=False)
    yield simulated
    leaked = set(simulated._busy)
    simulated._busy.clear()
    assert not leaked, f"cameras left open: {leaked}"


def before_libcamera_0_5(fake: Any) -> None:
    """libcamera before 0.5 (AeEnable only) and a picamera2 of then (0.3.25: its ``start_``
    added no mode controls yet)."""
    fake.LIBCAMERA = "0.4"
    fake.VERSION = "0.3.25"


def cam(**kw: Any) -> CameraConfig:
    return CameraConfig(kind=CameraSource.PICAMERA2, **{"width": 640, "height": 480, **kw})


def settled(read: Any, frames: int = 4) -> Any:
    """The last of a few reads: frames queued before a change of scene are gone."""
    for _ in range(frames - 1):
        read()
    return read()


def gain_and_grey(src: Picamera2Source) -> tuple[float, int]:
    """The analogue gain of the next frame (metadata) and the tray's grey in a frame."""
    frame = settled(src.read)
    meta = settled(lambda: src.picam2.capture_metadata())
    return float(meta["AnalogueGain"]), int(frame[-1, -1, 0])


# --- 1. a fixed exposure fixes the gain ------------------------------------------------


@pytest.mark.parametrize("libcamera", ["0.5", "0.4"])
def test_exposure_alone_keeps_the_gain_and_the_tray_steady_as_the_scene_changes(
    fake: Any, libcamera: str
) -> None:
    """A hand or dark dice over the tray darken what the AGC meters (``SCENE``): an
    automatic gain would brighten the whole frame, the tray with it. libcamera 0.5 runs
    the gain as an algorithm of its own (``AnalogueGainMode``), so ``exposure_us`` alone
    must fix it too."""
    if libcamera == "0.4":
        before_libcamera_0_5(fake)
    src = Picamera2Source(cam(exposure_us=10000))
    try:
        before = gain_and_grey(src)
        fake.SCENE = 0.4  # dark dice and a hand over the tray
        after = gain_and_grey(src)
        fake.SCENE = 2.0  # a white sheet under the lamp
        brighter = gain_and_grey(src)
        assert before == after == brighter
        assert before[1] == round(10000 * before[0] * 50 / 10000)
        sent = src.picam2.libcamera_controls  # a value, not the AGC's gain of the moment
        assert sent["AnalogueGain"] == pytest.approx(1.1228070259094238)  # imx708's lowest
        if libcamera == "0.5":
            assert sent["ExposureTimeMode"] == 1 and sent["AnalogueGainMode"] == 1
        else:
            assert sent["AeEnable"] is False
    finally:
        src.close()


def test_the_gain_fixed_with_the_exposure_is_said_by_config_check(fake: Any) -> None:
    config = cam(exposure_us=10000)
    src = Picamera2Source(config)
    try:
        assert src.default_gain == pytest.approx(1.1228070259094238)
        info = measure_delivery(src, frames=2)
    finally:
        src.close()
    text = delivery_text(info, config)
    assert "exposure_us 10000, gain 1.12281 (fixed with exposure_us; set gain to choose)" in text
    fake.CAMERAS[:] = [fake.CAMERA_MODULE_2]  # its lowest gain is 1.0: no gain
    src = Picamera2Source(cam(exposure_us=10000))
    try:
        assert src.picam2.libcamera_controls["AnalogueGain"] == 1.0
    finally:
        src.close()
    src = Picamera2Source(cam(gain=3.0))  # the gain alone: exposure stays automatic
    try:
        assert src.default_gain is None and "ExposureTime" not in src.picam2.libcamera_controls
        assert src.picam2.libcamera_controls["AnalogueGainMode"] == 1
    finally:
        src.close()


def _started(fake: Any, controls: dict[str, Any]) -> Any:
    """A simulated camera started with ``controls`` (closed again if it does not start)."""
    picam2 = fake.Picamera2()
    try:
        picam2.configure(picam2.create_video_configuration(main={"size": (320, 240)}))
        picam2.set_controls(controls)
        picam2.start()
    except BaseException:
        picam2.close()
        raise
    return picam2


def _gains(picam2: Any, scenes: tuple[float, ...] = (1.0, 0.5)) -> list[float]:
    gains = []
    for scene in scenes:
        simulated.SCENE = scene
        gains.append(settled(lambda: picam2.capture_metadata())["AnalogueGain"])
    return gains


def test_the_simulated_agc_moves_an_automatic_gain_with_the_scene(fake: Any) -> None:
    """What the old source sent on libcamera 0.5 (ExposureTime, ExposureTimeMode manual):
    IpaBase::applyControls leaves AnalogueGainMode auto, and the AGC doubles the gain when
    the metered scene halves. AeEnable false is the wrapper for both modes (camera.cpp)."""
    picam2 = _started(fake, {"ExposureTime": 10000})  # picamera2 adds ExposureTimeMode 1
    try:
        assert picam2.libcamera_controls["ExposureTimeMode"] == 1
        low, high = _gains(picam2)
        assert high == pytest.approx(2 * low)
        assert settled(lambda: picam2.capture_metadata())["ExposureTime"] == 10000
    finally:
        picam2.close()
    picam2 = _started(fake, {"ExposureTime": 10000, "AeEnable": False})
    try:  # AnalogueGainMode manual, no value: the AGC's gain of the moment (disableAutoGain)
        first, second = _gains(picam2)
        assert first == second == pytest.approx(1.1228070259094238)  # its 1.0, limited
    finally:
        picam2.close()


def test_before_libcamera_0_5_a_fixed_exposure_alone_leaves_the_gain_automatic(
    fake: Any,
) -> None:
    """ipa_base.cpp before 0.5: EXPOSURE_TIME -> setFixedShutter only; AeEnable false ->
    disableAuto(), which fixes the gain as well."""
    before_libcamera_0_5(fake)
    picam2 = _started(fake, {"ExposureTime": 10000})
    try:
        assert "ExposureTimeMode" not in picam2.libcamera_controls  # picamera2 0.3.25
        low, high = _gains(picam2)
        assert high == pytest.approx(2 * low)
    finally:
        picam2.close()


# --- 2. why a camera cannot be opened ---------------------------------------------------


@pytest.mark.parametrize("version", ["0.3.38", "0.3.34", "0.3.31"])
def test_a_busy_camera_says_libcamera_s_reason_whichever_picamera2(fake: Any, version: str) -> None:
    """picamera2 re-raises "Camera __init__ sequence did not complete." ``from e`` since
    0.3.35; before (Bookworm's 0.3.31), libcamera's reason is only the context."""
    fake.VERSION = version
    first = Picamera2Source(cam())
    try:
        with pytest.raises(RuntimeError, match="did not complete") as raw:
            fake.Picamera2(0)
        reason = raw.value.__cause__ if version == "0.3.38" else raw.value.__context__
        assert str(reason) == "Failed to acquire camera: Device or resource busy"
        assert (raw.value.__cause__ is None) == (version != "0.3.38")
        with pytest.raises(CameraError) as info:
            Picamera2Source(cam())
    finally:
        first.close()
    assert str(info.value) == (
        "picamera2 camera 0 (imx708): cannot open it (Camera __init__ sequence did not "
        "complete.: Failed to acquire camera: Device or resource busy); is another program "
        "(rpicam-*, another toptable) using it?"
    )


@pytest.mark.parametrize("version", ["0.3.38", "0.3.31"])
def test_another_reason_is_shown_without_the_busy_hint(fake: Any, version: str) -> None:
    fake.VERSION = version
    fake.ACQUIRE_ERRNO = errno.ENODEV  # Camera::acquire on a camera gone
    with pytest.raises(CameraError) as info:
        Picamera2Source(cam())
    assert str(info.value) == (
        "picamera2 camera 0 (imx708): cannot open it (Camera __init__ sequence did not "
        "complete.: Failed to acquire camera: No such device)"
    )


# --- 3. ColourTemperature ---------------------------------------------------------------


def test_libcamera_0_5_takes_a_colour_temperature(fake: Any) -> None:
    """ipa_base.cpp (2025) ipaColourControls: ColourTemperature ControlInfo(100, 100000),
    applied by awb->setColourTemperature; before, it is not advertised."""
    src = Picamera2Source(cam(white_balance=4500))
    try:
        assert src.picam2.camera_controls["ColourTemperature"] == (100, 100000, None)
        sent = src.picam2.libcamera_controls
        assert sent["ColourTemperature"] == 4500 and sent["AwbEnable"] is False
        assert src.delivered["controls"] == {"white_balance": 4500}
    finally:
        src.close()
    before_libcamera_0_5(fake)
    picam2 = fake.Picamera2()
    try:
        assert "ColourTemperature" not in picam2.camera_controls
        with pytest.raises(RuntimeError, match="Control ColourTemperature is not advertised"):
            picam2.set_controls({"ColourTemperature": 4500})
    finally:
        picam2.close()


# --- 5. the simulation's smaller details ------------------------------------------------


def test_the_start_up_exposure_range_is_libcamera_s(fake: Any) -> None:
    """ipa_base.cpp ipaControls: ExposureTime ControlInfo(1, 66666, 20000) in 0.5 (the
    default is defaultExposureTime), ControlInfo(0, 66666) before."""
    picam2 = fake.Picamera2()
    try:
        assert picam2.camera_controls["ExposureTime"] == (1, 66666, 20000)
    finally:
        picam2.close()
    before_libcamera_0_5(fake)
    picam2 = fake.Picamera2()
    try:
        assert picam2.camera_controls["ExposureTime"] == (0, 66666, None)
    finally:
        picam2.close()


def test_the_hq_camera_s_1332x990_mode_is_10_bit(fake: Any) -> None:
    """rpicam-hello --list-cameras: 'SRGGB10_CSI2P' : 1332x990, 'SRGGB12_CSI2P' the rest;
    picamera2's score_mode weighs each mode's own depth."""
    fake.CAMERAS[:] = [fake.HQ_CAMERA]
    src = Picamera2Source(cam(width=1280, height=960, fps=30.0))
    try:
        modes = src.picam2.sensor_modes
        assert [(m["size"], m["format"], m["bit_depth"]) for m in modes] == [
            ((1332, 990), "SRGGB10_CSI2P", 10),
            ((2028, 1080), "SRGGB12_CSI2P", 12),
            ((2028, 1520), "SRGGB12_CSI2P", 12),
            ((4056, 3040), "SRGGB12_CSI2P", 12),
        ]
        config = src.picam2.camera_configuration()
        assert config["sensor"] == {"bit_depth": 10, "output_size": (1332, 990)}
        assert config["raw"]["format"] == "SRGGB10_CSI2P"
        assert src.read().shape == (960, 1280, 3)
    finally:
        src.close()


def test_picamera2_refuses_a_format_it_does_not_know(fake: Any) -> None:
    """check_stream_config: "Bad format X in stream main"; odd sizes are refused too."""
    picam2 = fake.Picamera2()
    try:
        config = picam2.create_video_configuration(main={"size": (640, 480), "format": "RGB8"})
        with pytest.raises(RuntimeError, match=r"^Bad format RGB8 in stream main$"):
            picam2.configure(config)
        config = picam2.create_video_configuration(main={"size": (640, 480)})
        config["main"]["size"] = (641, 480)
        with pytest.raises(RuntimeError, match="width and height should be even"):
            picam2.configure(config)
    finally:
        picam2.close()


def test_frames_follow_the_applied_exposure_and_gain(fake: Any) -> None:
    """The fixed values are applied from the first frame (IpaBase::start -> applyControls)."""
    picam2 = _started(fake, {"ExposureTime": 12000, "AnalogueGain": 2.0})
    try:
        frame = picam2.capture_array("main")  # XBGR8888: R, G, B, 255
        assert tuple(frame[-1, -1, :3]) == (120, 120, 120)  # 12000 µs x 2.0 x 50 / 10000
        meta = picam2.capture_metadata()
        assert (meta["ExposureTime"], meta["AnalogueGain"]) == (12000, 2.0)
    finally:
        picam2.close()


def test_the_hq_camera_gives_a_picture_past_its_binned_modes_at_its_full_mode_s_10_fps(
    fake: Any,
) -> None:
    """2048x1536 is wider than the HQ camera's binned modes: it comes from the full 4056x3040
    mode, whose 10 fps is asked exactly (a mode reaching the rate asked is taken)."""
    fake.CAMERAS[:] = [fake.HQ_CAMERA]
    src = Picamera2Source(cam(width=2048, height=1536, fps=10.0))
    try:
        assert src.picam2.camera_configuration()["sensor"]["output_size"] == (4056, 3040)
        assert src.read().shape == (1536, 2048, 3)
    finally:
        src.close()


def test_a_picamera2_before_0_3_27_over_libcamera_0_5_gets_both_modes_from_the_source(
    fake: Any,
) -> None:
    """picamera2 added the mode controls itself only from 0.3.27: over libcamera 0.5 an
    older one (0.3.25) must be sent both modes manual by the source, or the exposure and
    the gain follow the scene and the tray's brightness with them."""
    fake.VERSION = "0.3.25"
    src = Picamera2Source(cam(exposure_us=10000))
    try:
        before = gain_and_grey(src)
        fake.SCENE = 0.4  # dark dice and a hand over the tray
        assert gain_and_grey(src) == before
        sent = src.picam2.libcamera_controls
        assert sent["ExposureTimeMode"] == 1 and sent["AnalogueGainMode"] == 1
    finally:
        src.close()


def test_a_control_at_the_end_of_its_range_is_taken(fake: Any) -> None:
    """A value the camera advertises as its least (the lens at 0 dioptres: focused at
    infinity) is in its range, not refused."""
    src = Picamera2Source(cam(lens_position=0.0))
    try:
        assert src.picam2.libcamera_controls["LensPosition"] == 0.0
    finally:
        src.close()
