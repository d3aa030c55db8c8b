"""Every third-party import in the shipped code is declared in pyproject.toml.

The shipped packages (controller, vision, hardware, firmware) are read with
``ast``, every absolute import is collected (module level, in functions, behind
``try``), the standard library and the project's own packages are set aside, and
each remaining import name is mapped to the distribution that provides it:
``importlib.metadata.packages_distributions()`` for what is installed here, and
:data:`NOT_INSTALLED_HERE` for what only exists on a Pi or a microcontroller.
The distribution must be in ``[project] dependencies`` or a user-facing extra
(``dev`` does not count: the daemon never has it).
"""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from collections.abc import Iterable, Mapping
from functools import cache
from importlib.metadata import packages_distributions, version
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

from tests.paths import REPO

SHIPPED = ("controller", "vision", "hardware", "firmware")
FIRST_PARTY = {*SHIPPED, "tests", "__future__"}

# Import names -> the distributions that may provide them, for what is not (or
# cannot be) installed on a development machine.
NOT_INSTALLED_HERE: dict[str, tuple[str, ...]] = {
    "lgpio": ("lgpio",),  # the pi and spi extras (apt: python3-lgpio)
    "spidev": ("spidev",),  # the spi extra (apt: python3-spidev)
    "RPi": ("rpi-lgpio", "RPi.GPIO"),  # the spi extra: DC/RESET pins of SPI screens
    "mpremote": ("mpremote",),  # the firmware extra
}
# Provided by apt only (no pip requirement on purpose: see pyproject.toml).
APT_ONLY: dict[str, str] = {
    "picamera2": "python3-picamera2",
    "libcamera": "python3-libcamera",
}
# MicroPython's built-in modules: allowed in firmware/ only (the board runs it).
MICROPYTHON = {"machine", "micropython", "rp2", "utime", "ustruct", "uos", "usys"}
# Namespace packages: several distributions share the top-level name, so the
# distribution is told by the first two components.
NAMESPACES = {"luma"}
# Imports whose pyproject line is still to be handed to the lead by their
# package's owner. Each entry must name a distribution that is NOT declared yet
# (test_pending_entries_are_still_pending fails once it is: then delete it here).


def normalise(name: str) -> str:
    """PEP 503 name: case and runs of ``-_.`` do not matter."""
    return re.sub(r"[-_.]+", "-", name).lower()


@cache
def pyproject() -> dict[str, object]:
    return tomllib.loads((REPO / "pyproject.toml").read_text())


def requirements(include_dev: bool = False) -> list[Requirement]:
    project = pyproject()["project"]
    assert isinstance(project, dict)
    reqs = [Requirement(r) for r in project["dependencies"]]
    for extra, items in project.get("optional-dependencies", {}).items():
        if extra != "dev" or include_dev:
            reqs += [Requirement(r) for r in items]
    return reqs


def declared() -> set[str]:
    return {normalise(r.name) for r in requirements()}


def imported_names(root: Path) -> dict[str, set[str]]:
    """Import name (top level; two levels for a namespace package) -> the files importing it."""
    found: dict[str, set[str]] = {}
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            modules: list[str] = []
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                modules = [node.module]
                if node.module in NAMESPACES:
                    modules = [f"{node.module}.{alias.name}" for alias in node.names]
            for module in modules:
                parts = module.split(".")
                name = ".".join(parts[:2]) if parts[0] in NAMESPACES else parts[0]
                found.setdefault(name, set()).add(str(path.relative_to(root.parent)))
    return found


def distributions_for(name: str, installed: Mapping[str, list[str]]) -> tuple[str, ...]:
    """The distributions that provide import ``name``; () when unknown."""
    if name in NOT_INSTALLED_HERE:
        return NOT_INSTALLED_HERE[name]
    if name.split(".")[0] in NAMESPACES:
        return (name,)  # luma.oled is the distribution luma.oled
    return tuple(installed.get(name, ()))


def undeclared_imports(
    roots: Iterable[Path], declared_names: set[str], installed: Mapping[str, list[str]]
) -> list[str]:
    """One line per import whose distribution is not declared (empty: all is well)."""
    problems: list[str] = []
    for root in roots:
        for name, files in sorted(imported_names(root).items()):
            top = name.split(".")[0]
            where = ", ".join(sorted(files)[:3])
            if top in FIRST_PARTY or top in sys.stdlib_module_names or top in APT_ONLY:
                continue
            if top in MICROPYTHON:
                if any(not f.startswith("firmware/") for f in files):
                    problems.append(f"{name}: MicroPython-only module outside firmware/ ({where})")
                continue
            dists = distributions_for(name, installed)
            if not dists:
                problems.append(
                    f"{name}: imported by {where}, but no installed distribution provides it "
                    "(install it, or add it to NOT_INSTALLED_HERE with its distribution)"
                )
            elif not any(normalise(d) in declared_names for d in dists):
                problems.append(
                    f"{name}: imported by {where}; declare {' or '.join(dists)} in pyproject.toml"
                )
    return problems


def test_every_third_party_import_is_declared() -> None:
    roots = [REPO / name for name in SHIPPED]
    assert undeclared_imports(roots, declared(), packages_distributions()) == []


def test_an_undeclared_import_is_caught(tmp_path: Path) -> None:
    pkg = tmp_path / "controller"
    pkg.mkdir()
    (pkg / "x.py").write_text(
        "import os\nimport numpy\nfrom luma.oled.device import ssd1306\n"
        "def f():\n    try:\n        import spidev\n    except ImportError:\n        pass\n"
        "import machine\n"
    )
    installed = {"numpy": ["numpy"]}
    problems = undeclared_imports([pkg], {"numpy"}, installed)
    assert problems == [
        "luma.oled: imported by controller/x.py; declare luma.oled in pyproject.toml",
        "machine: MicroPython-only module outside firmware/ (controller/x.py)",
        "spidev: imported by controller/x.py; declare spidev in pyproject.toml",
    ]
    assert undeclared_imports([pkg], {"numpy", "luma-oled", "spidev"}, installed) == [
        "machine: MicroPython-only module outside firmware/ (controller/x.py)"
    ]


# ----------------------------------------------------------------- the Pi's pins
def _requirement(name: str) -> Requirement:
    (req,) = [r for r in requirements() if normalise(r.name) == normalise(name) and not r.extras]
    return req


def test_numpy_and_opencv_stay_on_apt_picamera2s_numpy_1() -> None:
    numpy = _requirement("numpy")
    assert Version("1.24.2") in numpy.specifier  # Raspberry Pi OS bookworm's python3-numpy
    assert not numpy.specifier.contains("2.0.0")
    opencv = _requirement("opencv-python-headless")
    assert Version("4.11.0.86") in opencv.specifier  # the last release built for numpy 1.x
    assert not opencv.specifier.contains("4.12.0.88")  # requires numpy>=2


def test_apt_versions_satisfy_the_floors() -> None:
    """On a Pi, pip keeps apt's packages (seen through --system-site-packages) when they fit."""
    apt = {  # Raspberry Pi OS bookworm (Debian 12) versions
        "numpy": "1.24.2",
        "pillow": "9.4.0",
        "smbus2": "0.4.2",
        "pyserial": "3.5",
        "lgpio": "0.2.2.0",
        "spidev": "3.6",
    }
    reqs = {normalise(r.name): r for r in requirements()}
    for name, apt_version in apt.items():
        assert Version(apt_version) in reqs[name].specifier, (name, apt_version)


def test_every_extra_a_pi_needs_exists() -> None:
    extras = pyproject()["project"]["optional-dependencies"]  # type: ignore[index]
    assert {"pi", "spi", "firmware", "emulator", "dev"} <= set(extras)
    assert any(Requirement(r).name == "mpremote" for r in extras["firmware"])
    assert {normalise(Requirement(r).name) for r in extras["spi"]} >= {"spidev", "rpi-lgpio"}


@pytest.mark.parametrize("name", ["numpy", "opencv-python-headless"])
def test_this_environment_meets_the_pins(name: str) -> None:
    assert Version(version(name)) in _requirement(name).specifier, (
        f"{name} {version(name)} here: run .venv/bin/pip install -e '.[dev]'"
    )
