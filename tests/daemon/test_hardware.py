"""The table's devices opened from the daemon config: all simulated, and degraded."""

from __future__ import annotations

import queue
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from controller.board.sensor_map import save_sensor_map
from controller.config import Config, load_config, parse_config
from controller.core.events import Event
from controller.daemon.hardware import OutputsSink, TableDevices, load_layout
from controller.gamedata import DEMO_DIR
from controller.table.view import faults_from
from hardware.board.events import BoardResynced, LinkLost, SensorChanged
from hardware.board.relay import FaultRelay
from hardware.controls.events import ButtonName, ButtonPressed
from hardware.displays.display_board import DisplayBoard
from hardware.displays.i2c_bus import BusPool
from hardware.displays.view_json import EXAMPLE_STATE, load_view
from tests.hardware.displays.helpers import FakeSMBus
from tests.waiting import wait_for, wait_until
from vision.errors import CameraError
from vision.events import CameraLost, CameraRestored
from vision.settings import CameraConfig
from vision.sources.source import FrameSource

pytestmark = [
    pytest.mark.timeout(20),
    pytest.mark.filterwarnings("ignore:Image.Image.getdata is deprecated:DeprecationWarning"),
]

DEMO = load_config(DEMO_DIR / "config.toml")
MISSING_PORT = "/dev/toptable-test-no-such-board"
MOCK = {"backend": "mock"}


def _wait_for(q: queue.Queue[Event], kind: type[Event], timeout: float = 30.0) -> Event:
    """The first event of ``kind`` (others are dropped), or fail after ``timeout``."""
    end = time.monotonic() + timeout
    while (left := end - time.monotonic()) > 0:
        try:
            event = q.get(timeout=left)
        except queue.Empty:
            break
        if isinstance(event, kind):
            return event
    pytest.fail(f"no {kind.__name__} within {timeout} s")


class StillTray:
    """A camera over an empty tray: small black frames at 100 fps, for ever."""

    name = "still tray"

    def __init__(self) -> None:
        self.closed = False

    def read(self) -> np.ndarray[Any, Any] | None:
        time.sleep(0.01)
        return np.zeros((48, 64, 3), np.uint8)

    def close(self) -> None:
        self.closed = True


def _still(config: CameraConfig) -> FrameSource:
    return StillTray()


def test_the_demo_config_opens_every_simulated_device(tmp_path: Path) -> None:
    q: queue.Queue[Event] = queue.Queue()
    with TableDevices(DEMO, q, state_dir=tmp_path, evidence_dir=tmp_path / "ev") as devices:
        assert devices.faults() == {}
        assert devices.sim is not None and devices.link is not None
        assert devices.link.port == str(tmp_path / "board") == devices.sim.path
        assert devices.layout is not None
        assert devices.sim.sensors == devices.layout.sensor_count == 42
        _wait_for(q, BoardResynced)
        assert devices.link.connected
        devices.sim.place(7)
        changed = _wait_for(q, SensorChanged)
        assert isinstance(changed, SensorChanged)
        assert (changed.sensor, changed.occupied) == (7, True)
        # the buttons are gpiozero's mock pins: a press becomes an event
        pin = devices.pin_factory.pin(DEMO.controls.confirm)
        pin.drive_low()
        time.sleep(10 * DEMO.controls.bounce_ms / 1000)  # a finger: well past the debounce
        pin.drive_high()
        assert _wait_for(q, ButtonPressed) == ButtonPressed(ButtonName.CONFIRM)
        # the screens (four dummy displays) and the LEDs take each view
        sinks = devices.sinks()
        assert isinstance(sinks[0], DisplayBoard) and len(sinks[0].displays) == 4
        assert isinstance(sinks[1], OutputsSink)
        view = load_view(EXAMPLE_STATE)
        for sink in sinks:
            sink.update(view)
        seat_pin = devices.pin_factory.pin(DEMO.controls.led_seats[view.seat])
        assert seat_pin.state
        # the camera renders frames for the reader
        camera = devices.camera
        assert camera is not None and wait_for(lambda: camera.frames > 0, 30)


def test_new_attack_is_handed_to_the_camera_thread(tmp_path: Path) -> None:
    q: queue.Queue[Event] = queue.Queue()
    with TableDevices(DEMO, q, state_dir=tmp_path, camera_opener=_still) as devices:
        reader = devices.reader
        assert reader is not None and reader.expect is None
        assert reader.prune_older_games  # the table's photos: earlier games' make room
        devices.new_attack(4)
        assert wait_for(lambda: reader.expect == 4, 30)  # applied by the camera thread
        devices.new_attack(2)
        assert wait_for(lambda: reader.expect == 2, 30)


def test_missing_camera_port_and_display_are_faults_and_the_rest_open(tmp_path: Path) -> None:
    cfg = parse_config(
        {
            "camera": {"source": "v4l2", "device": "/dev/video63"},
            "board": {"backend": "serial", "port": MISSING_PORT},
            "displays": {
                "screen": [
                    {"role": "turn", "driver": "dummy"},
                    {"role": "combat", "bus": 1, "address": 0x3D},
                ]
            },
            "controls": {"backend": "mock"},
        }
    )
    bus = FakeSMBus({None: set()})  # I2C bus 1 with nothing answering yet
    q: queue.Queue[Event] = queue.Queue()
    with TableDevices(cfg, q, state_dir=tmp_path, bus_pool=BusPool(lambda n: bus)) as devices:
        faults = devices.faults()
        assert set(faults) == {"camera", "board", "display:combat-2"}
        assert faults["camera"].startswith("camera /dev/video63: cannot open it as a V4L2 camera")
        assert "no such device" in faults["camera"]  # not "busy": the node is gone
        assert faults["board"].startswith(f"board link: cannot open board port {MISSING_PORT}")
        assert faults["display:combat-2"].startswith(
            "display 'combat-2' (ssd1306 128x64) on I2C bus 1 at address 0x3D: no answer"
        )
        lost = _wait_for(q, CameraLost)
        assert isinstance(lost, CameraLost) and "/dev/video63" in lost.reason
        # the rest work: the dummy screen draws, the buttons post
        assert [d.config.name for d in devices.displays.displays] == ["turn-1"]
        assert devices.displays.update(load_view(EXAMPLE_STATE)) == 1
        devices.pin_factory.pin(cfg.controls.undo).drive_low()
        time.sleep(10 * cfg.controls.bounce_ms / 1000)  # a finger: well past the debounce
        devices.pin_factory.pin(cfg.controls.undo).drive_high()
        assert _wait_for(q, ButtonPressed) == ButtonPressed(ButtonName.UNDO)
        assert devices.retry() == []  # still missing
        bus.present[None].add(0x3D)  # the screen is plugged in
        assert devices.retry() == ["display:combat-2"]
        assert "display:combat-2" not in devices.faults()


def test_a_camera_that_comes_back_clears_its_fault(tmp_path: Path) -> None:
    plugged = threading.Event()

    def flaky(config: CameraConfig) -> FrameSource:
        if not plugged.is_set():
            raise CameraError(f"{config.device}: cannot open the camera or video")
        return _still(config)

    cfg = parse_config(
        {"camera": {"source": "v4l2"}, "board": {"port": MISSING_PORT}, "controls": MOCK}
    )
    q: queue.Queue[Event] = queue.Queue()
    with TableDevices(
        cfg, q, state_dir=tmp_path, camera_opener=flaky, camera_retry_s=0.05
    ) as devices:
        assert devices.faults()["camera"] == "camera /dev/video0: cannot open the camera or video"
        _wait_for(q, CameraLost)
        assert "camera" in devices.faults()  # retried in the background, still missing
        plugged.set()
        _wait_for(q, CameraRestored)
        assert "camera" not in devices.faults()


def test_an_unreadable_face_model_is_a_fault_retried(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Retried every few seconds, and said once (review "threads" f02: 720 lines an hour)."""
    broken = tmp_path / "faces.npz"
    broken.write_bytes(b"not a model")
    cfg = parse_config(
        {
            "camera": {"source": "synthetic", "model": str(broken)},
            "board": {"port": MISSING_PORT},
            "controls": MOCK,
        }
    )
    q: queue.Queue[Event] = queue.Queue()
    with TableDevices(cfg, q, state_dir=tmp_path, camera_opener=_still) as devices:
        assert devices.camera is None
        assert devices.faults()["camera"].startswith(f"camera face model {broken}:")
        devices.report_missing()  # at the start: the table enters dice by hand (tests2 d07)
        lost = _wait_for(q, CameraLost)
        assert isinstance(lost, CameraLost) and f"camera face model {broken}" in lost.reason
        devices.new_attack(3)  # no reader: nothing to hand over, nothing raised
        caplog.clear()
        with caplog.at_level("WARNING", logger="controller.daemon.hardware"):
            assert devices.retry() == [] and devices.retry() == []
        assert devices.faults()["camera"].startswith(f"camera face model {broken}:")
        assert not [r for r in caplog.records if "camera face model" in r.getMessage()]


def test_a_sensor_map_sizes_the_simulated_board(tmp_path: Path) -> None:
    layout = load_layout(Config())
    mapping = save_sensor_map(tmp_path / "map.toml", layout.name, {1: 2, 2: 0, 3: 1})
    cfg = parse_config(
        {"board": {"backend": "simulated", "mapping": str(mapping)}, "controls": MOCK}
    )
    assert load_layout(cfg).space_for_sensor(2) == 1
    q: queue.Queue[Event] = queue.Queue()
    with TableDevices(cfg, q, state_dir=tmp_path, camera_opener=_still) as devices:
        assert devices.sim is not None and devices.sim.sensors == 3
        assert devices.layout is not None and devices.layout.space_for_sensor(0) == 2


def test_close_is_idempotent_and_stops_everything(tmp_path: Path) -> None:
    q: queue.Queue[Event] = queue.Queue()
    devices = TableDevices.open(DEMO, q, camera_opener=_still)
    state = devices.state_dir
    assert state.is_dir()
    link, sim, camera = devices.link, devices.sim, devices.camera
    devices.close()
    devices.close()
    assert not state.exists()  # the temporary folder for the sim's port is gone
    assert camera is not None and camera.finished.is_set()
    assert sim is not None and not sim.plugged
    assert link is not None and link._thread is None
    assert devices.retry() == [] and devices.faults() == {}
    devices.new_attack(2)  # harmless after close


def test_threads_are_not_left_behind(tmp_path: Path) -> None:
    before = {t.ident for t in threading.enumerate()}
    q: queue.Queue[Event] = queue.Queue()
    with TableDevices(DEMO, q, state_dir=tmp_path, camera_opener=_still):
        pass
    left: list[Any] = [
        t for t in threading.enumerate() if t.ident not in before and t.name != "MainThread"
    ]
    assert wait_for(lambda: not [t for t in left if t.is_alive()], 10), left


@pytest.mark.timeout(60)
def test_a_noisy_board_link_shows_its_health_among_the_faults(tmp_path: Path) -> None:
    q: queue.Queue[Event] = queue.Queue()
    with TableDevices(DEMO, q, state_dir=tmp_path, evidence_dir=tmp_path / "ev") as devices:
        assert devices.sim is not None and devices.link is not None
        _wait_for(q, BoardResynced)
        link = devices.link
        devices.sim.relay_up = FaultRelay(corrupt=0.05, seed=2)  # a loose cable from now on
        wait_until(lambda: link.stats.crc_failures > 0, 30, "a frame failing its CRC")
        wait_until(lambda: "board:link" in devices.faults(), 10, "the link's health line")
        faults = devices.faults()
        assert faults["board:link"].startswith("link health: ")
        outputs = devices.outputs
        assert outputs is not None and outputs.link_led is not None
        outputs.show(replace(load_view(EXAMPLE_STATE), faults=faults_from(faults)))
        assert not outputs.link_led.value  # the owner is told to look at the cable
        assert outputs.camera_led is not None and outputs.camera_led.value


def test_a_board_missing_from_the_start_is_posted_as_lost(tmp_path: Path) -> None:
    """The board's port is not there as the table starts: the table hears LinkLost (naming
    the port and why), so moves are entered with the buttons until it is back."""
    cfg = parse_config({"board": {"backend": "serial", "port": MISSING_PORT}, "controls": MOCK})
    q: queue.Queue[Event] = queue.Queue()
    with TableDevices(cfg, q, state_dir=tmp_path, camera_opener=_still) as devices:
        devices.report_missing()
        lost = _wait_for(q, LinkLost)
        assert isinstance(lost, LinkLost) and lost.port == MISSING_PORT
        assert lost.reason == devices.faults()["board"]


def test_a_resumed_games_tokens_are_on_the_simulated_board_as_it_starts(tmp_path: Path) -> None:
    """The demo's world puts a resumed game's tokens on the simulated board before it starts."""
    cfg = parse_config({"board": {"backend": "simulated"}, "controls": MOCK})
    q: queue.Queue[Event] = queue.Queue()
    with TableDevices(
        cfg, q, state_dir=tmp_path, camera_opener=_still, board_tokens=(0, 5)
    ) as devices:
        assert devices.sim is not None
        held = [s for s in range(devices.sim.sensors) if devices.sim.matrix[s]]
        assert held == [0, 5]
