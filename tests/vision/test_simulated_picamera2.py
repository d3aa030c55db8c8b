"""The shipped picamera2 simulation builds and configures as picamera2 0.3.38's source does.

picamera2 0.3.38 ``picamera2.py``: the ``create_*_configuration`` builders pass the
streams through ``_make_initial_stream_config`` (only ``format``, ``size``, ``stride``,
``preserve_ar``; any other key is a ``ValueError``), align the main stream
(``align_stream(main, optimal=False)``: even sizes) and give a Pi camera a raw stream
by default (``raw={}``: the sensor's format at the main size), a USB camera none; and
``_make_libcamera_config`` picks the sensor mode itself with ``score_mode`` ("copies how
libcamera scores modes"), from the ``sensor`` entry, else the raw stream, else the main
size: the nearest mode, never a refusal.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from vision.sources.simulated import picamera2 as simulated

pytestmark = pytest.mark.timeout(30)


@pytest.fixture
def camera(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """A simulated Camera Module 3, opened (then closed)."""
    monkeypatch.setattr(simulated, "CAMERAS", [simulated.CAMERA_MODULE_3, simulated.USB_WEBCAM])
    picam2 = simulated.Picamera2(0)
    try:
        yield picam2
    finally:
        picam2.close()


def test_a_sensor_size_no_mode_has_gets_the_mode_picamera2_scores_best(camera: Any) -> None:
    # 1280x960 is no imx708 mode: score_mode puts 1536x864 (score 423) before
    # 2304x1296 (507) and 4608x2592 (1406); picamera2 asks libcamera for that mode
    camera.configure(
        camera.create_video_configuration(
            main={"size": (1280, 960)}, sensor={"output_size": (1280, 960), "bit_depth": 10}
        )
    )
    assert camera.camera_configuration()["sensor"] == {"bit_depth": 10, "output_size": (1536, 864)}


def test_without_a_sensor_entry_the_raw_stream_size_decides(camera: Any) -> None:
    camera.configure(camera.create_video_configuration(main={"size": (1280, 960)}))
    assert camera.camera_configuration()["sensor"]["output_size"] == (1536, 864)
    camera.configure(camera.create_video_configuration(raw={"size": (4608, 2592)}))
    assert camera.camera_configuration()["sensor"]["output_size"] == (4608, 2592)


def test_the_builders_give_picamera2s_streams(camera: Any) -> None:
    config = camera.create_video_configuration(main={"size": (641, 481), "format": "RGB888"})
    assert config["main"] == {"format": "RGB888", "size": (640, 480), "preserve_ar": True}
    assert config["raw"] == {"format": "SRGGB10_CSI2P", "size": (640, 480)}
    assert config["lores"] is None and config["colour_space"] == "Smpte170m"  # below 1280x720
    assert camera.create_video_configuration()["colour_space"] == "Rec709"
    # a sensor mode as sensor_modes lists it may be handed over as the raw stream
    config = camera.create_still_configuration(raw=camera.sensor_modes[0])
    assert config["raw"] == {"format": "SRGGB10_CSI2P", "size": (1536, 864)}
    with pytest.raises(ValueError, match="Bad key 'sise'"):
        camera.create_video_configuration(main={"sise": (640, 480)})


def test_a_usb_camera_gets_no_raw_stream_nor_sensor_entry(camera: Any) -> None:
    usb = simulated.Picamera2(1)
    try:
        config = usb.create_video_configuration(sensor={"output_size": (1920, 1080)})
        assert config["raw"] is None and config["sensor"] is None
        usb.configure(config)
        assert usb.camera_configuration()["sensor"] is None
    finally:
        usb.close()


def test_wait_zero_hands_back_the_job_as_picamera2_does(camera: Any) -> None:
    # dispatch_functions: ``job.get_result(timeout=timeout) if wait else job``
    camera.configure(camera.create_video_configuration(main={"size": (320, 240)}))
    camera.start()
    job = camera.capture_metadata(wait=0)
    assert isinstance(job, simulated.Job)
    assert camera.wait(job, timeout=2.0)["FrameDuration"] == 33333


def test_frame_rate_and_the_modes_libcamera_is_started_with(camera: Any) -> None:
    # controls.py: FrameRate is virtual, set as FrameDurationLimits; start_ adds
    # ExposureTimeMode/AnalogueGainMode (1: manual) for a fixed exposure or gain
    config = camera.create_video_configuration(
        main={"size": (320, 240)}, controls={"FrameRate": 25.0, "ExposureTime": 10000}
    )
    camera.configure(config)
    assert camera.controls.make_dict()["FrameDurationLimits"] == (40000, 40000)
    camera.start()
    assert camera.libcamera_controls["FrameDurationLimits"] == (40000, 40000)
    assert camera.libcamera_controls["ExposureTimeMode"] == 1
    assert "AnalogueGainMode" not in camera.libcamera_controls


def test_set_controls_while_started_adds_the_modes_as_picamera2_s_requests_do(
    camera: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # request.py (0.3.27 on) CompletedRequest.release: a value sets the mode manual, 0 sets
    # it auto and is not sent; libcamera's AGC then runs that algorithm again
    monkeypatch.setattr(simulated, "SCENE", 1.0)
    camera.configure(camera.create_video_configuration(main={"size": (320, 240)}))
    camera.start()
    camera.set_controls({"AnalogueGain": 4.0})
    assert camera.libcamera_controls["AnalogueGainMode"] == 1
    assert [camera.capture_metadata()["AnalogueGain"] for _ in range(3)][-1] == 4.0
    camera.set_controls({"AnalogueGain": 0})
    assert camera.libcamera_controls["AnalogueGainMode"] == 0
    assert [camera.capture_metadata()["AnalogueGain"] for _ in range(3)][-1] != 4.0
