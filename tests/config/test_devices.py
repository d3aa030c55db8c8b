"""Device checks: each missing or unusable device gives a message a person can act on."""

from __future__ import annotations

import errno
import fcntl
import fnmatch
import os
import stat
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from controller.config import Config, parse_config
from controller.config.devices import check_devices
from controller.config.probe import DeviceProbe
from controller.core.errors import DataError
from controller.daemon.held_problem import held_game_problem
from tests.as_nobody import as_nobody
from vision.errors import CameraError
from vision.settings import CameraConfig, CameraOptionError
from vision.sources.simulated import picamera2 as simulated

pytestmark = pytest.mark.timeout(30)


class FakeProbe(DeviceProbe):
    """Pretends some device nodes exist; real files (tmp_path) go to the OS."""

    def __init__(self, devices: Mapping[str, int | None] | None = None) -> None:
        # device path -> errno its open raises (None: opens fine)
        self.devices = dict(devices or {})
        self.serial_errno: int | None = None
        self.holding: list[str] = []
        self.i2c: dict[tuple[int, int, tuple[int, int] | None], bool | int] = {}
        self.modules: set[str] = {"lgpio", "picamera2"}
        self.calls: list[str] = []
        # what open_camera answers: a delivery, or the CameraError it raises
        self.camera: dict[str, Any] | Exception = {
            "camera": "/dev/video0 (USB Camera)",
            "size": (1280, 960),
            "fps": 30.0,
            "format": "MJPG",
            "controls": {},
        }

    def stat(self, path: str) -> os.stat_result:
        if path in self.devices:
            return os.stat_result((stat.S_IFCHR | 0o660, 0, 0, 1, 0, 0, 0, 0, 0, 0))
        if path.startswith("/dev/"):
            raise FileNotFoundError(errno.ENOENT, "No such file or directory", path)
        return os.stat(path)

    def open_rw(self, path: str) -> None:
        self.calls.append(f"open {path}")
        code = self.devices.get(path)
        if code is not None:
            raise OSError(code, os.strerror(code), path)

    def glob(self, pattern: str) -> list[str]:
        fake = [d for d in self.devices if fnmatch.fnmatch(d, pattern)]
        return sorted(fake) if pattern.startswith("/dev/") else super().glob(pattern)

    def serial_exclusive(self, port: str, baud: int) -> None:
        self.calls.append(f"serial {port} {baud}")
        if self.serial_errno is not None:
            raise OSError(self.serial_errno, os.strerror(self.serial_errno))

    def holders(self, path: str) -> list[str]:
        return list(self.holding)

    def i2c_answers(self, bus: int, address: int, mux: tuple[int, int] | None = None) -> bool:
        self.calls.append(f"i2c {bus} 0x{address:02X} {mux}")
        answer = self.i2c.get((bus, address, mux), False)
        if isinstance(answer, bool):
            return answer
        raise OSError(answer, os.strerror(answer))

    def module_available(self, name: str) -> bool:
        return name in self.modules

    def open_camera(self, config: CameraConfig) -> dict[str, Any]:
        self.calls.append(f"camera {config.kind} {config.device}")
        if isinstance(self.camera, Exception):
            raise self.camera
        return self.camera


def hardware_config(tmp_path: Path, **sections: Any) -> Config:
    data: dict[str, Any] = {"table": {"journal": str(tmp_path / "j.sqlite")}}
    data.update(sections)
    return parse_config(data, "cfg.toml", tmp_path)


def texts(cfg: Config, probe: DeviceProbe) -> list[str]:
    return [str(p) for p in check_devices(cfg, probe)]


ALL_THERE = {
    "/dev/video0": None,
    "/dev/toptable-board": None,
    "/dev/i2c-1": None,
    "/dev/gpiochip0": None,
}


@pytest.fixture
def probe() -> FakeProbe:
    p = FakeProbe(ALL_THERE)
    p.i2c[(1, 0x3C, None)] = True
    return p


def test_all_present_gives_no_problem(tmp_path: Path, probe: FakeProbe) -> None:
    cfg = hardware_config(tmp_path, displays={"screen": [{"role": "turn"}]})
    assert texts(cfg, probe) == []
    assert probe.calls == [
        "open /dev/video0",
        "camera v4l2 /dev/video0",
        "serial /dev/toptable-board 115200",
        "open /dev/i2c-1",
        "i2c 1 0x3C None",
        "open /dev/gpiochip0",
    ]


def test_simulated_setup_touches_no_device(tmp_path: Path) -> None:
    probe = FakeProbe()
    cfg = hardware_config(
        tmp_path,
        camera={"source": "synthetic"},
        board={"backend": "simulated"},
        controls={"backend": "mock"},
        displays={"screen": [{"role": "turn", "driver": "dummy"}]},
    )
    assert texts(cfg, probe) == []
    assert probe.calls == []


def test_camera_index_that_does_not_exist(tmp_path: Path, probe: FakeProbe) -> None:
    cfg = hardware_config(tmp_path, camera={"device": 3})
    assert texts(cfg, probe) == [
        "cfg.toml: Option 'device' in section 'camera' names /dev/video3, which does not exist; "
        "cameras present: /dev/video0 (plug the camera in or change the device)"
    ]


def test_camera_without_permission_names_the_group(tmp_path: Path, probe: FakeProbe) -> None:
    probe.devices["/dev/video0"] = errno.EACCES
    (msg,) = texts(hardware_config(tmp_path), probe)
    assert (
        "Option 'device' in section 'camera' names /dev/video0, which this user may not open" in msg
    )
    assert "'video' group" in msg


def test_camera_file_and_folder_sources(tmp_path: Path, probe: FakeProbe) -> None:
    frames = tmp_path / "frames"
    frames.mkdir()
    cfg = hardware_config(tmp_path, camera={"source": "folder", "path": "frames"})
    assert texts(cfg, probe) == [
        f"cfg.toml: Option 'path' in section 'camera' names {frames}, which holds no images "
        "(.jpg, .jpeg, .png, .bmp, .webp, .tif, .tiff)"
    ]
    (frames / "a.heic").write_bytes(b"")  # a photo of a format the folder source skips
    assert len(texts(cfg, probe)) == 1
    (frames / "IMG_0001.JPG").write_bytes(b"")  # a phone's name: read in any case
    assert texts(cfg, probe) == []
    cfg = hardware_config(tmp_path, camera={"source": "file", "path": "none.mp4", "model": "m.npz"})
    assert texts(cfg, probe) == [
        f"cfg.toml: Option 'path' in section 'camera' names {tmp_path / 'none.mp4'}, which is not "
        "a video file",
        f"cfg.toml: Option 'model' in section 'camera' names {tmp_path / 'm.npz'}, which does not "
        "exist",
    ]
    (tmp_path / "m.npz").mkdir()  # review 102: a folder was said "not to exist"
    assert texts(cfg, probe)[1] == (
        f"cfg.toml: Option 'model' in section 'camera' names {tmp_path / 'm.npz'}, which is a "
        "folder: name the model's .npz file"
    )
    (tmp_path / "m.npz").rmdir()
    (tmp_path / "m.npz").write_bytes(b"garbage, not a model")  # review 95: checked only to exist
    (said,) = texts(cfg, probe)[1:]
    assert said.startswith(
        f"cfg.toml: Option 'model' in section 'camera' names {tmp_path / 'm.npz'}, which the "
        "reader cannot load: "
    )


def test_a_journal_under_a_file_is_refused(tmp_path: Path, probe: FakeProbe) -> None:
    """Review 95: journal = "/etc/passwd/j.sqlite" passed; run then failed naming neither the
    config nor the option."""
    (tmp_path / "a-file").write_text("", encoding="utf-8")
    cfg = hardware_config(tmp_path, table={"journal": "a-file/games/j.sqlite"})
    assert texts(cfg, probe) == [
        f"cfg.toml: Option 'journal' in section 'table' is in {tmp_path / 'a-file' / 'games'}, "
        f"but {tmp_path / 'a-file'} is a file, so no folder can be made there: name a path in a "
        "folder"
    ]


def test_the_camera_is_opened_and_what_it_delivers_is_noted(
    tmp_path: Path, probe: FakeProbe
) -> None:
    notes: list[str] = []
    assert check_devices(hardware_config(tmp_path), probe, notes) == ()
    assert notes == ["camera /dev/video0 (USB Camera) delivers 1280x960 MJPG at 30.0 fps"]
    assert isinstance(probe.camera, dict)
    probe.camera = {**probe.camera, "fps": 15.0, "controls": {"exposure_us": 10000.0}}
    notes.clear()
    check_devices(hardware_config(tmp_path), probe, notes)
    assert notes == [
        "camera /dev/video0 (USB Camera) delivers 1280x960 MJPG at 15.0 fps (asked 30 fps: the "
        "camera, its format or the light limits it); exposure_us 10000"
    ]


def test_a_camera_that_cannot_do_an_option_names_it(tmp_path: Path, probe: FakeProbe) -> None:
    probe.camera = CameraOptionError(
        "width",
        "/dev/video0 (USB Camera)",
        "is 1600 (1600x1200 asked), a size /dev/video0 (USB Camera) does not have: it gives "
        "1280x960; its MJPG sizes: 640x480, 1280x960",
    )
    assert texts(hardware_config(tmp_path), probe) == [
        "cfg.toml: Option 'width' in section 'camera' is 1600 (1600x1200 asked), a size "
        "/dev/video0 (USB Camera) does not have: it gives 1280x960; its MJPG sizes: 640x480, "
        "1280x960"
    ]


def test_a_camera_that_delivers_nothing(tmp_path: Path, probe: FakeProbe) -> None:
    probe.camera = CameraError(
        "/dev/video0 (USB Camera): opened but gave no frame (expected 1280x960 MJPG at 30 fps)"
    )
    assert texts(hardware_config(tmp_path), probe) == [
        "cfg.toml: Option 'device' in section 'camera' is not usable: /dev/video0 (USB Camera): "
        "opened but gave no frame (expected 1280x960 MJPG at 30 fps)"
    ]


def test_a_camera_device_with_a_problem_is_not_opened(tmp_path: Path, probe: FakeProbe) -> None:
    probe.devices["/dev/video0"] = errno.EACCES
    texts(hardware_config(tmp_path), probe)
    assert not any(call.startswith("camera ") for call in probe.calls)


def test_picamera2_missing_names_the_apt_package(tmp_path: Path, probe: FakeProbe) -> None:
    probe.modules.discard("picamera2")
    cfg = hardware_config(tmp_path, camera={"source": "picamera2"})
    assert texts(cfg, probe) == [
        "cfg.toml: Option 'source' in section 'camera' is 'picamera2', but the picamera2 package "
        "is not installed: sudo apt install python3-picamera2 (and make the venv with "
        "--system-site-packages)"
    ]
    probe.modules.add("picamera2")
    assert texts(cfg, probe) == []
    assert "camera picamera2 /dev/video0" in probe.calls


def test_real_probe_opens_a_picamera2_camera(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """DeviceProbe against the simulated picamera2: it opens, measures, closes."""
    monkeypatch.setitem(sys.modules, "picamera2", simulated)
    monkeypatch.setattr(simulated, "CAMERAS", [simulated.CAMERA_MODULE_3])
    try:
        cfg = hardware_config(
            tmp_path,
            camera={"source": "picamera2", "width": 640, "height": 480, "gain": 2.0},
            board={"backend": "simulated"},
            controls={"backend": "mock"},
        )
        notes: list[str] = []
        assert check_devices(cfg, DeviceProbe(), notes) == ()
        (note,) = notes
        assert note.startswith(
            "camera picamera2 camera 0 (imx708) delivers 640x480 RGB888 (B, G, R bytes) at "
        )
        assert note.endswith("; gain 2")
        cfg = hardware_config(
            tmp_path,
            camera={"source": "picamera2", "lens_position": 20.0},
            board={"backend": "simulated"},
            controls={"backend": "mock"},
        )
        assert texts(cfg, DeviceProbe()) == [
            "cfg.toml: Option 'lens_position' in section 'camera' is 20, outside the 0..15 "
            "picamera2 camera 0 (imx708) takes for LensPosition"
        ]
    finally:
        assert not simulated._busy, "the probe left the camera open"


def test_missing_board_port_points_at_cable_and_udev_rule(tmp_path: Path) -> None:
    probe = FakeProbe({"/dev/ttyACM0": None, "/dev/gpiochip0": None, "/dev/video0": None})
    (msg,) = texts(hardware_config(tmp_path), probe)
    assert msg.startswith("cfg.toml: Option 'port' in section 'board' names /dev/toptable-board")
    assert "udev rule installed (systemd/99-toptable-board.rules)" in msg
    assert msg.endswith("serial ports present: /dev/ttyACM0")


def test_board_port_owned_by_another_program(tmp_path: Path, probe: FakeProbe) -> None:
    probe.serial_errno = errno.EBUSY
    probe.holding = ["pid 812 (minicom)"]
    (msg,) = texts(hardware_config(tmp_path), probe)
    assert msg == (
        "cfg.toml: Option 'port' in section 'board' names /dev/toptable-board, which another "
        "program owns (pid 812 (minicom)): close it (a serial terminal, ModemManager, or a "
        "toptable already running) and try again"
    )


def test_board_port_without_permission_names_dialout(tmp_path: Path, probe: FakeProbe) -> None:
    probe.serial_errno = errno.EACCES
    (msg,) = texts(hardware_config(tmp_path), probe)
    assert "'dialout' group" in msg


def test_board_layout_problems_are_included(tmp_path: Path, probe: FakeProbe) -> None:
    layout = tmp_path / "board.toml"
    layout.write_text("name = 3\n")
    found = texts(hardware_config(tmp_path, board={"layout": "board.toml"}), probe)
    assert found and all(str(layout) in f for f in found)


def test_a_board_mapping_that_names_a_folder_is_a_problem(tmp_path: Path, probe: FakeProbe) -> None:
    (tmp_path / "maps").mkdir()
    cfg = hardware_config(tmp_path, board={"backend": "simulated", "mapping": "maps"})
    assert texts(cfg, probe) == [
        f"cfg.toml: Option 'mapping' in section 'board' names {tmp_path / 'maps'}, which is a "
        "folder: name the file"
    ]


def test_i2c_bus_missing_says_how_to_enable_it(tmp_path: Path, probe: FakeProbe) -> None:
    del probe.devices["/dev/i2c-1"]
    probe.devices["/dev/i2c-20"] = None
    cfg = hardware_config(
        tmp_path, displays={"screen": [{"role": "turn"}, {"role": "combat", "address": 0x3D}]}
    )
    (msg,) = texts(cfg, probe)  # reported once, for the first screen on that bus
    assert msg.startswith(
        "cfg.toml: Option 'bus' in section 'displays.screen[1]' names /dev/i2c-1, which does not "
        "exist: enable I2C (dtparam=i2c_arm=on"
    )
    assert msg.endswith("buses present: /dev/i2c-20")


def test_i2c_bus_permission(tmp_path: Path, probe: FakeProbe) -> None:
    probe.devices["/dev/i2c-1"] = errno.EACCES
    (msg,) = texts(hardware_config(tmp_path, displays={"screen": [{"role": "turn"}]}), probe)
    assert "/dev/i2c-1, which this user may not open" in msg and "'i2c' group" in msg


def test_screen_not_answering_at_its_address(tmp_path: Path, probe: FakeProbe) -> None:
    cfg = hardware_config(
        tmp_path, displays={"screen": [{"role": "turn"}, {"role": "combat", "address": 0x3D}]}
    )
    assert texts(cfg, probe) == [
        "cfg.toml: Option 'address' in section 'displays.screen[2]' is 0x3D, where no screen "
        "answers on /dev/i2c-1: check the wiring (SDA, SCL, 3.3 V, GND) and the address the "
        "module is set to (0x3C or 0x3D)"
    ]


def test_screens_behind_a_mux(tmp_path: Path, probe: FakeProbe) -> None:
    screens = [
        {"role": "turn", "mux_address": 0x71, "mux_channel": 0},
        {"role": "combat", "mux_address": 0x71, "mux_channel": 5},
    ]
    cfg = hardware_config(tmp_path, displays={"screen": screens})
    (msg1, _msg2) = texts(cfg, probe)
    assert "Option 'mux_address' in section 'displays.screen[1]' is 0x71, where no TCA9548A" in msg1
    probe.i2c[(1, 0x71, None)] = True
    probe.i2c[(1, 0x3C, (0x71, 0))] = True
    (msg,) = texts(cfg, probe)
    assert msg.startswith(
        "cfg.toml: Option 'address' in section 'displays.screen[2]' is 0x3C, where no screen "
        "answers on /dev/i2c-1 behind the TCA9548A at 0x71 channel 5"
    )


def test_kernel_driver_holding_the_address(tmp_path: Path, probe: FakeProbe) -> None:
    probe.i2c[(1, 0x3C, None)] = errno.EBUSY
    (msg,) = texts(hardware_config(tmp_path, displays={"screen": [{"role": "turn"}]}), probe)
    assert "which a kernel driver holds" in msg and "dtoverlay=ssd1306" in msg


def test_spi_screen_needs_spidev(tmp_path: Path, probe: FakeProbe) -> None:
    cfg = hardware_config(tmp_path, displays={"screen": [{"role": "turn", "interface": "spi"}]})
    (msg,) = texts(cfg, probe)
    assert "names /dev/spidev0.0, which does not exist: enable SPI (dtparam=spi=on" in msg
    probe.devices["/dev/spidev0.0"] = None
    assert texts(cfg, probe) == []


def test_gpio_on_a_machine_without_gpio_chip(tmp_path: Path, probe: FakeProbe) -> None:
    del probe.devices["/dev/gpiochip0"]
    (msg,) = texts(hardware_config(tmp_path), probe)
    assert "Option 'backend' in section 'controls' is 'gpiozero'" in msg
    assert "use backend = 'mock'" in msg


def test_gpio_without_a_pin_library(tmp_path: Path, probe: FakeProbe) -> None:
    probe.modules = set()
    probe.devices["/dev/gpiochip0"] = errno.EACCES
    found = texts(hardware_config(tmp_path), probe)
    assert len(found) == 2
    assert "'gpio' group" in found[0]
    assert "toptable[pi]" in found[1]


def test_journal_folder_that_cannot_be_written(tmp_path: Path, probe: FakeProbe) -> None:
    class ReadOnly(FakeProbe):
        def writable_dir(self, path: str) -> bool:
            return False

    ro = ReadOnly(ALL_THERE)
    cfg = hardware_config(tmp_path, table={"journal": str(tmp_path / "new" / "j.sqlite")})
    (msg,) = texts(cfg, ro)
    assert msg.startswith(
        f"cfg.toml: Option 'journal' in section 'table' is in {tmp_path / 'new'} (which the "
        f"daemon would create in {tmp_path}), where this user cannot create a file"
    )
    # A folder that does not exist yet but can be made is fine.
    assert texts(cfg, probe) == []


# --- the real OS probe ------------------------------------------------------


def test_real_probe_opens_a_free_pty_exclusively(tmp_path: Path, pty_port: str) -> None:
    cfg = hardware_config(
        tmp_path,
        board={"port": pty_port},
        camera={"source": "synthetic"},
        controls={"backend": "mock"},
    )
    assert texts(cfg, DeviceProbe()) == []


def test_real_probe_sees_a_pty_another_program_owns(tmp_path: Path, pty_port: str) -> None:
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import fcntl, os, sys, time\n"
            "fd = os.open(sys.argv[1], os.O_RDWR | os.O_NOCTTY)\n"
            "fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)\n"
            "print('locked', flush=True)\n"
            "time.sleep(20)\n",
            pty_port,
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "locked"
        cfg = hardware_config(
            tmp_path,
            board={"port": pty_port},
            camera={"source": "synthetic"},
            controls={"backend": "mock"},
        )
        (msg,) = texts(cfg, DeviceProbe())
        assert f"names {pty_port}, which another program owns" in msg
        assert f"pid {holder.pid} (python" in msg
    finally:
        holder.kill()
        holder.wait()


def test_real_probe_flock_in_this_process_is_seen_too(tmp_path: Path, pty_port: str) -> None:
    fd = os.open(pty_port, os.O_RDWR | os.O_NOCTTY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(OSError) as info:
            DeviceProbe().serial_exclusive(pty_port, 115200)
        assert info.value.errno == errno.EBUSY
    finally:
        os.close(fd)


def test_real_probe_opens_a_character_device_and_misses_an_absent_bus(tmp_path: Path) -> None:
    cfg = hardware_config(
        tmp_path,
        camera={"device": "/dev/null"},
        board={"backend": "simulated"},
        controls={"backend": "mock"},
    )
    # /dev/null is a character device that opens, but no camera: said in one line
    assert texts(cfg, DeviceProbe()) == [
        "cfg.toml: Option 'device' in section 'camera' is not usable: /dev/null: cannot open it "
        "as a V4L2 camera (busy, or not a capture node: v4l2-ctl --list-devices lists them)"
    ]
    with pytest.raises(FileNotFoundError):
        DeviceProbe().i2c_answers(99, 0x3C)


def test_events_files_are_checked_as_the_publisher_loads_them(
    tmp_path: Path, probe: FakeProbe
) -> None:
    garbage = tmp_path / "ca.pem"
    garbage.write_bytes(b"\x00\x01 not a certificate")
    events = {"broker": "mqtts://host:8883", "table_id": "t1", "username": "u",
              "password_file": str(tmp_path / "nope"), "ca_file": str(garbage)}  # fmt: skip
    cfg = hardware_config(tmp_path, events=events, displays={"screen": [{"role": "turn"}]})
    found = [t for t in texts(cfg, probe) if "section 'events'" in t]
    assert found == [
        f"cfg.toml: Option 'password_file' in section 'events' names {tmp_path / 'nope'}: "
        "cannot read the password: No such file or directory",
        f"cfg.toml: Option 'ca_file' in section 'events' names {garbage}: cannot use it as "
        f"the broker's CA: {found[1].split('CA: ', 1)[1]}",
    ]
    assert "CERTIFICATE" in found[1] or "PEM" in found[1]


def test_an_empty_password_file_is_a_problem(tmp_path: Path, probe: FakeProbe) -> None:
    (tmp_path / "pw").write_text("\n", encoding="utf-8")
    events = {"broker": "mqtt://host:1883", "table_id": "t1", "username": "u",
              "password_file": "pw"}  # fmt: skip
    cfg = hardware_config(tmp_path, events=events, displays={"screen": [{"role": "turn"}]})
    assert texts(cfg, probe) == [
        f"cfg.toml: Option 'password_file' in section 'events' names {tmp_path / 'pw'}: "
        "holds no password: its first line is blank (expected the password alone, on one line)"
    ]


def test_a_journal_that_names_a_folder_is_a_problem(tmp_path: Path, probe: FakeProbe) -> None:
    cfg = parse_config({"table": {"journal": str(tmp_path)}}, "cfg.toml", tmp_path)
    assert (
        f"cfg.toml: Option 'journal' in section 'table' names {tmp_path}, which is a folder: "
        "name the file"
    ) in texts(cfg, probe)


@pytest.mark.parametrize(("section", "option"), [("table", "journal"), ("board", "port")])
def test_a_path_with_a_nul_character_is_refused(tmp_path: Path, section: str, option: str) -> None:
    with pytest.raises(
        DataError, match=rf"Option '{option}' in section '{section}' must not hold a NUL"
    ):
        parse_config({section: {option: "/dev/tty\u0000x"}}, "cfg.toml", tmp_path)


def test_a_journal_in_a_folder_this_user_cannot_search_is_no_traceback(tmp_path: Path) -> None:
    """held_game_problem says nothing is raised: Path.is_file() raised PermissionError for a
    journal in a folder the user may not search (the device checks say so)."""
    closed = tmp_path / "closed"
    closed.mkdir()
    cfg = parse_config({"table": {"journal": str(closed / "j.sqlite")}}, "cfg.toml", tmp_path)
    closed.chmod(0)
    try:
        code, err = as_nobody(lambda: held_game_problem(cfg))
    finally:
        closed.chmod(0o700)
    assert (code, err) == (0, "")


def test_a_journal_that_is_no_journal_is_a_problem(tmp_path: Path, probe: FakeProbe) -> None:
    # run refuses it (not a journal); check said OK
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes, not a game\n", encoding="utf-8")
    cfg = parse_config({"table": {"journal": str(notes)}}, "cfg.toml", tmp_path)
    assert (
        f"cfg.toml: Option 'journal' in section 'table' names {notes}, which is not a journal "
        "(file is not a database): the daemon would refuse it"
    ) in texts(cfg, probe)
    assert notes.read_text(encoding="utf-8") == "my notes, not a game\n"


def test_an_emulated_screen_whose_output_is_a_folder_is_a_problem(tmp_path: Path) -> None:
    # luma's emulator writes its animation there when the daemon exits: IsADirectoryError
    screen = {"role": "turn", "driver": "emulator", "output": str(tmp_path)}
    cfg = hardware_config(tmp_path, displays={"screen": [screen]}, camera={"source": "synthetic"},
                          board={"backend": "simulated"}, controls={"backend": "mock"})  # fmt: skip
    assert texts(cfg, FakeProbe()) == [
        f"cfg.toml: Option 'output' in section 'displays.screen[1]' names {tmp_path}, which is "
        "a folder: name the file"
    ]


def test_a_password_file_every_user_reads_is_warned_of(tmp_path: Path, probe: FakeProbe) -> None:
    """``echo PW | sudo tee FILE`` leaves 0644: a guest account on the club's Pi read the
    password that publishes as the table (review 112). A warning, not a problem."""
    pw = tmp_path / "pw"
    pw.write_text("secret\n", encoding="utf-8")
    events = {"broker": "mqtt://host:1883", "table_id": "t1", "username": "t1",
              "password_file": "pw"}  # fmt: skip
    cfg = hardware_config(tmp_path, events=events, displays={"screen": [{"role": "turn"}]})
    for mode, said in ((0o644, True), (0o640, False)):
        pw.chmod(mode)
        notes: list[str] = []
        assert not [t for t in texts(cfg, probe) if "section 'events'" in t]
        check_devices(cfg, probe, notes)
        warned = [n for n in notes if "password_file" in n]
        assert warned == ([
            f"warning: [events] password_file {pw} can be read by every user of this machine "
            f"(mode 0644): sudo chgrp toptable {pw} && sudo chmod 0640 {pw}"
        ] if said else [])  # fmt: skip
