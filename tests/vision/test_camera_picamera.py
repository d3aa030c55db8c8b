"""The picamera2 source against the shipped simulation of picamera2 (vision/sources/simulated)."""

from __future__ import annotations

import contextlib
import errno
import os
import queue
import sys
import threading
import time
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from controller.bench.camera import bench_picamera
from vision.errors import CameraError
from vision.settings import CameraConfig, CameraOptionError, CameraSource
from vision.sources.delivery import delivery_text, measure_delivery
from vision.sources.picamera import Picamera2Source
from vision.sources.picamera_package import PicameraMissingError
from vision.sources.simulated import picamera2 as simulated
from vision.sources.source import open_source

pytestmark = pytest.mark.timeout(30)


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    """The simulation importable as ``picamera2``, one Camera Module 3 attached."""
    monkeypatch.setitem(sys.modules, "picamera2", simulated)
    monkeypatch.setattr(simulated, "CAMERAS", [simulated.CAMERA_MODULE_3])
    monkeypatch.setattr(simulated, "STALL_AFTER", None)
    monkeypatch.setattr(simulated, "CMA_BYTES", None)
    monkeypatch.setattr(simulated, "VERSION", "0.3.38")
    monkeypatch.setattr(simulated, "LIBCAMERA", simulated.LIBCAMERA_0_5)
    monkeypatch.setattr(simulated, "SCENE", 1.0)
    monkeypatch.setattr(simulated, "ACQUIRE_ERRNO", None)
    yield simulated
    leaked = set(simulated._busy)
    simulated._busy.clear()
    assert not leaked, f"cameras left open: {leaked}"


def before_libcamera_0_5(fake: ModuleType) -> None:
    """The stack before libcamera 0.5: its controls, and a picamera2 of then (0.3.25), whose
    ``start_`` did not add the mode controls yet (that came in 0.3.27)."""
    fake.LIBCAMERA = fake.LIBCAMERA_0_4  # type: ignore[attr-defined]
    fake.VERSION = "0.3.25"  # type: ignore[attr-defined]


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
        config = picam2.create_video_configuration(main={"size": (320, 240), "format": "RGB888"})
        assert config["buffer_count"] == 6 and config["queue"] is True
        picam2.configure(config)
        with pytest.raises(RuntimeError, match="Control Bogus is not advertised by libcamera"):
            picam2.set_controls({"Bogus": 1})
        picam2.set_controls({"AnalogueGain": 99.0})  # libcamera clamps it to its range
        picam2.start()
        assert picam2.libcamera_controls["AnalogueGain"] == 16.0
        assert picam2.controls.make_dict() == {}  # start_() hands them over and resets them
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
        with pytest.raises(RuntimeError, match="__init__ sequence did not complete") as busy:
            fake.Picamera2(0)  # 0.3.38: ``from e``; older releases: tests/.._libcamera.py
        assert str(busy.value.__cause__) == "Failed to acquire camera: Device or resource busy"
    finally:
        picam2.close()
        picam2.close()  # idempotent
    with pytest.raises(RuntimeError, match="No camera number 1 found"):
        fake.Picamera2(1)


# --- the source ---------------------------------------------------------------------------


def test_frames_are_bgr_at_the_configured_size_and_rate(fake: ModuleType) -> None:
    src = open_source(cam())
    try:
        assert isinstance(src, Picamera2Source)
        picam2 = src.picam2
        config = picam2.camera_configuration()
        assert config["main"]["size"] == (640, 480) and config["main"]["format"] == "RGB888"
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


@pytest.mark.parametrize("libcamera", ["0.5", "0.4"])
def test_manual_controls_are_fixed_and_read_back(fake: ModuleType, libcamera: str) -> None:
    if libcamera == "0.4":
        before_libcamera_0_5(fake)
    src = Picamera2Source(
        cam(exposure_us=12000, gain=2.0, colour_gains=(1.8, 1.5), lens_position=2.5)
    )
    try:
        controls = src.picam2.libcamera_controls
        if libcamera == "0.5":  # two algorithms, each fixed by its mode; AeEnable unsent
            assert controls["ExposureTimeMode"] == 1 and controls["AnalogueGainMode"] == 1
            assert "AeEnable" not in controls
        else:  # before 0.5: AeEnable false fixes both
            assert controls["AeEnable"] is False and "AnalogueGainMode" not in controls
        assert controls["ExposureTime"] == 12000 and controls["AnalogueGain"] == 2.0
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


def test_libcamera_0_5_lists_the_modes_beside_ae_enable(fake: ModuleType) -> None:
    """ipa_base.cpp (2025) ipaControls: AeEnable stays, a wrapper setting both modes; the
    source sends the modes themselves (libcamera 0.5.0 ignored AeEnable)."""
    picam2 = fake.Picamera2()
    try:
        known = picam2.camera_controls
        assert known["AeEnable"] == (False, True, True)
        assert known["ExposureTimeMode"] == (0, 1, 0) and known["AnalogueGainMode"] == (0, 1, 0)
    finally:
        picam2.close()
    src = Picamera2Source(cam(exposure_us=8000, gain=1.5))
    try:
        fixed = src.picam2.libcamera_controls
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
            "imx708 libcamera 0.4",  # ColourTemperature came in ipaColourControls later
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
    if model.endswith("libcamera 0.4"):
        before_libcamera_0_5(fake)
    if text is None:
        with pytest.raises(ValueError, match=option):
            cam(**kw)
        return
    with pytest.raises(CameraOptionError) as info:
        Picamera2Source(cam(**kw))
    assert info.value.option == option
    assert one_line(info) == f"option '{option}' in section 'camera' {text}"


def test_the_lens_range_is_the_libcamera_s(fake: ModuleType) -> None:
    """libcamera 0.5 narrows LensPosition to the tuning file's lens limits (imx708: 0..15
    dioptres); before, ``ipaAfControls`` advertised 0..32 and the lens took it."""
    with pytest.raises(CameraOptionError) as info:
        Picamera2Source(cam(lens_position=20.0))
    assert "outside the 0..15" in one_line(info)
    before_libcamera_0_5(fake)
    Picamera2Source(cam(lens_position=20.0)).close()
    with pytest.raises(CameraOptionError) as info:
        Picamera2Source(cam(lens_position=33.0))
    assert "outside the 0..32" in one_line(info)


def test_the_simulated_lens_range_narrows_at_configure_not_before() -> None:
    """libcamera 0.5's ``IpaBase::init`` advertises ``ipaAfControls`` as they are (0..32);
    only ``IpaBase::configure`` narrows LensPosition to the lens limits (review 93)."""
    camera = simulated.Picamera2(0)
    try:
        assert camera.camera_controls["LensPosition"] == (0.0, 32.0, 1.0)
        assert camera.sensor_modes  # which configures the camera once per mode
        assert camera.camera_controls["LensPosition"] == (0.0, 15.0, 1.0)
    finally:
        camera.close()


def test_a_camera_at_a_few_frames_a_second_opens_after_the_frames_libcamera_hides(
    fake: Any,
) -> None:
    """On a camera's first start libcamera's Raspberry Pi IPA hides the frames its automatic
    exposure converges over (7 with the default tuning): at 3 fps the first frame comes
    after 2.7 s, past the 2 s a read waits, and the camera must still open."""
    started = time.monotonic()
    source = Picamera2Source(cam(fps=3.0))
    try:
        assert time.monotonic() - started > 8 / 3 - 0.1  # the hidden frames were not given
        assert source.read().shape == (480, 640, 3)
    finally:
        source.close()


def test_a_camera_that_delivers_nothing(fake: Any) -> None:
    fake.STALL_AFTER = 0
    with pytest.raises(CameraError) as info:
        Picamera2Source(cam(), timeout_s=0.2)
    assert one_line(info) == (
        "picamera2 camera 0 (imx708): started but gave no frame in 0.5 s "
        "(expected 640x480 RGB888 at 30 fps)"
    )  # 0.2 s, and the 7 frames libcamera hides on a first start and the first: 0.27 s
    # released: the daemon's retry can open it again
    fake.STALL_AFTER = None
    Picamera2Source(cam()).close()


def test_short_contiguous_memory_is_a_camera_error(fake: Any) -> None:
    # picamera2 0.3.38 DmaAllocator.allocate: DmaHeap.alloc's ioctl raises OSError
    # (ENOMEM) from configure(), and reading sensor_modes configures every raw mode
    # (imx708 4608x2592: four raw buffers of 14.9 MB): a CameraError, not an OSError
    fake.CMA_BYTES = 30_000_000
    picam2 = fake.Picamera2()
    try:
        with pytest.raises(OSError, match="Cannot allocate memory"):
            picam2.configure(picam2.create_video_configuration(main={"size": (4608, 2592)}))
        assert picam2.camera_configuration() == {}  # left unconfigured
    finally:
        picam2.close()
    with pytest.raises(CameraError) as info:
        Picamera2Source(cam())
    assert "cannot allocate its frame buffers" in one_line(info)
    assert "Cannot allocate memory" in str(info.value) and "cma" in str(info.value)
    fake.CMA_BYTES = None
    Picamera2Source(cam()).close()  # released: the daemon's retry can open it


def test_a_camera_gone_while_configuring_is_named_as_gone_not_short_of_memory(
    fake: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # only ENOMEM is the dma-heap's; another errno from configure() is said as it is
    def gone(self: Any, config: Any) -> None:
        raise OSError(errno.ENODEV, os.strerror(errno.ENODEV))

    monkeypatch.setattr(fake.Picamera2, "configure", gone)
    with pytest.raises(CameraError) as info:
        Picamera2Source(cam())
    assert "cannot be configured: No such device" in one_line(info)
    assert "cma" not in str(info.value)


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


@pytest.mark.parametrize("camera", ["Camera Module 3", "Camera Module 2", "HQ camera"])
def test_bench_picamera_reads_30_fps_at_1280x960_from_each_pi_camera(
    fake: ModuleType, camera: str
) -> None:
    figures = bench_picamera(camera, seconds=1.0)
    assert figures["size"] == "1280x960" and figures["fps_asked"] == 30.0
    assert figures["frames_read"] >= 15
    assert figures["frames_read"] <= figures["frames_delivered"] + 1
    assert 15 < figures["delivered_fps"] < 40
    assert figures["max_queue"] <= 1


# --- issue 25: what only a real Pi showed ---------------------------------------------------


def test_reading_sensor_modes_leaves_the_full_resolution_limits(fake: ModuleType) -> None:
    """picamera2's sensor_modes configures each mode in turn; configure() refreshes the limits."""
    picam2 = fake.Picamera2()
    try:
        modes = picam2.sensor_modes
        assert [m["fps"] for m in modes] == [120.13, 56.03, 14.35]
        slowest = picam2.camera_controls["FrameDurationLimits"][0]
        assert round(1e6 / slowest, 2) == 14.35  # the last mode probed is still configured
        picam2.configure(picam2.create_video_configuration(sensor={"output_size": (2304, 1296)}))
        assert round(1e6 / picam2.camera_controls["FrameDurationLimits"][0], 2) == 56.03
    finally:
        picam2.close()


@pytest.mark.parametrize(
    ("camera", "mode"),
    [
        ("CAMERA_MODULE_3", (2304, 1296)),
        ("CAMERA_MODULE_2", (1640, 1232)),
        ("HQ_CAMERA", (1332, 990)),
    ],
)
def test_1280x960_at_30_fps_opens_on_each_pi_camera(
    fake: ModuleType, camera: str, mode: tuple[int, int]
) -> None:
    """Defect 1: the rate is checked against the chosen mode, not the last one probed."""
    fake.CAMERAS[:] = [getattr(fake, camera)]
    src = Picamera2Source(cam(width=1280, height=960, fps=30.0))
    try:
        assert src.picam2.camera_configuration()["sensor"]["output_size"] == mode
        assert src.picam2.libcamera_controls["FrameDurationLimits"] == (33333, 33333)
        assert src.read().shape == (960, 1280, 3)
    finally:
        src.close()


def _in_thread(work: Any, seconds: float = 10.0) -> bool:
    """Run ``work`` on a thread; True if it returned within ``seconds`` (False: it hangs)."""
    done = threading.Event()

    def run() -> None:
        with contextlib.suppress(CameraError):
            work()
        done.set()

    threading.Thread(target=run, daemon=True).start()
    return done.wait(seconds)


def test_a_camera_that_stops_closes_without_queueing_behind_its_capture(fake: Any) -> None:
    """Defect 2: the timed-out capture is cancelled, so stop/close do not wait for it."""
    fake.STALL_AFTER = 3
    src = Picamera2Source(cam(), timeout_s=0.3)
    with pytest.raises(CameraError, match=r"gave no frame in 0\.3 s"):
        for _ in range(5):
            src.read()
    assert _in_thread(src.close), "close() hangs behind the timed-out capture job"
    assert not src.picam2.is_open


def test_what_it_delivers_is_asked_with_a_timeout(fake: Any) -> None:
    """Defect 2: a camera silent after its first frame does not block the open."""
    fake.STALL_AFTER = 1
    opened: list[Picamera2Source] = []
    assert _in_thread(lambda: opened.append(Picamera2Source(cam(), timeout_s=0.3)))
    (src,) = opened
    try:
        assert src.delivered["fps"] is None  # no metadata came: nothing is claimed
    finally:
        assert _in_thread(src.close)


def test_the_camera_worker_reports_a_lost_and_restored_pi_camera(fake: Any) -> None:
    """Defect 2: CameraLost reaches the loop though the camera went silent mid-stream."""
    from vision.events import CameraLost, CameraRestored
    from vision.learning.defaults import default_model
    from vision.reading.reader import CameraWorker, DiceReader

    fake.STALL_AFTER = 5
    events: queue.Queue[Any] = queue.Queue()
    worker = CameraWorker(
        cam(),
        DiceReader(default_model(), events, expect=3),
        retry_s=0.05,
        opener=lambda c: Picamera2Source(c, timeout_s=0.3),
    )
    with worker:
        lost = _next_event(events, CameraLost)
        assert "gave no frame in 0.3 s" in lost.reason
        fake.STALL_AFTER = None
        _next_event(events, CameraRestored)


def _next_event(events: queue.Queue[Any], kind: type) -> Any:
    while True:
        event = events.get(timeout=15)
        if isinstance(event, kind):
            return event


def _old_picamera2(version: str, flush: bool = False) -> ModuleType:
    """The simulation with picamera2's older signatures: no wait(timeout=), no sensor=, and
    without ``flush`` no cancel_all_and_flush (picamera2 before 0.3.21)."""

    class OldPicamera2(simulated.Picamera2):
        def wait(self, job: Any) -> Any:  # type: ignore[override]
            return job.get_result()

        def create_video_configuration(  # type: ignore[override]
            self, main: Any = None, controls: Any = None, buffer_count: int = 6, queue: bool = True
        ) -> Any:
            return super().create_video_configuration(
                main=main, controls=controls, buffer_count=buffer_count, queue=queue
            )

    if not flush:
        OldPicamera2.cancel_all_and_flush = None  # type: ignore[assignment,method-assign]
    module = ModuleType("picamera2")
    module.Picamera2 = OldPicamera2  # type: ignore[attr-defined]
    module.VERSION = version  # type: ignore[attr-defined]
    return module


def test_an_old_picamera2_is_refused_with_the_apt_upgrade(fake: ModuleType) -> None:
    """Defect 3: one line naming the version and the command, not a TypeError loop."""
    with pytest.raises(CameraError) as info:
        Picamera2Source(cam(), module=_old_picamera2("0.3.12"))
    assert one_line(info) == (
        "picamera2: 0.3.12 is installed, which has no create_video_configuration(sensor=) or "
        "wait(timeout=) or cancel_all_and_flush(); toptable needs picamera2 0.3.21 or later: "
        "sudo apt update && sudo apt install --only-upgrade python3-picamera2"
    )


def test_a_usb_camera_listed_by_libcamera_is_sent_to_v4l2(fake: ModuleType) -> None:
    """Defect 3: a USB camera's sensor modes have no size (picamera2's sensor_modes)."""
    fake.CAMERAS[:] = [fake.USB_WEBCAM, fake.CAMERA_MODULE_3]
    assert [c["Model"] for c in fake.Picamera2.global_camera_info()] == [
        "imx708",
        "HD Pro Webcam C920",
    ]  # picamera2 puts USB cameras last
    with pytest.raises(CameraError) as info:
        Picamera2Source(cam(camera_num=1))
    assert one_line(info) == (
        "picamera2 camera 1 (HD Pro Webcam C920): is not a Pi camera module (no sensor modes, "
        'formats MJPEG, YUYV; a USB camera?): use source = "v4l2" with its /dev/video device'
    )
    src = Picamera2Source(cam(camera_num=0))
    try:
        assert src.camera == "picamera2 camera 0 (imx708)"
    finally:
        src.close()


def test_toptable_bench_camera_prints_one_line_per_pi_camera(
    fake: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    from controller.cli.main import main

    assert main(["bench", "camera", "--quick"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("== camera: ")
    cameras = [line.split(" (")[0] for line in lines[1:]]
    assert cameras == ["Camera Module 3", "Camera Module 2", "HQ camera"]
    assert all("1280x960 RGB888 at 30 fps from sensor mode" in line for line in lines[1:])
