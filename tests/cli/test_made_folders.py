"""A folder a command makes that cannot be made is one line naming it (review 95: data init,
dice synth and simulate --tables --journals gave a traceback where the flag's own check of
the place passed, e.g. as root under /proc, or on a full disk)."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.board.sensor_map import save_sensor_map
from controller.core.errors import DataError
from controller.gamedata.datadir import init_data_dir
from controller.publish.errors import PublishError
from controller.publish.settings import Connection, parse_broker_url
from controller.publish.tables import TablesOptions, simulate_tables
from vision.learning.report import _in_name
from vision.synth.scenes import write_dataset


@pytest.fixture
def blocked(tmp_path: Path) -> Path:
    """A path whose folder cannot be made: a file stands where its parent would be."""
    (tmp_path / "a-file").write_text("", encoding="utf-8")
    return tmp_path / "a-file" / "x"


def test_data_init(blocked: Path) -> None:
    with pytest.raises(DataError, match=rf"^{blocked}: cannot be made: "):
        init_data_dir(blocked)


def test_dice_synth(blocked: Path) -> None:
    with pytest.raises(DataError, match=rf"^{blocked}: cannot be written: "):
        write_dataset(blocked, images=1)


def test_simulated_tables_journals(blocked: Path) -> None:
    conn = Connection(parse_broker_url("mqtt://127.0.0.1:1"))
    with pytest.raises(PublishError, match=rf"^{blocked}: cannot be made: .* \(--journals\)$"):
        simulate_tables(conn, TablesOptions(tables=1, directory=blocked))


def test_dice_synth_on_a_full_disk_is_one_line(tmp_path: Path) -> None:
    """Review 98: a label file that could not be written gave a traceback (/dev/full stands
    for the full disk)."""
    root = write_dataset(tmp_path / "set", images=1)
    label = root / "labels" / "synth_0000.txt"
    label.unlink()
    label.symlink_to("/dev/full")
    with pytest.raises(DataError, match=rf"^{label}: cannot be written: No space left"):
        write_dataset(root, images=1)


def test_an_error_crops_name_holds_only_what_a_file_name_may() -> None:
    """Review 98: a face named with a "/" made the crop's path a folder that is not there,
    and dice eval --errors lost its whole report."""
    assert _in_name("a/b c") == "a_b_c"
    assert _in_name(None) == "none"
    assert _in_name("x" * 300) == "x" * 40


def test_a_sensor_map_behind_a_link_is_replaced_where_it_lies(tmp_path: Path) -> None:
    """Review 98: the map saved over a link replaced the link, and lost the map's mode."""
    real = tmp_path / "etc" / "sensors.toml"
    real.parent.mkdir()
    save_sensor_map(real, "b", {0: 1})
    real.chmod(0o640)
    link = tmp_path / "sensors.toml"
    link.symlink_to(real)
    save_sensor_map(link, "b", {0: 2})
    assert link.is_symlink() and "0 = 2" in real.read_text(encoding="utf-8")
    assert real.stat().st_mode & 0o777 == 0o640
