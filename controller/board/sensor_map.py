"""The mapping wizard: learn which hall sensor sits under which space, save it, load it checked.

The owner places a token on each space as prompted; the first sensor that becomes
occupied is that space's sensor. The map is saved as a small TOML file::

    board = "example-grid-7x6"
    [sensors]   # space = sensor
    0 = 12

and applied to a layout with :func:`apply_sensor_map`.
"""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.core.durable import replace_durably
from controller.core.errors import DataError, DataProblem, IllegalActionError
from controller.core.quoting import short_repr
from controller.core.tomlfile import read_toml
from controller.gamedata.board import MAX_SENSORS, MAX_SPACE_ID, BoardLayout


@dataclass(frozen=True)
class WizardStep:
    """What the wizard says after a sensor change: ``done`` True when a space was learned."""

    message: str
    done: bool = False


class MappingWizard:
    """Walks through the spaces of ``layout`` (in ``order``, default by id) learning sensors."""

    def __init__(
        self,
        layout: BoardLayout,
        order: Iterable[int] | None = None,
        known: Mapping[int, int] | None = None,
    ) -> None:
        """``known``: spaces mapped before (a mapping stopped part way), kept and not
        asked again.

        Raises:
        KeyError: ``order`` or ``known`` names a space the layout does not have.
        """
        self.layout = layout
        known = dict(known or {})
        every = list(order) if order is not None else sorted(layout.spaces)
        self.order = [space for space in every if space not in known]
        for space in [*self.order, *known]:
            layout.space(space)
        self._index = 0
        self._map: dict[int, int] = known
        self.rejected = 0

    @property
    def current(self) -> int | None:
        """The space to put a token on now, or None when every space is done."""
        return self.order[self._index] if self._index < len(self.order) else None

    def prompt(self) -> str:
        """What to show the owner."""
        space = self.current
        if space is None:
            return f"all {len(self._map)} spaces mapped"
        s = self.layout.space(space)
        label = f" '{s.name}'" if s.name else ""
        return f"[{self._index + 1}/{len(self.order)}] place a token on space {space}{label} ({s.colour})"

    def on_sensor(self, sensor: int, occupied: bool) -> WizardStep:
        """Feed a sensor change; a token arriving on a new sensor maps the current space."""
        space = self.current
        if space is None or not occupied:
            return WizardStep("")
        if not 0 <= sensor < MAX_SENSORS:
            self.rejected += 1
            return WizardStep(f"sensor {sensor} is out of range 0..{MAX_SENSORS - 1}; ignored")
        for other, used in self._map.items():
            if used == sensor:
                self.rejected += 1
                return WizardStep(
                    f"sensor {sensor} is already space {other}; lift that token and place one on space {space}"
                )
        self._map[space] = sensor
        self._index += 1
        return WizardStep(f"space {space} = sensor {sensor}", True)

    def skip(self) -> None:
        """Leave the current space without a sensor."""
        if self.current is not None:
            self._index += 1

    def back(self) -> None:
        """Forget the previous space's sensor and ask for it again.

        Raises:
            IllegalActionError: at the first space.
        """
        if self._index == 0:
            raise IllegalActionError("already at the first space")
        self._index -= 1
        self._map.pop(self.order[self._index], None)

    def mapping(self) -> dict[int, int]:
        """Space -> sensor, as learned so far."""
        return dict(self._map)

    def save(self, path: str | Path) -> Path:
        """Write the learned map (see the module doc for the format)."""
        return save_sensor_map(path, self.layout.name, self._map)


def partial_map_path(out: Path) -> Path:
    """Where ``board map`` keeps the spaces mapped so far when it stops part way (Ctrl-C,
    its timeout): beside ``out``, which stays the complete map the table reads."""
    return out.with_name(f"{out.name}.partial")


def sensor_map_text(board: str, mapping: Mapping[int, int]) -> str:
    """The text of a sensor map file (see the module doc for the format)."""
    lines = [
        "# Sensor map learned by `toptable board map`; space = sensor.",
        f'board = "{_toml_escape(board)}"',
        "",
        "[sensors]",
    ]
    lines += [f"{space} = {sensor}" for space, sensor in sorted(mapping.items())]
    return "\n".join(lines) + "\n"


def save_sensor_map(path: str | Path, board: str, mapping: Mapping[int, int]) -> Path:
    """Write a sensor map file (its folders made if missing); return its path.

    Raises:
        DataError: it cannot be written (the message names it and why).
    """
    path = Path(path)
    if path.is_symlink():  # the map the link leads to is the one replaced, not the link
        path = path.resolve()
    part = path.with_name(f".{path.name}.part")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        part.write_text(sensor_map_text(board, mapping), encoding="utf-8")
        if path.exists():
            shutil.copymode(path, part)  # as the map made before (the config's may be 0640)
        replace_durably(part, path)  # a map made before is replaced whole or not at all
    except OSError as exc:
        with contextlib.suppress(OSError):
            part.unlink(missing_ok=True)
        raise DataError.single(str(path), "", "", f"cannot write: {exc.strerror or exc}") from None
    return path


def parse_sensor_map(
    data: Mapping[str, Any], file: str, layout: BoardLayout | None = None
) -> dict[int, int]:
    """Validate a parsed sensor map; space -> sensor.

    Raises:
        DataError: every problem found, each naming the file, the entry and the field (a
            space id not written as plain digits, as ``05`` or ``1_0``, is one, and so is
            one over :data:`~controller.gamedata.board.MAX_SPACE_ID`, which no board has).
    """
    problems: list[DataProblem] = []

    def bad(entry: str, field: str, message: str) -> None:
        problems.append(DataProblem(file, entry, field, message))

    for key in data:
        if key not in ("board", "sensors"):
            bad("", key, "unknown key; expected board, sensors")
    board = data.get("board")
    if not isinstance(board, str):
        bad("", "board", f"expected the board's name as a string, got {short_repr(board)}")
    elif layout is not None and board != layout.name:
        bad(
            "",
            "board",
            f"this map is for board {short_repr(board)}, the layout is {short_repr(layout.name)}",
        )
    raw = data.get("sensors")
    if not isinstance(raw, dict):
        bad("", "sensors", "expected a [sensors] table of space = sensor")
        raise DataError(problems)
    out: dict[int, int] = {}
    used: dict[int, int] = {}
    for key, sensor in raw.items():
        entry = f"space {key}"
        if not (key.isascii() and key.isdigit()) or (key != "0" and key.startswith("0")):
            # int() also reads "1_0", "+3", " 4" or "05": a second key for a space, which
            # would silently replace that space's sensor
            bad(
                entry,
                "",
                f"expected a space id written as a whole number (0, 1, 2...), "
                f"got {short_repr(key)}",
            )
            continue
        # its length first: int() refuses 4,300 digits and more (ValueError)
        if len(key) > len(str(MAX_SPACE_ID)) or (space := int(key)) > MAX_SPACE_ID:
            bad(entry, "", f"expected a space id 0..{MAX_SPACE_ID}, got {short_repr(key)}")
            continue
        if layout is not None and space not in layout.spaces:
            bad(entry, "", f"board {short_repr(layout.name)} has no space {space}")
            continue
        if not isinstance(sensor, int) or isinstance(sensor, bool) or not 0 <= sensor < MAX_SENSORS:
            bad(
                entry,
                "sensor",
                f"expected a sensor index 0..{MAX_SENSORS - 1}, got {short_repr(sensor)}",
            )
            continue
        if sensor in used:
            bad(entry, "sensor", f"sensor {sensor} is already used by space {used[sensor]}")
            continue
        used[sensor] = space
        out[space] = sensor
    if problems:
        raise DataError(problems)
    return out


def load_sensor_map(path: str | Path, layout: BoardLayout | None = None) -> dict[int, int]:
    """Load and validate a sensor map file; space -> sensor.

    Raises:
        DataError: the file is missing, not TOML, or its content is invalid.
    """
    path = Path(path)
    data = read_toml(path)
    return parse_sensor_map(data, str(path), layout)


def apply_sensor_map(layout: BoardLayout, mapping: Mapping[int, int]) -> BoardLayout:
    """The layout with its sensors taken from ``mapping`` (spaces not in it: no sensor)."""
    return layout.with_sensors(mapping)


def _toml_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')
