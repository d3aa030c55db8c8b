"""Table ids: the whole text must be an id (it becomes an MQTT topic level and a client id)."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.core.errors import DataError
from controller.publish.settings import TableIdError, check_table_id, is_table_id, read_events


@pytest.mark.parametrize("good", ["table-9", "a", "T_1", "x" * 32])
def test_good_ids(good: str) -> None:
    assert check_table_id(good) == good and is_table_id(good)


@pytest.mark.parametrize(
    "bad", ["table-9\n", "\ntable-9", "table 9", "a/b", "a+", "#", "", "x" * 33, "tablé"]
)
def test_bad_ids_are_refused_whole(bad: str) -> None:
    assert not is_table_id(bad)
    with pytest.raises(TableIdError):
        check_table_id(bad)


def test_a_config_with_a_newline_in_its_table_id_names_the_option() -> None:
    with pytest.raises(DataError) as err:
        read_events({"events": {"broker": "mqtt://h", "table_id": "table-9\n"}}, "config.toml")
    assert "table_id" in str(err.value) and "'table-9\\n'" in str(err.value)


def test_the_scoreboard_drops_a_topic_whose_id_ends_in_a_newline() -> None:
    from controller.scoreboard.model import Scoreboard

    board = Scoreboard()
    board.handle("toptable/table-9\n/online", b"online")
    assert board.tables() == []


def test_the_demo_refuses_an_id_with_a_newline_in_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from tests.cli_runner import cli_runner

    run = cli_runner(monkeypatch, capsys, "controller.cli.daemon")
    code, out, err = run("demo", "--fast", "--out", str(tmp_path), "--mqtt", "mqtt://127.0.0.1:1",
                         "--table-id", "table-9\n")  # fmt: skip
    assert code == 2 and out == ""
    [line] = err.strip().splitlines()
    assert line.startswith("toptable demo: error: argument --table-id: ") and "'table-9\\n'" in line
    assert list(tmp_path.iterdir()) == []  # refused before any game was set up
