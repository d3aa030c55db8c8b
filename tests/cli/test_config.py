"""``toptable config check``: exit 0 and one line when all is well, 2 and every problem if not."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from controller.cli import main as cli
from tests.paths import REPO
from vision.learning.face_model import train
from vision.reading.describe import DESCRIPTION_SIZE
from vision.reading.detect import DetectorParams

REPO = REPO
DEMO = REPO / "controller" / "data" / "demo" / "config.toml"
EXAMPLE = REPO / "systemd" / "config.example.toml"

pytestmark = pytest.mark.timeout(30)


@pytest.fixture(autouse=True)
def only_config_commands(monkeypatch: pytest.MonkeyPatch) -> None:
    """Run the real ``toptable`` main with just this module's commands registered."""
    monkeypatch.setattr(cli, "COMMAND_MODULES", ("controller.cli.config",))


def test_demo_config_passes_file_and_device_checks(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["config", "check", str(DEMO)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{DEMO}: OK (file and devices): 2 players, rounds10; camera synthetic")
    assert "board simulated; 4 screen(s); controls mock" in out


def test_example_config_file_check_only(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["config", "check", "--no-devices", str(EXAMPLE)]) == 0
    assert "OK (file): 2 players, rounds10; camera v4l2 /dev/video0" in capsys.readouterr().out


def test_typo_exits_2_naming_section_and_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[table]\nplayers = 2\nlenght = "rounds5"\n[log]\nlevel = "loud"\n')
    assert cli.main(["config", "check", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("toptable: error: 2 problems:\n")
    assert f"{path}: Option 'lenght' in section 'table' is not a valid option" in err
    assert "(did you mean 'length'?)" in err
    assert f"{path}: Option 'level' in section 'log' must be one of debug" in err


def test_missing_devices_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "config.toml"
    path.write_text(
        f'[table]\njournal = "{tmp_path}/j.sqlite"\n'
        '[camera]\ndevice = "/dev/video-none"\n'
        '[board]\nbackend = "simulated"\n[controls]\nbackend = "mock"\n'
    )
    assert cli.main(["config", "check", str(path)]) == 2
    err = capsys.readouterr().err
    assert "Option 'device' in section 'camera' names /dev/video-none, which does not exist" in err


def test_missing_file_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["config", "check", str(tmp_path / "nope.toml")]) == 2
    assert "no such config file" in capsys.readouterr().err


def test_default_path_is_etc(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from controller.cli import config as command
    from controller.config import DEFAULT_CONFIG_PATH

    assert Path("/etc/toptable/config.toml") == DEFAULT_CONFIG_PATH
    monkeypatch.setattr(command, "DEFAULT_CONFIG_PATH", tmp_path / "etc-config.toml")
    assert cli.main(["config", "check"]) == 2
    assert f"{tmp_path / 'etc-config.toml'}: no such config file" in capsys.readouterr().err


SIMULATED = (
    '[camera]\nsource = "synthetic"\n[board]\nbackend = "simulated"\n[controls]\nbackend = "mock"\n'
)


def test_a_journal_where_no_file_can_be_made_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Tried, not asked: root may "write" /proc by its permission bits, yet no file is made there.
    path = tmp_path / "config.toml"
    path.write_text('[table]\njournal = "/proc/toptable/journal.sqlite"\n' + SIMULATED)
    assert cli.main(["config", "check", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        f"toptable: error: {path}: Option 'journal' in section 'table' is in /proc/toptable "
        "(which the daemon would create in /proc), where this user cannot create a file "
        "(tried): the unit's StateDirectory= makes /var/lib/toptable for the service user; "
        "elsewhere create the folder and chown it to the user running toptable"
    ]


def test_an_empty_config_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "config.toml"
    path.write_text("# to do\n")
    assert cli.main(["config", "check", "--no-devices", str(path)]) == 2
    assert capsys.readouterr().err == (
        f"toptable: error: {path}: sets nothing: a table's config names at least its [table] "
        "(start from systemd/config.example.toml; every option left out keeps its default)\n"
    )


def test_the_data_set_is_read_as_run_reads_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from controller.config import load_config
    from controller.core.errors import DataError
    from controller.daemon.journals import game_data_for
    from controller.gamedata.datadir import init_data_dir

    data = tmp_path / "mine"
    init_data_dir(data)
    warriors = data / "warriors.toml"
    text = warriors.read_text(encoding="utf-8")
    first = text.index("[[warrior]]")
    warriors.write_text(text + "\n" + text[first : text.index("[[warrior]]", first + 1)])
    path = tmp_path / "config.toml"
    path.write_text(f'[table]\ndata_dir = "{data}"\njournal = "{tmp_path}/j.sqlite"\n' + SIMULATED)
    assert cli.main(["config", "check", "--no-devices", str(path)]) == 2
    err = capsys.readouterr().err
    with pytest.raises(DataError) as at_run:
        game_data_for(load_config(path))
    assert err == f"toptable: error: {at_run.value}\n"
    assert f"{warriors}: warrior 'Jiren': field 'name': duplicate warrior name" in err


def test_a_companion_modes_player_count_is_checked_as_run_checks_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from controller.companion.registry import get_mode
    from controller.core.errors import DataError

    path = tmp_path / "config.toml"
    path.write_text(f'[table]\nmode = "dbz-tcg"\nplayers = 3\njournal = "{tmp_path}/j.sqlite"\n')
    assert cli.main(["config", "check", "--no-devices", str(path)]) == 2
    assert capsys.readouterr().err == (
        f"toptable: error: {path}: Option 'players' in section 'table' does not suit mode "
        "'dbz-tcg': dbz-tcg needs 2-2 players, got 3\n"
    )
    with pytest.raises(DataError, match="needs 2-2 players, got 3"):  # as the table's start says
        get_mode("dbz-tcg").new_game(("A", "B", "C"))
    path.write_text(f'[table]\nmode = "dbs-tournament"\nplayers = 4\njournal = "{tmp_path}/j"\n')
    assert cli.main(["config", "check", "--no-devices", str(path)]) == 0
    assert not (tmp_path / "j").exists()


def test_a_journal_of_another_game_is_refused_as_run_refuses_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import sqlite3

    from controller.config import load_config
    from controller.daemon.journals import StartError, game_data_for, open_game
    from controller.game.session import run_journaled
    from controller.game.state import Length

    journal = tmp_path / "j.sqlite"
    run_journaled(journal, 2, Length.ROUNDS5, 5)
    before = journal.read_bytes()
    path = tmp_path / "config.toml"
    path.write_text(f'[table]\nplayers = 3\njournal = "{journal}"\n' + SIMULATED)
    assert cli.main(["config", "check", str(path)]) == 2  # it passed, and run refused
    said = (
        f"holds a game of 2 players (rounds5), but {path} sets up 3 players (rounds10): move "
        "the journal away to start a new game, or set [table] to match"
    )
    assert capsys.readouterr().err == (
        f"toptable: error: {path}: Option 'journal' in section 'table' names {journal}, "
        f"which {said}\n"
    )
    assert journal.read_bytes() == before  # looked at, not opened for writing
    config = load_config(path)
    with pytest.raises(StartError) as at_run:
        open_game(config, game_data_for(config))
    assert str(at_run.value) == f"{journal} {said}"
    with sqlite3.connect(journal) as conn:  # a set-up whose seed is damaged
        conn.execute("UPDATE meta SET value = json_set(value, '$.seed', 'one') WHERE key = 'setup'")
    conn.close()
    path.write_text(
        f'[table]\nplayers = 2\nlength = "rounds5"\njournal = "{journal}"\n' + SIMULATED
    )
    assert cli.main(["config", "check", str(path)]) == 2
    assert capsys.readouterr().err == (
        f"toptable: error: {path}: Option 'journal' in section 'table' names {journal}, which "
        "has a damaged set-up (the journal's set-up: field 'seed': expected a whole number, "
        "got 'one'): the daemon would refuse it\n"
    )


def _folder(path: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(path.iterdir())}


def _companion_config(path: Path, players: int) -> None:
    journal = path.parent / "j.sqlite"
    path.write_text(
        f'[table]\nmode = "dbs-tournament"\nplayers = {players}\njournal = "{journal}"\n'
        + SIMULATED
    )


def test_a_companion_journal_of_another_game_is_refused_as_run_refuses_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from controller.config import load_config
    from controller.daemon.journals import StartError, resume_or_start
    from controller.table.companion import CompanionTable

    path = tmp_path / "config.toml"
    companion = tmp_path / "companion-dbs-tournament.sqlite"  # beside [table] journal
    CompanionTable.new("dbs-tournament", ("A", "B", "C"), companion, seed=1).close()
    for players, held in ((4, "dbs-tournament"), (3, "challengers")):
        if held == "challengers":  # another mode's game, at this mode's path
            companion.unlink()
            CompanionTable.new(held, ("A", "B", "C"), companion, seed=1).close()
        _companion_config(path, players)
        before = _folder(tmp_path)
        assert cli.main(["config", "check", str(path)]) == 2  # it passed, and run refused
        said = (
            f"holds a {held} game of 3 players, but the config sets up dbs-tournament for "
            f"{players}: move the journal away to start a new game, or set [table] to match"
        )
        assert capsys.readouterr().err == (
            f"toptable: error: {path}: Option 'journal' in section 'table' keeps the "
            f"dbs-tournament game in {companion}, which {said}\n"
        )
        assert _folder(tmp_path) == before  # read, not written, nothing made beside it
        with pytest.raises(StartError) as at_run:
            resume_or_start(load_config(path))
        assert str(at_run.value) == f"{companion} {said}"
    companion.unlink()
    CompanionTable.new("dbs-tournament", ("A", "B", "C"), companion, seed=1).close()
    assert cli.main(["config", "check", str(path)]) == 0  # the game it sets up


def test_a_companion_journal_run_cannot_resume_is_refused_as_run_refuses_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import shutil
    import sqlite3

    from controller.config import load_config
    from controller.daemon.journals import resume_or_start
    from controller.game.session import run_journaled
    from controller.game.state import Length
    from controller.storage.journal import JournalCorruptError, JournalForeignError
    from controller.table.companion import CompanionTable

    path = tmp_path / "config.toml"
    _companion_config(path, 3)
    companion = tmp_path / "companion-dbs-tournament.sqlite"
    CompanionTable.new("dbs-tournament", ("A", "B", "C"), companion, seed=1).close()
    with sqlite3.connect(companion) as conn:  # a set-up whose players are damaged
        conn.execute(
            "UPDATE meta SET value = json_set(value, '$.players', 'Ann') WHERE key = 'setup'"
        )
    conn.close()
    before = _folder(tmp_path)
    assert cli.main(["config", "check", str(path)]) == 2
    said = "the journal's set-up: field 'players': expected names, got 'Ann'"
    assert capsys.readouterr().err == (
        f"toptable: error: {path}: Option 'journal' in section 'table' keeps the dbs-tournament "
        f"game in {companion}, which has a damaged set-up ({said}): the daemon would refuse it\n"
    )
    assert _folder(tmp_path) == before
    with pytest.raises(JournalCorruptError) as at_run:
        resume_or_start(load_config(path))
    assert str(at_run.value) == f"{companion}: {said}"
    dice = tmp_path / "dice.sqlite"
    run_journaled(dice, 3, Length.ROUNDS5, 5)
    companion.unlink()
    shutil.copy(dice, companion)  # the dice game's journal, where the companion's goes
    before = _folder(tmp_path)
    assert cli.main(["config", "check", str(path)]) == 2
    err = capsys.readouterr().err
    assert _folder(tmp_path) == before
    with pytest.raises(JournalForeignError) as at_run:
        resume_or_start(load_config(path))
    refused = str(at_run.value).removeprefix(f"{companion}: ")
    assert refused == (
        "a Tournament of Power game's journal (tournament mode), not a companion game's: "
        "it keeps no companion mode's actions"
    )
    assert err == (
        f"toptable: error: {path}: Option 'journal' in section 'table' keeps the dbs-tournament "
        f"game in {companion}, which the daemon would refuse: {refused}\n"
    )


def test_a_dice_journal_whose_set_up_is_no_object_is_refused_as_run_refuses_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import sqlite3

    from controller.config import load_config
    from controller.daemon.journals import game_data_for, open_game
    from controller.game.session import run_journaled
    from controller.game.state import Length
    from controller.storage.journal import JournalCorruptError

    journal = tmp_path / "j.sqlite"
    run_journaled(journal, 2, Length.ROUNDS5, 5)
    with sqlite3.connect(journal) as conn:
        conn.execute("UPDATE meta SET value = '[2]' WHERE key = 'setup'")
    conn.close()
    path = tmp_path / "config.toml"
    path.write_text(
        f'[table]\nplayers = 2\nlength = "rounds5"\njournal = "{journal}"\n' + SIMULATED
    )
    assert cli.main(["config", "check", str(path)]) == 2  # not a traceback
    assert capsys.readouterr().err == (
        f"toptable: error: {path}: Option 'journal' in section 'table' names {journal}, which "
        "has a damaged set-up (the journal's set-up is not a JSON object): the daemon would "
        "refuse it\n"
    )
    config = load_config(path)
    with pytest.raises(JournalCorruptError) as at_run:
        open_game(config, game_data_for(config))
    assert str(at_run.value) == f"{journal}: the journal's set-up is not a JSON object"


def test_a_byte_order_mark_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes(b"\xef\xbb\xbf[table]\nplayers = 2\n")
    assert cli.main(["config", "check", "--no-devices", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"toptable: error: {path}: ") and "byte-order mark" in err
    assert len(err.splitlines()) == 1


def test_a_model_that_never_learned_a_face_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rng = np.random.default_rng(0)
    feats = rng.normal(0, 1, (12, DESCRIPTION_SIZE)).astype(np.float32)
    names = ["kick", "punch", "sphere", "strength", "star", "teleport"]
    model = train("table", names, feats, np.repeat([0, 1, 2, 3], 3), DetectorParams())
    saved = model.save(tmp_path / "faces.npz")
    path = tmp_path / "config.toml"
    path.write_text(f'[camera]\nmodel = "{saved}"\n')
    assert cli.main(["config", "check", "--no-devices", str(path)]) == 0
    out = capsys.readouterr().out
    assert (
        "face model: never learned 'star', 'teleport' (no die labeled so in its photos): a die "
        "showing one of them is read as another face or asked about; label them and calibrate "
        "again"
    ) in out


def test_a_board_layout_that_does_not_load_is_said_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Review 95: a layout that is no UTF-8, or missing, was said twice (as game data and
    as the board's file), neither naming the config's option."""
    binary = tmp_path / "bin.dat"
    binary.write_bytes(b"\xff\xfe")
    for layout, said in ((binary, f"{binary}: not UTF-8 text"),
                         (tmp_path / "gone.toml", "Option 'layout' in section 'board' names")):  # fmt: skip
        config = tmp_path / "c.toml"
        config.write_text(f'[table]\njournal = "{tmp_path / "j.sqlite"}"\n[board]\n'
                          f'layout = "{layout}"\n', encoding="utf-8")  # fmt: skip
        assert cli.main(["config", "check", str(config)]) == 2
        lines = capsys.readouterr().err.splitlines()
        assert sum(said in line for line in lines) == 1, lines
        assert len([line for line in lines if str(layout) in line]) <= 2


@pytest.mark.parametrize("devices", [[], ["--no-devices"]], ids=["devices", "file-only"])
def test_a_missing_data_folder_or_layout_names_the_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], devices: list[str]
) -> None:
    """--no-devices named only the missing path, not the config option naming it."""
    for section, option, value in (
        ("table", "data_dir", "datta"),
        ("board", "layout", "bord.toml"),
    ):
        config = tmp_path / "c.toml"
        line = f'{option} = "{tmp_path / value}"\n'
        table, board = (line, "") if section == "table" else ("", line)
        config.write_text(f'[table]\njournal = "{tmp_path / "j.sqlite"}"\n{table}[board]\n'
                          f"{board}", encoding="utf-8")  # fmt: skip
        assert cli.main(["config", "check", *devices, str(config)]) == 2
        lines = capsys.readouterr().err.splitlines()
        named = f"Option '{option}' in section '{section}' names {tmp_path / value}, which"
        assert sum(named in line for line in lines) == 1, lines
