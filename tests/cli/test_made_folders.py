"""A folder a command makes that cannot be made is one line naming it (review 95: data init,
dice synth and simulate --tables --journals gave a traceback where the flag's own check of
the place passed, e.g. as root under /proc, or on a full disk)."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.core.errors import DataError
from controller.gamedata.datadir import init_data_dir
from controller.publish.errors import PublishError
from controller.publish.settings import Connection, parse_broker_url
from controller.publish.tables import TablesOptions, simulate_tables
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
