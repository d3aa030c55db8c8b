"""The vision package's exceptions; all derive from :class:`VisionError`.

Malformed datasets raise :class:`controller.core.errors.DataError` (every problem,
naming file, line and field), like every other data file of the project.
"""

from __future__ import annotations

from controller.core.errors import TopTableError


class VisionError(TopTableError):
    """Root of the errors the vision package raises on purpose."""


class ImageReadError(VisionError, OSError):
    """An image file is missing or cannot be decoded; the message names it."""


class ModelError(VisionError, ValueError):
    """A face model file is unreadable, of another format version or for another face set."""


class CameraError(VisionError, OSError):
    """A camera source cannot be opened (the device, file or folder is named)."""


class ConfigError(VisionError, ValueError):
    """A camera or reader setting is out of range or unknown; the message names it."""


class DatasetWriteError(VisionError, OSError):
    """A labelled set's photo or labels cannot be written (the file is named)."""
