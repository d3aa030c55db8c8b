"""What a journal records of its game's making: the seed, the data set's fingerprint."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from controller.gamedata import DEMO_DIR
from controller.storage.origin import (
    ContradictionError,
    Origin,
    data_fingerprint,
    refuse_contradiction,
    refuse_other_data,
)


def _copy_of_demo(tmp_path: Path) -> Path:
    folder = tmp_path / "data"
    shutil.copytree(DEMO_DIR, folder)
    return folder


def test_the_fingerprint_follows_the_data_files_and_not_the_tables_config(tmp_path: Path) -> None:
    folder = _copy_of_demo(tmp_path)
    before = data_fingerprint(folder)
    assert before == data_fingerprint(DEMO_DIR)  # the content, not the folder's name
    (folder / "config.toml").write_text("# the table's own settings\n", encoding="utf-8")
    assert data_fingerprint(folder) == before
    cards = folder / "cards.toml"
    cards.write_text(cards.read_text(encoding="utf-8") + "\n# one more line\n", encoding="utf-8")
    assert data_fingerprint(folder) != before


def test_an_origin_round_trips_through_a_setup_and_an_old_setup_has_none() -> None:
    origin = Origin(7, "abc")
    assert Origin.from_setup({"mode": "tournament", **origin.to_setup()}) == origin
    assert Origin.from_setup({"mode": "tournament"}) == Origin(None, None)
    assert Origin.from_setup({"seed": True, "data_fingerprint": 3}) == Origin(None, None)


def test_a_contradiction_names_the_flag_and_both_values(tmp_path: Path) -> None:
    journal = tmp_path / "j.sqlite"
    refuse_contradiction(journal, "--seed", None, 3)  # not given: the journal's
    refuse_contradiction(journal, "--seed", 3, None)  # an old journal: nothing to contradict
    refuse_contradiction(journal, "--seed", 3, 3)
    with pytest.raises(ContradictionError) as caught:
        refuse_contradiction(journal, "--seed", 4, 3)
    message = str(caught.value)
    assert "\n" not in message
    assert str(journal) in message and "--seed 4" in message and "journal's 3" in message


def test_another_data_set_is_refused_naming_both_fingerprints(tmp_path: Path) -> None:
    folder = _copy_of_demo(tmp_path)
    kept = data_fingerprint(DEMO_DIR)
    refuse_other_data(tmp_path / "j.sqlite", "--data", folder, kept)  # the same data set
    (folder / "board.toml").write_text("# another board\n", encoding="utf-8")
    with pytest.raises(ContradictionError) as caught:
        refuse_other_data(tmp_path / "j.sqlite", "--data", folder, kept)
    message = str(caught.value)
    assert kept in message and data_fingerprint(folder) in message and str(folder) in message
