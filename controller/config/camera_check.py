"""The ``[camera]`` device check: the camera is there, opens and delivers; or its files exist."""

from __future__ import annotations

from pathlib import Path

from controller.config.device_checker import DeviceChecker
from controller.core.errors import TopTableError
from vision.errors import CameraError
from vision.images import is_photo, suffix_list
from vision.reading.model import load_model
from vision.settings import CameraOptionError, CameraSource
from vision.sources.delivery import delivery_text
from vision.sources.picamera_package import MISSING as PICAMERA2_MISSING


def check_camera(chk: DeviceChecker) -> None:
    """``[camera]``: the device or files exist and the camera opens and delivers."""
    c = chk.cfg.camera
    if c.source is CameraSource.V4L2:
        path = c.device_path
        before = len(chk.problems)
        if not chk.device("camera", "device", path, "video", "the camera"):
            chk.add(
                "camera",
                "device",
                f"names {path}, which does not exist; cameras present: "
                f"{chk.present('/dev/video*')} (plug the camera in or change the device)",
            )
        if len(chk.problems) == before:
            _open_camera(chk, "device")
    elif c.source is CameraSource.PICAMERA2:
        if not chk.probe.module_available("picamera2"):
            chk.add("camera", "source", f"is 'picamera2', but {PICAMERA2_MISSING}")
        else:
            _open_camera(chk, "camera_num")
    elif c.source is CameraSource.FILE and c.path is not None:
        if not chk.is_file(c.path):
            chk.add("camera", "path", f"names {c.path}, which is not a video file")
    elif c.source is CameraSource.FOLDER and c.path is not None:
        if not chk.is_dir(c.path):
            chk.add("camera", "path", f"names {c.path}, which is not a folder")
        elif not any(is_photo(Path(p)) for p in chk.probe.glob(str(c.path / "*"))):
            # by suffix in any case, as the folder source reads them (a phone's IMG_0001.JPG)
            chk.add("camera", "path", f"names {c.path}, which holds no images ({suffix_list()})")
    if c.model is not None and not chk.is_file(c.model):
        what = (
            "is a folder: name the model's .npz file" if chk.is_dir(c.model) else "does not exist"
        )
        chk.add("camera", "model", f"names {c.model}, which {what}")
    elif c.model is not None and (why := _model_problem(c.model)) is not None:
        chk.add("camera", "model", f"names {c.model}, which the reader cannot load: {why}")


def _model_problem(path: Path) -> str | None:
    """Why the face model at ``path`` does not load as the daemon loads it (review 95: a
    file of garbage passed, then the daemon said so every 5 s); None when it loads."""
    try:
        load_model(path)
    except TopTableError as exc:
        text = str(exc)
        return text.removeprefix(f"{path}: ")
    return None


def _open_camera(chk: DeviceChecker, option: str) -> None:
    """Open the camera and note what it delivers, or the one-line reason it cannot."""
    config = chk.cfg.camera.source_config()
    try:
        info = chk.probe.open_camera(config)
    except CameraOptionError as exc:
        chk.add("camera", exc.option, exc.detail)
        return
    except CameraError as exc:
        chk.add("camera", option, f"is not usable: {exc}")
        return
    chk.notes.append(delivery_text(info, config))
