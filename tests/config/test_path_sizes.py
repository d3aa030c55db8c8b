"""A config's paths (journal, data_dir, password_file, ca_file) no file can have are refused
(controller/core/config_schema.py, ``path_in``): a file or folder name of more than 255 bytes
(Linux's NAME_MAX), or a whole path, after ``~`` and the config's folder are added, of 4,096
bytes or more (PATH_MAX counts the NUL that ends it). Bytes, not characters: UTF-8's."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.config import parse_config
from controller.core.errors import DataError

pytestmark = pytest.mark.timeout(30)


def _journal(written: str, base: Path) -> Path:
    cfg = parse_config({"table": {"journal": written}}, "cfg.toml", base)
    return cfg.table.journal


def _refused(written: str, base: Path) -> str:
    with pytest.raises(DataError) as err:
        _journal(written, base)
    return str(err.value)


def _path_of(size: int, start: str) -> str:
    """An absolute path of ``size`` bytes under ``start``, of names of 200 bytes and fewer."""
    path = start
    while len(path.encode()) + 1 + 200 < size:
        path += "/" + "y" * 200
    return path + "/" + "j" * (size - len(path.encode()) - 1)


@pytest.mark.parametrize(
    ("journal", "said"),
    [
        ("/tmp/" + "y" * 300 + "/j.sqlite", "names a file or folder 'yyy"),
        (
            "/tmp/" + "y/" * 2100 + "j.sqlite",
            "is a path of 4213 bytes; a path takes fewer than 4096",
        ),
    ],
)
def test_a_path_no_file_can_have_is_refused(tmp_path: Path, journal: str, said: str) -> None:
    """A name of more than 255 bytes: config check's look at the journal raised OSError
    (File name too long), a traceback; every use of such a path fails so."""
    with pytest.raises(DataError) as err:
        parse_config({"table": {"journal": journal}}, "cfg.toml", tmp_path)
    assert str(err.value).startswith(f"cfg.toml: Option 'journal' in section 'table' {said}")
    assert len(str(err.value)) < 300


@pytest.mark.parametrize("where", ["folder", "file"])
def test_a_name_of_255_bytes_is_taken_and_one_of_256_refused(tmp_path: Path, where: str) -> None:
    name = "é" * 127 + "a"  # 128 characters, 255 bytes
    assert len(name.encode()) == 255
    written = f"/srv/{name}/j.sqlite" if where == "folder" else f"/srv/{name}"
    assert _journal(written, tmp_path) == Path(written)
    longer = name + "b"
    written = f"/srv/{longer}/j.sqlite" if where == "folder" else f"/srv/{longer}"
    said = _refused(written, tmp_path)
    assert said.startswith("cfg.toml: Option 'journal' in section 'table' names a file or folder ")
    assert said.endswith(" of 256 bytes; a name takes at most 255"), said


def test_a_path_of_4095_bytes_is_taken_and_one_of_4096_refused(tmp_path: Path) -> None:
    written = _path_of(4095, "/srv")
    assert len(written.encode()) == 4095
    assert _journal(written, tmp_path) == Path(written)
    written = _path_of(4096, "/srv")
    assert _refused(written, tmp_path) == (
        "cfg.toml: Option 'journal' in section 'table' is a path of 4096 bytes; a path takes "
        "fewer than 4096"
    )


def test_a_relative_path_is_measured_in_the_configs_folder(tmp_path: Path) -> None:
    """Relative to the config's folder: that folder's bytes count too, as they do for the
    OS (and a multi-byte character counts its bytes)."""
    base = tmp_path / "é"
    whole = _path_of(4095, str(base))
    assert len(whole.encode()) == 4095
    written = whole[len(str(base)) + 1 :]
    assert not Path(written).is_absolute()
    assert _journal(written, base) == Path(whole)
    said = _refused(written + "j", base)
    assert said.endswith("is a path of 4096 bytes; a path takes fewer than 4096"), said


def test_a_tilde_naming_no_user_is_one_line_naming_the_option(tmp_path: Path) -> None:
    """Review 102: ``~toptabel/journal.sqlite`` (a typo, or ``~pi`` on a machine with no
    user pi): Python 3.11's expanduser raised RuntimeError, a traceback and exit 1, which
    restarted the service every few seconds."""
    said = _refused("~toptabel-nobody/journal.sqlite", tmp_path)
    assert "journal" in said
    assert "'~toptabel-nobody/journal.sqlite': ~ names no user 'toptabel-nobody' here" in said
