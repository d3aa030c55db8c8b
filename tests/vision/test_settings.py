"""[camera]: the section, its one set of limits, and the frame source it opens."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from controller.config import Config, load_config, parse_config
from controller.core.errors import DataError
from tests.paths import REPO
from vision.errors import ConfigError
from vision.settings import FPS, HEIGHT, WIDTH, CameraConfig, CameraSettings, CameraSource
from vision.sources.source import open_source

pytestmark = pytest.mark.timeout(20)

DEMO = REPO / "controller" / "data" / "demo" / "config.toml"
EXAMPLE = REPO / "systemd" / "config.example.toml"


def _options(option: str, value: float) -> dict[str, Any]:
    """``CameraConfig`` keyword arguments setting one option."""
    return {option: value}


@pytest.mark.parametrize(
    ("camera", "kind"),
    [
        ({"source": "v4l2", "device": "/dev/video2"}, CameraSource.V4L2),
        ({"source": "file", "path": "throws.mp4"}, CameraSource.FILE),
        ({"source": "folder", "path": "frames"}, CameraSource.FOLDER),
        ({"source": "synthetic"}, CameraSource.SYNTHETIC),
    ],
)
def test_each_camera_source_opens_that_kind(camera: dict[str, str], kind: CameraSource) -> None:
    cfg = parse_config(
        {"camera": {**camera, "width": 640, "height": 480, "fps": 15}}, base_dir=Path("/srv")
    )
    source = cfg.camera.source_config(seed=9)
    assert source.kind is kind
    assert (source.width, source.height, source.fps, source.seed) == (640, 480, 15.0, 9)
    assert source.loop == ("path" in camera)  # a recording replays
    if "path" in camera:
        assert source.path == f"/srv/{camera['path']}"
    if kind is CameraSource.V4L2:
        assert source.device == "/dev/video2"


def test_every_camera_source_opens() -> None:
    for source in CameraSource:
        path = Path("/srv/x") if source in (CameraSource.FILE, CameraSource.FOLDER) else None
        cfg = Config(camera=CameraSettings(source=source, path=path))
        assert cfg.camera.source_config().kind is source


def test_a_camera_index_becomes_its_device_and_defaults_agree() -> None:
    cfg = parse_config({"camera": {"device": 3}})
    assert cfg.camera.source_config().device == "/dev/video3"
    section, plain = Config().camera.source_config(), CameraConfig(kind=CameraSource.V4L2)
    assert (section.device, section.width, section.height, section.fps) == (
        plain.device,
        plain.width,
        plain.height,
        plain.fps,
    )


def test_the_file_and_the_source_share_one_set_of_limits() -> None:
    """The file's checks and the source's checks take the same bounds."""
    for option, (lo, hi) in (("width", WIDTH), ("height", HEIGHT), ("fps", FPS)):
        parse_config({"camera": {option: lo}})
        parse_config({"camera": {option: hi}})
        for wrong in (lo - 1, hi + 1):
            with pytest.raises(ValueError, match=f"Option '{option}' in section 'camera'"):
                parse_config({"camera": {option: wrong}})
            with pytest.raises(ConfigError):
                CameraConfig(kind=CameraSource.SYNTHETIC, **_options(option, wrong))
        CameraConfig(kind=CameraSource.SYNTHETIC, **_options(option, lo))
        CameraConfig(kind=CameraSource.SYNTHETIC, **_options(option, hi))


def test_kinds_are_the_section_names() -> None:
    assert CameraConfig(kind="file", path="x.mp4").kind is CameraSource.FILE  # type: ignore[arg-type]
    with pytest.raises(ConfigError):
        CameraConfig(kind="video", path="x.mp4")  # type: ignore[arg-type]


@pytest.mark.timeout(60)  # a hang guard: rendering a 1280x960 frame takes seconds of CPU
def test_the_demo_camera_renders_dice() -> None:
    src = open_source(load_config(DEMO).camera.source_config(seed=1))
    try:
        frame = src.read()
        assert frame is not None and frame.shape == (960, 1280, 3)
    finally:
        src.close()


# --- picamera2 and the manual controls ------------------------------------------------------


def test_a_file_without_the_new_options_means_what_it_did() -> None:
    cfg = parse_config({"camera": {"source": "v4l2", "device": 2, "fps": 25}})
    source = cfg.camera.source_config()
    assert source.manual == {}
    assert (source.fourcc, source.camera_num, source.device) == (None, 0, "/dev/video2")


def test_picamera2_source_with_fixed_controls() -> None:
    cfg = parse_config(
        {
            "camera": {
                "source": "picamera2",
                "camera_num": 1,
                "exposure_us": 10000,
                "gain": 2,
                "colour_gains": [1.8, 1.5],
                "lens_position": 2.5,
            }
        }
    )
    source = cfg.camera.source_config()
    assert source.kind is CameraSource.PICAMERA2 and source.camera_num == 1
    assert source.manual == {
        "exposure_us": 10000,
        "gain": 2.0,
        "colour_gains": (1.8, 1.5),
        "lens_position": 2.5,
    }


def test_v4l2_controls_and_fourcc() -> None:
    cfg = parse_config(
        {"camera": {"fourcc": "mjpg", "white_balance": 4500, "lens_position": 30, "gain": 64}}
    )
    source = cfg.camera.source_config()
    assert source.fourcc == "MJPG"
    assert source.manual == {"gain": 64.0, "white_balance": 4500, "lens_position": 30.0}


@pytest.mark.parametrize(
    ("camera", "message"),
    [
        (
            {"exposure_us": 50000},
            "Option 'exposure_us' in section 'camera' is 50000 µs, longer than one frame at "
            "fps = 30 (33333 µs): shorten it or lower fps",
        ),
        (
            {"colour_gains": [1.8, 1.5]},
            "Option 'colour_gains' in section 'camera' is for source 'picamera2'; a V4L2 camera's "
            "white balance is white_balance (a colour temperature in kelvin)",
        ),
        (
            {"camera_num": 1},
            "Option 'camera_num' in section 'camera' is for source 'picamera2'; a V4L2 camera is "
            "chosen by device",
        ),
        (
            {"fourcc": "MJPEG"},
            "Option 'fourcc' in section 'camera' must be a four-character pixel format such as "
            "'MJPG' or 'YUYV' (got 'MJPEG')",
        ),
        (
            {"colour_gains": [1.8]},
            "Option 'colour_gains' in section 'camera' must be two gains [red, blue] such as "
            "[1.8, 1.6] (got [1.8])",
        ),
        (
            {"source": "picamera2", "colour_gains": [1.8, 40]},
            "Option 'colour_gains' in section 'camera' must have maximum of 32 (got 40)",
        ),
        (  # libcamera's IPA (ipa_base.cpp COLOUR_GAINS): a gain of 0 switches AWB back on
            {"source": "picamera2", "colour_gains": [0, 1.5]},
            "Option 'colour_gains' in section 'camera' must have each gain above 0 (got [0, "
            "1.5]): a colour gain of 0 is libcamera's automatic white balance (leave "
            "colour_gains out for that)",
        ),
        (
            {"source": "picamera2", "colour_gains": [1.8, -0.5]},
            "Option 'colour_gains' in section 'camera' must have each gain above 0 (got [1.8, "
            "-0.5])",
        ),
        (
            {"source": "picamera2", "white_balance": 4500, "colour_gains": [1.8, 1.5]},
            "Option 'white_balance' in section 'camera' and colour_gains both fix white "
            "balance: keep one",
        ),
        (
            {"white_balance": 500},
            "Option 'white_balance' in section 'camera' must have minimum of 1000 (got 500)",
        ),
        (
            {"lens_position": -1},
            "Option 'lens_position' in section 'camera' must have minimum of 0 (got -1)",
        ),
    ],
)
def test_new_options_are_checked_one_line_each(camera: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError) as info:
        parse_config({"camera": camera})
    assert message in str(info.value)
    assert str(info.value).count("section 'camera'") == 1


def test_the_source_config_refuses_a_colour_gain_of_0() -> None:
    """libcamera's ColourGains range starts at 0, but 0 means automatic white balance."""
    with pytest.raises(ConfigError) as info:
        CameraConfig(kind=CameraSource.PICAMERA2, colour_gains=(0.0, 1.5))
    assert str(info.value) == (
        "camera colour_gains (0.0, 1.5) must be two gains (red, blue), each above 0 and at "
        "most 32: a colour gain of 0 is libcamera's automatic white balance (leave "
        "colour_gains out for that)"
    )
    CameraConfig(kind=CameraSource.PICAMERA2, colour_gains=(0.01, 32.0))


def test_the_source_config_checks_the_manual_controls_too() -> None:
    with pytest.raises(ConfigError, match=r"exposure_us .* longer than one frame"):
        CameraConfig(kind=CameraSource.PICAMERA2, exposure_us=40000, fps=30)
    CameraConfig(kind=CameraSource.PICAMERA2, exposure_us=40000, fps=25)
    with pytest.raises(ConfigError, match="fourcc"):
        CameraConfig(kind=CameraSource.V4L2, fourcc="MJ")
    with pytest.raises(ConfigError, match="colour_gains"):
        CameraConfig(kind=CameraSource.PICAMERA2, colour_gains=(1.0, 40.0))
    with pytest.raises(ConfigError, match="camera_num"):
        CameraConfig(kind=CameraSource.PICAMERA2, camera_num=9)


def test_the_example_config_opens_a_picamera2_source_when_switched() -> None:
    text = EXAMPLE.read_text().replace('source = "v4l2"', 'source = "picamera2"', 1)
    cfg = parse_config(tomllib.loads(text))
    assert cfg.camera.source_config().kind is CameraSource.PICAMERA2


def test_a_camera_device_of_the_wrong_kind_is_shown_in_part() -> None:
    """A list of 5,000 items for [camera] device was printed whole in the one line."""
    with pytest.raises(DataError) as err:
        parse_config({"camera": {"device": list(range(5000))}}, "cfg.toml")
    assert str(err.value) == (
        "cfg.toml: Option 'device' in section 'camera' must be a device path such as "
        "'/dev/video0' or an index 0..63 (got [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, ... "
        "(5000 items)])"
    )
