"""The picamera2 source against a fake picamera2 that behaves like the real API (tests/vision/fakes)."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from controller.bench.camera import bench_picamera
from vision.errors import CameraError
from vision.settings import CameraConfig, CameraOptionError, CameraSource
from vision.sources.delivery import delivery_text, measure_delivery
from vision.sources.picamera import Picamera2Source, PicameraMissingError
from vision.sources.source import open_source

pytestmark = pytest.mark.timeout(30)

FAKES = Path(__file__).parent / "fakes"


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    """The fake importable as ``picamera2`` (and ``libcamera``), one Camera Module 3 attached."""
    monkeypatch.syspath_prepend(str(FAKES))
    for name in ("picamera2", "libcamera"):
        sys.modules.pop(name, None)
    module = importlib.import_module("picamera2")
    monkeypatch.setattr(module, "CAMERAS", [module.CAMERA_MODULE_3])
    monkeypatch.setattr(module, "STALL_AFTER", None)
    yield module
    leaked = set(module._busy)
    module._busy.clear()
    for name in ("picamera2", "libcamera"):
        sys.modules.pop(name, None)
    assert not leaked, f"cameras left open: {leaked}"


def cam(**kw: Any) -> CameraConfig:
    settings: dict[str, Any] = {"width": 640, "height": 480, "fps": 30.0, **kw}
    return CameraConfig(kind=CameraSource.PICAMERA2, **settings)


def one_line(exc: pytest.ExceptionInfo[BaseException]) -> str:
    text = str(exc.value)
    assert "\n" not in text
    return text


# --- the fake behaves like picamera2 ------------------------------------------------------


def test_the_fake_follows_the_picamera2_api(fake: ModuleType) -> None:
    info = fake.Picamera2.global_camera_info()
    assert info[0]["Model"] == "imx708" and info[0]["Num"] == 0
    picam2 = fake.Picamera2()
    try:
        assert set(picam2.sensor_modes[0]) >= {"format", "bit_depth", "size", "fps", "crop_limits"}
        assert all(len(v) == 3 for v in picam2.camera_controls.values())  # (min, max, default)
        with pytest.raises(RuntimeError, match="has not been configured"):
            picam2.start()
        config = picam2.create_video_configuration(main={"size": (320, 240), "format": "RGB888"})
        assert config["buffer_count"] == 6 and config["queue"] is True
        picam2.configure(config)
        with pytest.raises(RuntimeError, match="Control Bogus is not advertised by libcamera"):
            picam2.set_controls({"Bogus": 1})
        with pytest.raises(RuntimeError, match="AnalogueGain"):
            picam2.set_controls({"AnalogueGain": 99.0})
        picam2.start()
        with pytest.raises(RuntimeError, match="must be stopped before configuring"):
            picam2.configure(config)
        rgb888 = picam2.capture_array("main")
        assert rgb888.shape == (240, 320, 3) and rgb888.dtype == np.uint8
        assert tuple(rgb888[40, 50]) == (0, 0, 200)  # red, stored B, G, R
        job = picam2.capture_array("main", wait=False)
        assert picam2.wait(job, timeout=2.0).shape == (240, 320, 3)
        assert picam2.capture_metadata()["FrameDuration"] == 33333
        picam2.stop()
        for fmt, channels, red in (("BGR888", 3, (200, 0, 0)), ("XRGB8888", 4, (0, 0, 200, 255))):
            picam2.configure(
                picam2.create_still_configuration(main={"size": (320, 240), "format": fmt})
            )
            picam2.start()
            frame = picam2.capture_array()
            assert frame.shape == (240, 320, channels) and tuple(frame[40, 50]) == red
            picam2.stop()
        with pytest.raises(RuntimeError, match="busy"):
            fake.Picamera2(0)
    finally:
        picam2.close()
        picam2.close()  # idempotent
    with pytest.raises(IndexError):
        fake.Picamera2(1)


# --- the source ---------------------------------------------------------------------------


def test_frames_are_bgr_at_the_configured_size_and_rate(fake: ModuleType) -> None:
    src = open_source(cam())
    try:
        assert isinstance(src, Picamera2Source)
        picam2 = src.picam2
        assert picam2.calls[:2] == ["configure", "start"]
        config = picam2.camera_configuration()
        assert config["main"] == {"size": (640, 480), "format": "RGB888"}
        assert config["controls"]["FrameDurationLimits"] == (33333, 33333)
        # the smallest sensor mode covering 640x480 at 30 fps keeps the sensor's field of view
        assert config["sensor"]["output_size"] == (1536, 864)
        for _ in range(3):
            frame = src.read()
            assert frame.shape == (480, 640, 3) and frame.dtype == np.uint8
            assert frame.flags.c_contiguous
            # picamera2's RGB888 is B, G, R in memory: OpenCV's order, not swapped
            assert tuple(frame[70, 90]) == (0, 0, 200)
            assert tuple(frame[70, 410]) == (0, 200, 0)
        assert src.name == "picamera2 camera 0" and src.camera == "picamera2 camera 0 (imx708)"
    finally:
        src.close()
        src.close()
    assert not src.picam2.is_open
    with pytest.raises(CameraError, match="closed"):
        src.read()


def test_manual_controls_are_fixed_and_read_back(fake: ModuleType) -> None:
    src = Picamera2Source(
        cam(exposure_us=12000, gain=2.0, colour_gains=(1.8, 1.5), lens_position=2.5)
    )
    try:
        controls = src.picam2.controls
        assert controls["AeEnable"] is False and controls["ExposureTime"] == 12000
        assert controls["AnalogueGain"] == 2.0
        assert controls["AwbEnable"] is False and controls["ColourGains"] == (1.8, 1.5)
        assert controls["AfMode"] == 0 and controls["LensPosition"] == 2.5  # AfModeEnum.Manual
        assert src.delivered["controls"] == {
            "exposure_us": 12000,
            "gain": 2.0,
            "colour_gains": (1.8, 1.5),
            "lens_position": 2.5,
        }
        # the same light every time: fixed exposure and gain give the same frame
        first, second = src.read(), src.read()
        assert np.array_equal(first, second)
        assert first[-1, -1, 0] == round(12000 / 10000 * 2.0 * 50)
    finally:
        src.close()


def test_newer_libcamera_modes_replace_ae_enable(
    fake: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """libcamera 0.5 lists ExposureTimeMode and AnalogueGainMode instead of AeEnable."""
    controls = dict(fake.SENSORS["imx708"]["controls"])
    del controls["AeEnable"]
    controls["ExposureTimeMode"] = (0, 1, 0)
    controls["AnalogueGainMode"] = (0, 1, 0)
    monkeypatch.setitem(fake.SENSORS["imx708"], "controls", controls)
    src = Picamera2Source(cam(exposure_us=8000, gain=1.5))
    try:
        fixed = src.picam2.controls
        assert "AeEnable" not in fixed
        assert fixed["ExposureTimeMode"] == 1 and fixed["AnalogueGainMode"] == 1
    finally:
        src.close()


def test_size_larger_than_the_sensor_names_the_option_and_its_sizes(fake: ModuleType) -> None:
    fake.CAMERAS[:] = [fake.CAMERA_MODULE_2]
    with pytest.raises(CameraOptionError) as info:
        Picamera2Source(cam(width=4000, height=3000))
    assert info.value.option == "width"
    assert one_line(info) == (
        "option 'width' in section 'camera' is 4000 (4000x3000 asked), larger than any size "
        "picamera2 camera 0 (imx219) has; its sensor's sizes: 640x480, 1640x1232, 1920x1080, "
        "3280x2464"
    )
    with pytest.raises(CameraOptionError, match=r"option 'height' .* is 3000 "):
        Picamera2Source(cam(width=3000, height=3000))


def test_a_size_the_camera_adjusts_is_refused(fake: ModuleType) -> None:
    with pytest.raises(CameraOptionError) as info:
        Picamera2Source(cam(width=641))
    assert info.value.option == "width"
    assert "is 641 (641x480 asked), which picamera2 camera 0 (imx708) gives as 640x480" in str(
        info.value
    )


def test_a_rate_the_sensor_cannot_reach_at_that_size(fake: ModuleType) -> None:
    with pytest.raises(CameraOptionError) as info:
        Picamera2Source(cam(width=1280, height=960, fps=60))
    assert info.value.option == "fps"
    assert one_line(info).startswith(
        "option 'fps' in section 'camera' is 60, but picamera2 camera 0 (imx708) reaches 56.0 "
        "fps at most for 1280x960; its sensor modes: 1536x864 at 120.1 fps"
    )


@pytest.mark.parametrize(
    ("model", "kw", "option", "text"),
    [
        (
            "imx219",
            {"lens_position": 2.0},
            "lens_position",
            "is 2, but picamera2 camera 0 (imx219) has no LensPosition control (a fixed-focus "
            "module); leave the option out",
        ),
        (
            "imx708",
            {"white_balance": 4500},
            "white_balance",
            "is 4500, but picamera2 camera 0 (imx708) has no ColourTemperature control (use "
            "colour_gains); leave the option out",
        ),
        (
            "imx708",
            {"gain": 20.0},
            "gain",
            "is 20, outside the 1.12281..16 picamera2 camera 0 (imx708) takes for AnalogueGain",
        ),
        (
            "imx219",
            {"exposure_us": 40, "fps": 10.0},
            "exposure_us",
            "is 40, outside the 75..11766829 picamera2 camera 0 (imx219) takes for ExposureTime",
        ),
        (
            "imx708",
            {"colour_gains": (1.5, 33.0)},
            "colour_gains",
            None,  # refused before: the config's own limit
        ),
    ],
)
def test_a_control_the_camera_lacks_or_cannot_take(
    fake: ModuleType, model: str, kw: dict[str, Any], option: str, text: str | None
) -> None:
    fake.CAMERAS[:] = [fake.CAMERA_MODULE_2 if model == "imx219" else fake.CAMERA_MODULE_3]
    if text is None:
        with pytest.raises(ValueError, match=option):
            cam(**kw)
        return
    with pytest.raises(CameraOptionError) as info:
        Picamera2Source(cam(**kw))
    assert info.value.option == option
    assert one_line(info) == f"option '{option}' in section 'camera' {text}"


def test_a_camera_that_delivers_nothing(fake: Any) -> None:
    fake.STALL_AFTER = 0
    with pytest.raises(CameraError) as info:
        Picamera2Source(cam(), timeout_s=0.2)
    assert one_line(info) == (
        "picamera2 camera 0 (imx708): started but gave no frame in 0.2 s "
        "(expected 640x480 RGB888 at 30 fps)"
    )
    # released: the daemon's retry can open it again
    fake.STALL_AFTER = None
    Picamera2Source(cam()).close()


def test_a_camera_that_stops_raises_camera_error(fake: Any) -> None:
    fake.STALL_AFTER = 3
    src = Picamera2Source(cam(), timeout_s=0.3)
    try:
        with pytest.raises(CameraError, match=r"\(imx708\): gave no frame in 0.3 s"):
            for _ in range(5):
                src.read()
    finally:
        src.close()


def test_no_camera_a_missing_number_and_a_busy_camera(fake: ModuleType) -> None:
    fake.CAMERAS[:] = []
    with pytest.raises(CameraError, match="libcamera finds no camera") as info:
        Picamera2Source(cam())
    one_line(info)
    fake.CAMERAS[:] = [fake.CAMERA_MODULE_3]
    with pytest.raises(CameraOptionError) as missing:
        Picamera2Source(cam(camera_num=1))
    assert str(missing.value) == (
        "option 'camera_num' in section 'camera' is 1, but libcamera finds 1 camera(s): 0 (imx708)"
    )
    first = Picamera2Source(cam())
    try:
        with pytest.raises(CameraError, match=r"Device or resource busy.*another program"):
            Picamera2Source(cam())
    finally:
        first.close()


def test_the_second_camera_of_a_pi_5(fake: ModuleType) -> None:
    fake.CAMERAS[:] = [fake.CAMERA_MODULE_3, fake.CAMERA_MODULE_2]
    src = Picamera2Source(cam(camera_num=1))
    try:
        assert src.camera == "picamera2 camera 1 (imx219)"
        assert src.read().shape == (480, 640, 3)
    finally:
        src.close()


def test_missing_picamera2_names_the_apt_package(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "picamera2", None)  # import picamera2 -> ImportError
    with pytest.raises(PicameraMissingError) as info:
        open_source(cam())
    assert one_line(info) == (
        "picamera2: the picamera2 package is not installed: sudo apt install python3-picamera2 "
        "(and make the venv with --system-site-packages)"
    )
    assert isinstance(info.value, CameraError)  # the daemon's camera-lost fault path


def test_what_it_delivers(fake: ModuleType) -> None:
    config = cam(width=1280, height=960, exposure_us=10000)
    src = open_source(config)
    try:
        info = measure_delivery(src, frames=6)
    finally:
        src.close()
    assert info["size"] == (1280, 960) and info["frames"] == 6
    assert 15 < info["fps"] < 45  # paced at FrameDurationLimits (a busy machine wobbles)
    text = delivery_text(info, config)
    assert text.startswith(
        "camera picamera2 camera 0 (imx708) delivers 1280x960 RGB888 (B, G, R bytes) at "
    )
    assert "exposure_us 10000" in text


def test_bench_picamera_reports_rates_and_no_queue_growth() -> None:
    figures = bench_picamera(seconds=1.0)
    assert figures["size"] == "1280x960" and figures["fps_asked"] == 30.0
    assert figures["frames_read"] >= 15
    assert figures["frames_read"] <= figures["frames_delivered"] + 1
    assert 15 < figures["delivered_fps"] < 40
    assert figures["read_fps"] > 15
    assert figures["max_queue"] <= 1
    assert "picamera2" not in sys.modules  # loaded under a private name
