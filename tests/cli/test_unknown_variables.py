"""A variable named like toptable's that nothing reads is warned of (a mistyped
$TOPTABLE_DATA would otherwise play the demo data without a word)."""

from __future__ import annotations

import os
import subprocess
import sys

from controller.cli.main import unknown_variables
from tests.paths import REPO


def test_a_mistyped_variable_is_warned_of_with_the_nearest_name() -> None:
    env = {"TOPTABLE_DAT": "/srv/data", "TOPTABLE_DATA": "/srv/data", "PATH": "/bin"}
    assert unknown_variables(env) == [
        "toptable: warning: $TOPTABLE_DAT is set, but toptable reads no such variable "
        "(did you mean $TOPTABLE_DATA?)"
    ]
    assert unknown_variables({"TOPTABLE_XYZ": "1"}) == [
        "toptable: warning: $TOPTABLE_XYZ is set, but toptable reads no such variable"
    ]


def test_the_variables_toptable_and_its_scripts_read_are_not_warned_of() -> None:
    names = ["TOPTABLE_DATA", "TOPTABLE_PREFIX", "TOPTABLE_CONFIG_DIR", "TOPTABLE_UNIT_DIR"]
    names += ["TOPTABLE_RULES_DIR", "TOPTABLE_STATE_DIR", "TOPTABLEX", "MY_TOPTABLE_DAT"]
    assert unknown_variables(dict.fromkeys(names, "x")) == []


def test_the_installer_scripts_read_no_variable_the_list_lacks() -> None:
    scripts = REPO / "controller" / "system" / "service_files"
    read = set()
    for script in scripts.glob("*.sh"):
        text = script.read_text(encoding="utf-8")
        read |= {w.split(":-")[0] for w in text.split("${")[1:] if w.startswith("TOPTABLE_")}
    assert read and not unknown_variables(dict.fromkeys(read, "x"))


def test_the_command_line_prints_the_warning_and_goes_on() -> None:
    env = {**os.environ, "TOPTABLE_DAT": "/nowhere"}
    env.pop("TOPTABLE_DATA", None)
    done = subprocess.run(
        [sys.executable, "-m", "controller.cli.main", "--version"],
        capture_output=True, text=True, env=env, cwd=REPO, check=False, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0 and done.stdout.startswith("toptable ")
    assert "$TOPTABLE_DAT is set, but toptable reads no such variable" in done.stderr
