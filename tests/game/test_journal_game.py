"""A journalled game: submit, resume, undo, corrections, export, and the SIGKILL test."""

from __future__ import annotations

import json
import os
import random
import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest

from controller.bench.kill import kill_at, run_json, toptable
from controller.core.errors import IllegalActionError
from controller.core.symbols import Symbol
from controller.game import engine
from controller.game.bots import GreedyBot, table_input
from controller.game.events import DiceThrown, Draft, FirstPlayerChosen, GameEvent, ThrowCorrected
from controller.game.export import export_json, export_text
from controller.game.journal import JournalError, WrongGameError
from controller.game.legal import legal_actions
from controller.game.session import TableGame, run_journaled
from controller.game.simulate import play_game
from controller.game.state import GameConfig, GameState, Length, Phase
from tests.game.helpers import demo_data
from tests.paths import REPO

REPO = REPO


def _plain(summary: dict[str, object]) -> dict[str, object]:
    plain: dict[str, object] = json.loads(json.dumps(summary, sort_keys=True))
    return plain


def _step(game: TableGame, rng: random.Random) -> GameEvent:
    event = table_input(game.state, rng)
    if event is None:
        event = GreedyBot().act(game.state, rng)
    game.submit(event)
    return event


def test_illegal_events_are_not_journalled(tmp_path: Path) -> None:
    path = tmp_path / "g.journal"
    with TableGame.start(path, GameConfig(("A", "B")), demo_data()) as game:
        game.submit(FirstPlayerChosen(0))
        with pytest.raises(IllegalActionError, match="out of turn"):
            game.submit(Draft(1, "Jiren"))
        assert len(game.journal) == 1
        gid = game.journal.game_id
    with TableGame.resume(path, demo_data(), game_id=gid) as game:
        assert game.state.phase is Phase.DRAFT
    with pytest.raises(WrongGameError):
        TableGame.resume(path, demo_data(), game_id="another")


def test_resume_undo_and_correction(tmp_path: Path) -> None:
    path = tmp_path / "g.journal"
    rng = random.Random(3)
    with TableGame.start(path, GameConfig(("A", "B"), Length.ROUNDS5), demo_data()) as game:
        while game.state.phase is not Phase.ATTACK:
            _step(game, rng)
        before_throw = game.state.summary()
        c = game.state.combat
        assert c is not None
        game.submit(DiceThrown((Symbol.KICK,) * c.pool, evidence="frames/0007.png"))
        with pytest.raises(JournalError, match="not a player action"):
            game.undo()  # a die's result is not undone...
        game.submit(ThrowCorrected((Symbol.PUNCH,) * c.pool))  # ...it is corrected, and journalled
        c = game.state.combat
        assert c is not None and c.throws[-1] == (Symbol.PUNCH,) * c.pool
        assert game.state.summary() != before_throw
        seat = engine.actor(game.state)
        assert seat is not None
        options = engine.attack_options(game.state)
        before_choice = game.state.summary()
        game.submit(next(iter(legal_actions(game.state))))
        undone = game.undo()
        assert undone.is_action
        assert game.state.summary() == before_choice and options
        state = game.state.summary()
    with TableGame.resume(path, demo_data()) as game:
        assert game.state.summary() == state
        kinds = [r.kind for r in game.journal.rows()]
        assert "throw_corrected" in kinds and kinds[-1] == "undo"


def test_export_lists_throws_choices_damage_and_evidence(tmp_path: Path) -> None:
    path = tmp_path / "g.journal"
    config = GameConfig(("A", "B"), Length.ROUNDS5)
    with TableGame.start(path, config, demo_data()) as game:
        n = 0

        def submit(e: GameEvent) -> GameState:
            nonlocal n
            if isinstance(e, DiceThrown):
                n += 1
                e = replace(e, evidence=f"frames/{n:04d}.png")
            return game.submit(e)

        out = play_game(game.config, demo_data(), 5, None, submit)
        assert out.state.over
        log = export_json(game.config, game.data, game.events())
    assert log["over"] and log["winners"] and log["game_id"] == game.journal.game_id
    text = export_text(log)
    assert "[frame frames/0001.png]" in text
    assert "damage" in text and "attack option=" in text and "result: over" in text
    events = log["events"]
    assert isinstance(events, list) and len(events) == out.events
    json.dumps(log)  # JSON-able


def test_cli_export_and_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from controller.cli.main import main

    path = tmp_path / "g.journal"
    run_journaled(path, 2, Length.ROUNDS5, 9)
    assert main(["game", "check", str(path), "--json"]) == 0
    check = json.loads(capsys.readouterr().out)
    # the replay time is reported, not judged: its target is a bench figure (toptable bench game)
    assert check["phase"] == "over" and check["replay_ms"] > 0
    assert main(["game", "export", str(path), "--text"]) == 0
    assert "result: over" in capsys.readouterr().out
    assert main(["game", "export", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["over"] is True
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE events SET payload = replace(payload, '1', '2') WHERE seq = 5")
    assert main(["game", "check", str(path)]) == 2
    assert "fails its checksum" in capsys.readouterr().err


@pytest.mark.timeout(120)
def test_sigkill_at_chosen_events_then_resume_equals_an_uninterrupted_run(tmp_path: Path) -> None:
    seed = 21
    expected = play_game(GameConfig(("P1", "P2"), Length.ROUNDS5), demo_data(), seed)
    total = expected.events
    path = tmp_path / "kill.journal"
    cmd = toptable("game", "play", str(path), "--players", "2", "--length", "rounds5",
                   "--seed", str(seed), "--json")  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    for point in sorted(random.Random(1).sample(range(20, total - 20), 3)):
        kill = kill_at(cmd, path, point, timeout_s=60, env=env)
        assert kill.mid_game, kill  # killed while playing, at or past the event chosen
        with TableGame.resume(path) as game:
            assert not game.state.over and point <= len(game.journal) < total
    done = run_json(cmd, timeout_s=60, env=env)
    assert done == _plain(expected.state.summary())
    with TableGame.resume(path) as game:
        assert _plain(game.state.summary()) == _plain(expected.state.summary())
        assert len(game.journal) == total


def _dodge_awaited(game: TableGame) -> bool:
    c = game.state.combat
    return (
        game.state.phase is Phase.DEFENCE_ROLL
        and c is not None
        and c.answer == "dodge"
        and not c.defence_throws
        and c.defence_max_rerolls >= 1
    )


def _game_at_a_dodge(tmp_path: Path) -> TableGame:
    """A journalled bot game stopped where a dodge roll is awaited (the first seed that
    reaches one)."""
    for seed in range(8, 40):
        rng = random.Random(seed)
        game = TableGame.start(
            tmp_path / f"g{seed}.journal", GameConfig(("A", "B"), Length.ROUNDS5), demo_data()
        )
        while not game.state.over and not _dodge_awaited(game):
            _step(game, rng)
        if _dodge_awaited(game):
            return game
        game.close()
    raise AssertionError("no seed reaches a dodge roll")


def test_a_correction_after_the_throw_ended_the_attempt(tmp_path: Path) -> None:
    with _game_at_a_dodge(tmp_path) as game:
        path = game.journal.path
        c = game.state.combat
        assert c is not None and game.state.phase is Phase.DEFENCE_ROLL
        target, pool = c.target, c.defence_pool
        game.submit(DiceThrown((Symbol.TELEPORT,) * pool, evidence="frames/9.png"))
        assert game.state.phase is not Phase.DEFENCE_ROLL  # the dodge was made: the roll ended
        game.submit(ThrowCorrected((Symbol.KICK,) * pool))  # no: it was all kicks
        c = game.state.combat
        assert game.state.phase is Phase.DEFENCE_ROLL and c is not None and c.target == target
        assert c.defence_throws == ((Symbol.KICK,) * pool,)
        state = game.state.summary()
        log = export_text(export_json(game.config, game.data, game.events()))
        assert "first read as teleport" in log and "[frame frames/9.png]" in log
    with TableGame.resume(path, demo_data()) as game:
        assert game.state.summary() == state
