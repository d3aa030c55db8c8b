"""Which data folder a command reads: --data, else $TOPTABLE_DATA, else the demo set; a
variable that names nothing, or is set empty, is named in the refusal."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.core.errors import DataError
from controller.gamedata import DEMO_DIR, ENV_VAR, data_dir


def test_the_argument_then_the_variable_then_the_demo_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(ENV_VAR, raising=False)
    assert data_dir() == DEMO_DIR
    monkeypatch.setenv(ENV_VAR, str(tmp_path))
    assert data_dir() == tmp_path
    assert data_dir(DEMO_DIR) == DEMO_DIR


def test_a_variable_naming_no_folder_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "gone"))
    with pytest.raises(DataError) as info:
        data_dir()
    assert (
        str(info.value)
        == f"{tmp_path / 'gone'}: data directory not found (named by $TOPTABLE_DATA)"
    )
    with pytest.raises(DataError) as given:
        data_dir(tmp_path / "gone")
    assert str(given.value) == f"{tmp_path / 'gone'}: data directory not found"


@pytest.mark.parametrize("empty", ["", "  "])
def test_an_empty_variable_is_refused_not_read_as_this_folder(
    empty: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(ENV_VAR, empty)
    with pytest.raises(DataError, match=r"\$TOPTABLE_DATA: set but empty: name a data folder"):
        data_dir()
