"""The demo end to end: the daemon on simulated devices, and a kill at a chosen event with resume."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.bench.kill import journal_differs, kill_at, run_json, same, toptable
from controller.cli.main import main
from controller.demo.runner import DemoOptions, run_demo
from controller.game.events import DiceThrown
from controller.game.played_throws import played_throws
from controller.game.session import TableGame
from controller.game.state import Phase
from vision.learning.dataset import load_dataset

GAME_KEYS = ("winners", "warriors_left", "rounds", "combats", "events", "throws")


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_demo_plays_a_whole_game_through_every_part(tmp_path: Path) -> None:
    summary = run_demo(DemoOptions(seed=3, fast=True, out=tmp_path))
    assert summary.winners
    assert summary.rounds == 5
    assert summary.throws_read > 0 and summary.throws == summary.throws_read
    assert summary.silent_misreads == 0
    assert summary.handler_failures == 0
    assert summary.moves_from_board > 0
    assert summary.button_presses > 0
    assert Path(summary.gif).stat().st_size > 0
    assert "first player" in Path(summary.log).read_text(encoding="utf-8")
    assert summary.latency_ms["max"] > 0
    with TableGame.resume(summary.journal) as game:  # the journal replays to the end
        assert game.state.phase is Phase.OVER
        assert [game.state.players[w] for w in game.state.winners] == summary.winners
        played = {Path(p.evidence).stem: p.faces for p in played_throws(game.journal.events())}
    # each throw read kept its frame and dice boxes: the game's throws become labelled photos
    table = tmp_path / "table"
    assert main(["dice", "table-photos", str(summary.journal), "--out", str(table)]) == 0
    learned = load_dataset(table)
    assert len(played) == summary.throws_read and len(learned.items) >= len(played) - 2
    for item in learned.items:
        faces = tuple(learned.names[d.cls] for d in item.dice)
        assert faces == played[item.image.stem.split("_", 1)[1]]


@pytest.mark.slow
@pytest.mark.timeout(420)
def test_a_demo_killed_with_sigkill_resumes_to_the_same_end(tmp_path: Path) -> None:
    reference = run_demo(DemoOptions(seed=4, fast=True, out=tmp_path / "ref")).to_json()
    journal = tmp_path / "kill" / "journal.sqlite"
    cmd = toptable("demo", "--fast", "--json", "--seed", "4", "--out", str(tmp_path / "kill"),
                   "--journal", str(journal))  # fmt: skip
    kill = kill_at(cmd, journal, 60, timeout_s=300)  # once throws have been read
    assert kill.mid_game, kill
    with TableGame.resume(journal) as game:
        assert not game.state.over
    before = _photos(journal)
    assert before, "no throw was journalled before the kill"
    # nothing but the journal: no --seed, --players, --length
    only_journal = toptable("demo", "--fast", "--json", "--out", str(tmp_path / "kill"),
                            "--journal", str(journal), "--resume")  # fmt: skip
    resumed = run_json(only_journal, timeout_s=300)
    assert resumed["resumed"] is True and resumed["seed"] == 4
    assert resumed["handler_failures"] == 0
    assert same(resumed, reference, GAME_KEYS) == []
    assert journal_differs(journal, Path(reference["journal"])) is None  # the same game
    after = _photos(journal)
    assert len(after) == resumed["throws"]  # every throw names its own photo
    assert {path: after[path] for path in before} == before  # none written over


def _photos(journal: Path) -> dict[str, bytes]:
    """The photo each journalled throw names, and its bytes (each name once)."""
    with TableGame.resume(journal) as game:
        named = [e.evidence or "" for e in game.journal.events() if isinstance(e, DiceThrown)]
    assert all(named) and len(set(named)) == len(named)
    return {path: Path(path).read_bytes() for path in named}
