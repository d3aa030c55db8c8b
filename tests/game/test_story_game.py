"""Story mode as an engine mode (docs/rules.md §12): the squares as phases of the same fold,
journalled through TableGame (undo, resume, export) and the SIGKILL test."""

from __future__ import annotations

import dataclasses
import json
import os
import random
from pathlib import Path

import pytest

from controller.bench.kill import kill_at, run_json, toptable
from controller.core.errors import IllegalActionError, InvalidThrowError
from controller.core.kinds import GameKind
from controller.core.symbols import Symbol
from controller.game import engine
from controller.game.bots import BOTS
from controller.game.engine import InputKind
from controller.game.events import ChooseAttack, ChooseFight, DiceThrown, GameEvent, TimeUp
from controller.game.export import export_json
from controller.game.legal import legal_actions
from controller.game.prompt import phase_label, prompt
from controller.game.session import TableGame
from controller.game.simulate import play_game, simulate
from controller.game.state import GameConfig, GameData, GameState, Length, Phase
from controller.game.story import StorySide, green_takes, takes
from controller.rules.dice import Die
from tests.game.helpers import demo_data
from tests.paths import REPO

K, P, S, T, G, R = (
    Symbol.KICK, Symbol.PUNCH, Symbol.STRENGTH, Symbol.TELEPORT, Symbol.SPHERE, Symbol.STAR,
)  # fmt: skip
NO_TELEPORT = (Symbol.KICK, Symbol.PUNCH, Symbol.SPHERE, Symbol.STRENGTH, Symbol.STAR, Symbol.STAR)
TOTAL_POINTS_2P = 31  # the demo squares' victory points, one bout each


def _story(players: int = 2) -> GameState:
    names = ("Ann", "Bob", "Cid", "Dee")[:players]
    return engine.new_game(GameConfig(names, kind=GameKind.STORY), demo_data())


def _square_combo_throw(state: GameState) -> tuple[Symbol, ...]:
    """A throw of the attempt's pool making the square's combo (the rest kicks)."""
    st, c = state.story, state.combat
    assert st is not None and c is not None
    combo = list(st.story.squares[st.square].combo.symbols)
    return tuple(combo + [K] * (c.pool - len(combo)))[: c.pool]


def _attempt(state: GameState, dice: tuple[Symbol, ...], option: str) -> GameState:
    seat = engine.actor(state)
    assert seat is not None and state.phase is Phase.ATTACK
    state = engine.apply(state, DiceThrown(dice))
    return engine.apply(state, ChooseAttack(seat, option))


def _combo_name(state: GameState) -> str:
    st = state.story
    assert st is not None
    return st.story.squares[st.square].combo.name


def test_a_story_game_opens_square_1_with_the_green_attempt() -> None:
    s = _story()
    assert s.phase is Phase.ATTACK and s.round == 1
    c = s.combat
    assert c is not None
    assert (c.attacker, c.defender, c.striker) == ("Son Goku", "Beerus", "Son Goku")
    # B l.188: Son Goku fights square 1 in Super Saiyan 3: that form's power and technique
    assert c.attacker_form == "Super Saiyan 3 Son Goku" and (c.pool, c.max_rerolls) == (5, 3)
    assert engine.actor(s) == 0  # P1 green throws first
    assert engine.awaiting(s).input is InputKind.DICE and engine.awaiting(s).dice == c.pool
    assert c.cards and c.cards[0].name == _combo_name(s)  # the square's combo is offered
    assert phase_label(s) == "sq 1 G0 R0"
    assert "throw" in prompt(s)
    with pytest.raises(InvalidThrowError):
        engine.apply(s, DiceThrown((K,) * (c.pool + 1)))
    with pytest.raises(IllegalActionError):
        engine.apply(s, TimeUp())


def test_the_square_combo_scores_and_the_higher_damage_takes_the_points() -> None:
    s = _story()
    combo = _combo_name(s)
    s = _attempt(s, _square_combo_throw(s), combo)
    c = s.combat
    assert c is not None and c.striker == "Beerus" and engine.actor(s) == 1  # red's turn
    worst = min(
        engine.attack_options(engine.apply(s, DiceThrown((T,) * c.pool))), key=lambda o: o[1]
    )
    s = _attempt(s, (T,) * c.pool, worst[0])
    st = s.story
    assert st is not None
    winner = 0 if st.points[0] else 1
    assert st.points[winner] == 1 and sum(st.points) == 1
    assert s.phase is Phase.STORY_FIGHT and s.round == 2  # square 2 offers three fights


def test_a_square_with_several_fights_waits_for_both_players_to_agree() -> None:
    s = _green_wins_until_a_choice(_story())
    assert list(legal_actions(s)) == [ChooseFight(0, 0), ChooseFight(0, 1), ChooseFight(0, 2)]
    with pytest.raises(IllegalActionError, match="out of turn"):
        engine.apply(s, ChooseFight(1, 0))
    with pytest.raises(IllegalActionError):
        engine.apply(s, DiceThrown((K, K, K)))
    assert "Son Gohan v Dyspo" in prompt(s)
    s = engine.apply(s, ChooseFight(0, 1))  # green proposes
    assert s.phase is Phase.STORY_FIGHT and engine.actor(s) == 1
    assert "agree to Son Gohan v Dyspo" in prompt(s)
    s = engine.apply(s, ChooseFight(1, 1))  # red agrees
    c = s.combat
    assert s.phase is Phase.ATTACK and c is not None
    assert (c.attacker, c.defender) == ("Son Gohan", "Dyspo")


def test_with_four_players_two_fights_are_played_each_pair_choosing_one() -> None:
    s = _story(4)
    st = s.story
    assert st is not None
    assert [(b.green_seat, b.red_seat) for b in st.bouts] == [(0, 1)]  # square 1: P1-P2
    s = _green_wins_until_a_choice(s)
    assert s.phase is Phase.STORY_FIGHT and s.round == 2 and engine.actor(s) == 2
    s = engine.apply(s, ChooseFight(2, 2))  # square 2 is P3-P4's (B l.225): Piccolo v Kakunsa
    s = engine.apply(s, ChooseFight(3, 2))
    assert s.phase is Phase.ATTACK and engine.actor(s) == 2
    s = _green_wins_until_a_choice(s)
    assert s.phase is Phase.STORY_FIGHT and engine.actor(s) == 0  # then P1 and P2 choose
    assert list(legal_actions(s)) == [ChooseFight(0, 0), ChooseFight(0, 1)]
    with pytest.raises(IllegalActionError, match="free fight"):
        engine.apply(s, ChooseFight(0, 2))
    s = engine.apply(engine.apply(s, ChooseFight(0, 0)), ChooseFight(1, 0))
    st = s.story
    assert st is not None and [b.fight for b in st.bouts] == [2, 0]
    assert s.phase is Phase.ATTACK and engine.actor(s) == 0
    c = s.combat
    assert c is not None and (c.attacker, c.defender) == ("Vegeta", "Toppo")
    s = _green_wins_until_a_choice(s)
    st = s.story
    assert st is not None
    assert st.log[1].startswith("square 2: Cid takes 1") and st.log[2].startswith(
        "square 2: Ann takes 1"
    )


def _green_wins_until_a_choice(s: GameState) -> GameState:
    """Green makes the square's combo, red its weakest option, until a fight is chosen."""
    for _ in range(100):
        c = s.combat
        if s.phase is not Phase.ATTACK or c is None:
            return s
        if c.striker == c.attacker:
            s = _attempt(s, _square_combo_throw(s), _combo_name(s))
        else:
            options = engine.attack_options(engine.apply(s, DiceThrown((T,) * c.pool)))
            s = _attempt(s, (T,) * c.pool, min(options, key=lambda o: o[1])[0])
    raise AssertionError("no fight to choose")


def test_a_tie_goes_to_red_and_is_not_thrown_again() -> None:
    """B l.188: green takes the square only by inflicting more damage than red."""
    s = _story()
    combo = _combo_name(s)
    s = _attempt(s, _square_combo_throw(s), combo)
    s = _attempt(s, _square_combo_throw(s), combo)  # the same combo, the same damage
    st = s.story
    assert st is not None and st.square == 1 and st.points == (0, st.story.squares[0].points)
    damage = st.story.squares[0].combo.damage
    assert st.log[0] == f"square 1: Bob takes 1 ({damage} v {damage})"


def _faces_thrown(config: GameConfig, data: GameData, bot: str) -> tuple[GameState, list[Symbol]]:
    """A whole bot game and every die face its throws showed."""
    thrown: list[Symbol] = []
    state = engine.new_game(config, data)

    def submit(e: GameEvent) -> GameState:
        nonlocal state
        if isinstance(e, DiceThrown):
            thrown.extend(e.dice)
        state = engine.apply(state, e)
        return state

    out = play_game(config, data, 3, [BOTS[bot]() for _ in config.players], submit=submit)
    return out.state, thrown


def test_a_die_without_teleport_never_throws_one() -> None:
    """Story throws the data set's die through the shared bots (issue 24: its own roller
    threw 48 teleports in 266 dice of a die that has none)."""
    data = dataclasses.replace(demo_data(), die=Die("no-teleport", NO_TELEPORT))
    config = GameConfig(("A", "B", "C"), kind=GameKind.STORY)
    for bot in ("greedy", "random"):
        end, thrown = _faces_thrown(config, data, bot)
        assert end.over and len(thrown) > 100
        assert Symbol.TELEPORT not in thrown, bot


def test_story_simulate_is_the_shared_simulator(capsys: pytest.CaptureFixture[str]) -> None:
    from controller.cli.main import main

    assert main(["story", "simulate", "--players", "2", "--games", "3", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    again = simulate(2, Length.ROUNDS10, 3, 0, demo_data(), story=True).to_json()
    assert out["games"] == 3 and out["mode"] == "story"
    assert out["winners"] == again["winners"] and out["average_events"] == again["average_events"]
    assert main(["story", "simulate", "--players", "5"]) == 2


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_winner_is_known_after_square_13(players: int) -> None:
    names = tuple(f"P{i + 1}" for i in range(players))
    out = play_game(GameConfig(names, kind=GameKind.STORY), demo_data(), seed=5)
    s = out.state
    st = s.story
    assert s.over and st is not None and st.over and s.round == 13
    assert s.winners == tuple(i for i, p in enumerate(st.points) if p == max(st.points))
    assert len(st.log) >= 13
    vp = st.side_points()
    assert vp[StorySide.GREEN] == sum(st.points[0::2]) and vp[StorySide.RED] == sum(st.points[1::2])
    if players == 2:
        assert sum(st.points) == TOTAL_POINTS_2P
    assert s.summary()["story"] == st.summary()
    assert "win" in phase_label(s)


def test_story_games_are_a_fold_of_their_events() -> None:
    config = GameConfig(("A", "B", "C"), kind=GameKind.STORY)
    out = play_game(config, demo_data(), seed=9)
    events: list[GameEvent] = []
    again = play_game(config, demo_data(), seed=9, submit=lambda e: _record(events, e))
    assert again.state.summary() == out.state.summary()
    assert engine.replay(config, demo_data(), events).summary() == out.state.summary()


def _record(events: list[GameEvent], e: GameEvent) -> GameState:
    events.append(e)
    return engine.replay(GameConfig(("A", "B", "C"), kind=GameKind.STORY), demo_data(), events)


def test_simulate_story_reports_victory_points_per_side() -> None:
    report = simulate(2, Length.ROUNDS10, 10, 1, demo_data(), story=True)
    out = report.to_json()
    assert out["mode"] == "story" and out["games"] == 10
    vp = out["average_victory_points"]
    assert isinstance(vp, dict) and sum(vp.values()) == pytest.approx(TOTAL_POINTS_2P)
    assert "mode" not in simulate(2, Length.ROUNDS5, 1, 1, demo_data()).to_json()


def test_a_story_journal_undoes_resumes_and_exports(tmp_path: Path) -> None:
    path = tmp_path / "story.journal"
    config = GameConfig(("Ann", "Bob"), kind=GameKind.STORY)
    with TableGame.start(path, config, demo_data()) as game:
        assert game.journal.setup["mode"] == "story"
        assert game.journal.setup["config"]["mode"] == "story"
        c = game.state.combat
        assert c is not None
        game.submit(DiceThrown((K,) * c.pool))
        game.submit(ChooseAttack(0, "sum"))
        assert engine.actor(game.state) == 1
        undone = game.undo()
        assert undone == ChooseAttack(0, "sum")
        assert engine.actor(game.state) == 0 and game.state.combat is not None
        assert game.state.combat.throws  # the throw stays (a die's result is never undone)
        game.submit(ChooseAttack(0, "sum"))
        state = game.state.summary()
    with TableGame.resume(path) as game:
        assert game.state.summary() == state
        log = export_json(game.config, game.data, game.journal.events())
        events = log["events"]
        assert isinstance(events, list)
        assert [e["event"]["kind"] for e in events] == ["dice", "attack"]
        assert any("damage" in line for line in events[1]["changes"])
        assert log["mode"] == "story" and log["victory_points"] == {"green": 0, "red": 0}
    tournament = GameConfig(("Ann", "Bob")).to_dict()
    assert "mode" not in tournament  # a Tournament journal's set-up is unchanged


@pytest.mark.slow
@pytest.mark.timeout(180)
def test_a_story_game_killed_at_chosen_events_resumes_to_the_same_end(tmp_path: Path) -> None:
    seed, players = 12, 2
    expected = play_game(GameConfig(("P1", "P2"), kind=GameKind.STORY), demo_data(), seed)
    total = expected.events
    path = tmp_path / "kill.journal"
    cmd = toptable("game", "play", str(path), "--story", "--players", str(players),
                   "--seed", str(seed), "--json")  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    for point in sorted(random.Random(2).sample(range(10, total - 10), 3)):
        kill = kill_at(cmd, path, point, timeout_s=60, env=env)
        assert kill.mid_game, kill
        with TableGame.resume(path) as game:
            assert not game.state.over
    done = run_json(cmd, timeout_s=60, env=env)
    assert done == json.loads(json.dumps(expected.state.summary(), sort_keys=True))
    with TableGame.resume(path) as game:
        assert game.state.over and len(game.journal) == total


def test_story_stakes_name_the_other_sides_attempt_as_the_engine_plays_it() -> None:
    """What the advisor plays for (engine.story_stakes): green first against red's attempt to
    come (its fighter, dice and rerolls as the engine gives them when red throws, the square's
    combo); red second against green's damage; a tie goes to red (green_takes, the one rule)."""
    s = _story()
    green_c = s.combat
    assert green_c is not None and engine.story_stakes(s) is not None
    green = engine.story_stakes(s)
    assert green is not None and green.side is StorySide.GREEN and green.other_damage is None
    s = engine.apply(s, DiceThrown((Symbol.KICK,) * green_c.pool))
    (_, thirty), *_ = engine.attack_options(s)
    s = engine.apply(s, ChooseAttack(green_c.attacker_seat, "sum"))
    red_c, red = s.combat, engine.story_stakes(s)
    assert red_c is not None and red is not None
    assert green.other == s.data.fighter(red_c.striker, red_c.defender_form)
    assert (green.other_pool, green.other_rerolls, green.other_cards) == (
        red_c.pool, red_c.max_rerolls, red_c.cards,
    )  # fmt: skip
    assert red.side is StorySide.RED and red.other_damage == thirty == 30
    assert red.other == s.data.fighter(green_c.striker, green_c.attacker_form)
    assert (red.other_pool, red.other_rerolls) == (green_c.pool, green_c.max_rerolls)
    assert green_takes(31, 30) and not green_takes(30, 30)
    assert takes(StorySide.RED, 30, 30) and not takes(StorySide.GREEN, 30, 30)
    s = engine.apply(s, DiceThrown((Symbol.TELEPORT,) * red_c.pool))
    s = engine.apply(s, ChooseAttack(red_c.defender_seat, engine.attack_options(s)[0][0]))
    assert s.phase is Phase.STORY_FIGHT and engine.story_stakes(s) is None  # square 2


def test_a_story_game_given_45_minutes_plays_its_13_squares_without_time_up() -> None:
    """B l.231: Story ends after square 13. A simulated Story game given the 45-minute
    length journalled a time-up after 40 turns (the table's own clock already ran none)."""
    config = GameConfig(("A", "B", "C", "D"), Length.MINUTES45, kind=GameKind.STORY)
    assert not config.timed and GameConfig(("A", "B"), Length.MINUTES45).timed
    events: list[GameEvent] = []

    def keep(event: GameEvent) -> GameState:
        events.append(event)
        return engine.replay(config, demo_data(), events)

    out = play_game(config, demo_data(), seed=9, submit=keep)
    assert out.state.over and not any(isinstance(e, TimeUp) for e in events)
