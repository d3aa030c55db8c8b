"""``toptable demo --mode MODE``: bots press the gpiozero buttons, luma draws, SQLite journals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image

from controller.bench.kill import journal_differs, kill_at, same, toptable
from controller.cli import daemon as cli_daemon
from controller.cli.main import _Parser
from controller.demo.companion import CompanionDemoError, run_companion_demo
from controller.storage.origin import ContradictionError
from controller.table.companion import CompanionTable
from tests.cli_runner import cli_runner

pytestmark = [
    pytest.mark.timeout(120),
    # luma.oled's drivers call Image.getdata(), deprecated in Pillow 13: luma's, not ours
    pytest.mark.filterwarnings("ignore:Image.Image.getdata is deprecated:DeprecationWarning"),
]

PLAYERS = {"dbs-tournament": 4, "dbz-tcg": 2, "challengers": 5}


@pytest.mark.parametrize("mode", sorted(PLAYERS))
def test_demo_plays_each_mode_to_a_winner(tmp_path: Path, mode: str) -> None:
    s = run_companion_demo(mode, seed=3, players=PLAYERS[mode], out=tmp_path, fast=True)
    assert s.finished and s.winner in s.players and s.step == "over"
    assert len(s.players) == PLAYERS[mode]
    assert s.button_presses > s.actions > 10
    assert s.screens_drawn > s.actions
    assert s.journal_rows == s.actions + s.refused + 2 * s.undos
    assert s.gif == ""
    with CompanionTable.resume(s.journal) as table:  # the journal holds the whole game
        assert table.winner == s.winner and table.history == s.actions


def test_the_same_seed_plays_the_same_game(tmp_path: Path) -> None:
    a = run_companion_demo("challengers", seed=7, players=4, out=tmp_path / "a", fast=True)
    b = run_companion_demo("challengers", seed=7, players=4, out=tmp_path / "b", fast=True)
    assert (a.winner, a.actions, a.button_presses) == (b.winner, b.actions, b.button_presses)


def test_a_game_left_half_played_resumes_from_its_journal(tmp_path: Path) -> None:
    first = run_companion_demo(
        "dbs-tournament", seed=2, players=3, out=tmp_path, fast=True, stop_after=15
    )
    assert not first.finished and first.winner is None and first.notes
    rest = run_companion_demo(
        "dbs-tournament", seed=2, players=3, out=tmp_path, resume=True, fast=True
    )
    assert rest.resumed and rest.finished and rest.winner in rest.players
    assert rest.actions > first.actions
    assert rest.journal_rows > first.journal_rows


END = ("players", "winner", "step", "actions", "journal_rows")
"""What a companion game's end is (``toptable bench daemon``'s kill test compares the same)."""


@pytest.mark.parametrize(
    ("mode", "players", "seed", "stop"),
    # dbz: seed 21's journal takes actions back at rows 25 and 28, before the stop
    [("dbs-tournament", 4, 11, 9), ("dbz-tcg", 2, 21, 40), ("challengers", 5, 11, 7)],
)
def test_a_resumed_game_plays_on_as_the_uninterrupted_one(
    tmp_path: Path, mode: str, players: int, seed: int, stop: int
) -> None:
    """The bots pick up where those who played the journalled rows left off: their plans
    and their generator (issue 29: a resume used to play another game to another end)."""
    whole = run_companion_demo(mode, seed=seed, players=players, out=tmp_path / "a", fast=True)
    assert whole.journal_rows > stop
    first = run_companion_demo(
        mode, seed=seed, players=players, out=tmp_path / "b", fast=True, stop_after=stop
    )
    assert first.journal_rows == stop and not first.finished
    if mode == "dbz-tcg":
        assert first.undos > 0  # the resume replays an undo
    rest = run_companion_demo(mode, out=tmp_path / "b", resume=True, fast=True)
    assert rest.resumed and rest.seed == seed
    assert same(rest.to_json(), whole.to_json(), END) == []
    assert journal_differs(Path(rest.journal), Path(whole.journal)) is None


def test_resume_after_the_process_is_killed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """SIGKILL mid-game, then ``demo --journal J --resume`` and nothing else: no --mode, no
    --seed, no --players; the same end as the game played without a kill."""
    whole = run_companion_demo("dbz-tcg", seed=4, out=tmp_path / "whole", fast=True)
    journal = tmp_path / "killed.sqlite"
    cmd = toptable("demo", "--mode", "dbz-tcg", "--seed", "4", "--fast", "--json",
                   "--out", str(tmp_path), "--journal", str(journal))  # fmt: skip
    kill = kill_at(cmd, journal, 20, timeout_s=60)  # the plug is pulled mid-game
    assert kill.mid_game, kill
    with CompanionTable.resume(journal) as table:
        assert table.winner is None and len(table.journal) == kill.rows
    assert _run("demo", "--fast", "--json", "--out", str(tmp_path), "--journal", str(journal),
                "--resume") == 0  # fmt: skip
    resumed = json.loads(capsys.readouterr().out)
    assert resumed["mode"] == "dbz-tcg" and resumed["resumed"] and resumed["seed"] == 4
    assert same(resumed, whole.to_json(), END) == []
    assert journal_differs(journal, Path(whole.journal)) is None


def test_resume_refuses_a_mode_that_contradicts_the_journal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_companion_demo("challengers", players=2, out=tmp_path, fast=True, stop_after=3)
    journal = str(tmp_path / "companion-challengers.sqlite")
    with pytest.raises(
        ContradictionError, match=r"--mode dbz-tcg contradicts the journal's challengers"
    ):
        _run("demo", "--mode", "dbz-tcg", "--journal", journal, "--resume", "--fast")
    with pytest.raises(ContradictionError, match=r"--story contradicts the journal's challengers"):
        _run("demo", "--story", "--journal", journal, "--resume", "--fast")


def test_resume_refuses_another_modes_journal(tmp_path: Path) -> None:
    run_companion_demo("challengers", players=2, out=tmp_path, fast=True, stop_after=3)
    with pytest.raises(CompanionDemoError, match="holds a challengers game"):
        run_companion_demo(
            "dbz-tcg", out=tmp_path, journal=tmp_path / "companion-challengers.sqlite", resume=True
        )


def test_demo_writes_a_gif_of_both_displays(tmp_path: Path) -> None:
    s = run_companion_demo("challengers", seed=1, players=2, out=tmp_path)
    assert s.gif == str(tmp_path / "companion-challengers.gif")
    with Image.open(s.gif) as gif:
        assert getattr(gif, "n_frames", 0) > 10
        assert gif.size == ((128 + 4 + 128) * 2, 64 * 2)


def _run(*argv: str) -> int:
    parser = _Parser(prog="toptable")
    cli_daemon.register(parser.add_subparsers(parser_class=_Parser))
    args = parser.parse_args(list(argv))
    code: int = args.func(args)
    return code


def test_cli_demo_mode(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ("demo", "--mode", "dbz-tcg", "--fast", "--out", str(tmp_path))
    assert _run(*argv, "--json") == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["mode"] == "dbz-tcg" and summary["winner"] in summary["players"]
    assert _run(*argv, "--seed", "2") == 0
    out = capsys.readouterr().out
    assert out.startswith("toptable demo --mode dbz-tcg (seed 2): Player 1, Player 2")
    assert "winner: " in out and "journal " in out


def test_cli_demo_mode_rejects_an_unknown_mode(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        _run("demo", "--mode", "uno")
    assert "invalid choice" in capsys.readouterr().err


def test_a_player_count_the_mode_does_not_allow_names_the_flag(tmp_path: Path) -> None:
    with pytest.raises(CompanionDemoError) as caught:
        run_companion_demo("dbz-tcg", players=3, out=tmp_path, fast=True)
    assert str(caught.value) == "--players: dbz-tcg needs 2-2 players, got 3"
    assert list(tmp_path.iterdir()) == []  # nothing written


@pytest.mark.parametrize(
    "flags",
    [["--length", "rounds10"], ["--variant", "shield_any_sphere"], ["--story"], ["--data", "."]],
)
def test_a_dice_game_flag_with_a_companion_mode_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    flags: list[str],
) -> None:  # fmt: skip
    # they were ignored: a companion game has no length, variants, Story mode or data set
    run = cli_runner(monkeypatch, capsys, "controller.cli.daemon")
    code, out, err = run("demo", "--mode", "dbz-tcg", *flags, "--out", str(tmp_path), "--fast")
    assert (code, out) == (2, "")
    assert err == (
        f"toptable: error: {flags[0]} sets up the dice game (tournament or story), not dbz-tcg: "
        "leave it out\n"
    )
    assert list(tmp_path.iterdir()) == []


def test_a_companion_demo_resumed_with_other_names_is_refused(tmp_path: Path) -> None:
    journal = tmp_path / "c.sqlite"
    run_companion_demo("dbz-tcg", journal=journal, out=tmp_path, fast=True, stop_after=3)
    before = journal.read_bytes()
    with pytest.raises(
        ContradictionError, match="--names Ann, Bob contradicts the journal's Player 1, Player 2"
    ):
        run_companion_demo("dbz-tcg", names=("Ann", "Bob"), journal=journal, resume=True)
    assert journal.read_bytes() == before
