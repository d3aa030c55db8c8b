"""The installed picamera2 package (apt's ``python3-picamera2``): importing it, its
version, and whether it has every call :class:`~vision.sources.picamera.Picamera2Source`
makes, each failure one line naming the apt command that mends it."""

from __future__ import annotations

import importlib
import importlib.metadata
import inspect
from typing import Any

from vision.errors import CameraError

PACKAGE = "python3-picamera2"
"""The apt package that brings picamera2 and libcamera's Python bindings."""
INSTALL_HINT = f"sudo apt install {PACKAGE} (and make the venv with --system-site-packages)"
MISSING = f"the picamera2 package is not installed: {INSTALL_HINT}"
MIN_VERSION = "0.3.21"
"""The oldest picamera2 with every call the source makes (see :data:`NEEDED`)."""
NEEDED = (
    ("create_video_configuration", "sensor", "0.3.14"),
    ("wait", "timeout", "0.3.17"),
    ("cancel_all_and_flush", None, "0.3.21"),
)
"""(method, keyword or None, the picamera2 release that brought it), read in its releases'
``picamera2/picamera2.py``: a timeout on ``wait``, the queue flush after a timeout."""
UPGRADE = f"sudo apt update && sudo apt install --only-upgrade {PACKAGE}"


class PicameraMissingError(CameraError):
    """picamera2 cannot be imported; the message names the apt package."""


def load_picamera2() -> Any:
    """The ``picamera2`` module.

    Raises:
        PicameraMissingError: it is not installed (one line naming ``python3-picamera2``).
    """
    try:
        return importlib.import_module("picamera2")
    except ImportError:
        raise PicameraMissingError(f"picamera2: {MISSING}") from None


def picamera2_version(module: Any) -> str | None:
    """The installed picamera2's version (the simulation's ``VERSION``), None if unknown."""
    version = getattr(module, "VERSION", None)
    if isinstance(version, str):
        return version
    try:
        return importlib.metadata.version("picamera2")
    except importlib.metadata.PackageNotFoundError:
        return None


def check_api(module: Any) -> None:
    """Refuse a picamera2 without the calls the source makes with their arguments.

    Raises:
        CameraError: a call of :data:`NEEDED` is missing (picamera2 older than
            :data:`MIN_VERSION`); the message names the version found and the apt
            command that upgrades it.
    """
    cls = module.Picamera2
    missing = []
    for name, arg, _since in NEEDED:
        call = getattr(cls, name, None)
        if call is None or (arg is not None and arg not in inspect.signature(call).parameters):
            missing.append(f"{name}({arg + '=' if arg else ''})")
    if missing:
        found = picamera2_version(module) or "an older version"
        raise CameraError(
            f"picamera2: {found} is installed, which has no {' or '.join(missing)}; "
            f"toptable needs picamera2 {MIN_VERSION} or later: {UPGRADE}"
        )
