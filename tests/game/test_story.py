"""Story mode (docs/rules.md §12): the squares file, a square's throws, ties, several fights, the end."""

from __future__ import annotations

import pytest

from controller.core.errors import DataError, IllegalActionError, InvalidThrowError
from controller.core.kinds import GameKind
from controller.core.symbols import parse_symbols
from controller.game.events import ChooseAttack, ChooseFight, DiceThrown
from controller.game.simulate import play_game
from controller.game.state import GameConfig
from controller.game.story import (
    apply_story,
    new_story,
    story_actions,
    story_actor,
    story_options,
    story_pool,
)
from controller.gamedata.story import MULTI_FIGHT_SQUARES, Story, load_story, parse_story
from tests.game.helpers import demo_data
from tests.paths import REPO

DEMO = REPO / "controller" / "data" / "demo" / "story.toml"


def _story() -> Story:
    return load_story(DEMO, demo_data().roster)


def test_demo_squares_are_invented_and_complete() -> None:
    story = _story()
    assert story.invented and "INVENTED" in DEMO.read_text(encoding="utf-8")
    assert [sq.number for sq in story.squares] == list(range(1, 14))
    assert {sq.number for sq in story.squares if len(sq.fights) > 1} == MULTI_FIGHT_SQUARES


def test_malformed_story_reports_every_problem() -> None:
    data = {
        "square": [
            {"number": 1, "fights": [["Son Goku", "Nobody"]], "combo": {"symbols": ["kick"], "damage": 5}, "points": 1},
            {"number": 2, "fights": [["Son Goku", "Jiren"]], "combo": {"symbols": ["fist"], "damage": -1}, "points": 0},
            {"number": 3, "fights": [["Son Goku", "Jiren"], ["Hit", "Toppo"]], "combo": {"symbols": ["star"], "damage": 5}, "points": 1},
            {"number": 3, "fights": [["Son Goku", "Jiren"]], "combo": {"symbols": ["kick"], "damage": 5}, "points": 1, "colour": 1},
            {"number": 4, "fights": [["Son Goku", "Jiren"]], "combo": {"symbols": ["kick"], "damage": 5}, "points": 1},
            {"number": 4, "fights": [["Son Goku", "Jiren"]], "combo": {"symbols": ["kick"], "damage": 5}, "points": 1},
            {"number": 14},
        ]
    }  # fmt: skip
    with pytest.raises(DataError) as info:
        parse_story(data, "story.toml", demo_data().roster)
    text = str(info.value)
    for needle in (
        "square 1: field 'fights': unknown warrior 'Nobody'",
        "square 2: field 'fights': this square offers several fights",
        "square 2: field 'combo': unknown symbol 'fist'",
        "square 2: field 'combo': damage",
        "square 2: field 'points'",
        "square 3: field 'fights': this square has exactly one fight",
        "square 3: field 'combo': a combo cannot ask for a star",
        "square 4: field 'number': duplicate square number",
        "square 3: field 'colour': unknown key",
        "square #7: field 'number'",
    ):
        assert needle in text, needle
    with pytest.raises(DataError, match="squares missing: 2, 3"):
        parse_story({"square": [{"number": n, "fights": [["Hit", "Jiren"]] * (2 if n in MULTI_FIGHT_SQUARES else 1),
                                 "combo": {"symbols": ["kick"], "damage": 5}, "points": 1}
                                for n in range(1, 14) if n not in (2, 3)]}, "story.toml")  # fmt: skip


def test_a_square_higher_damage_wins_and_a_tie_is_thrown_again() -> None:
    s = new_story(_story(), demo_data().roster, ("Ann", "Bob"))
    assert story_actor(s) == 0 and story_pool(s) == (3, 2)  # Son Goku: power 3, technique 2
    with pytest.raises(InvalidThrowError, match="throws 3 dice"):
        apply_story(s, DiceThrown(parse_symbols("kick,kick")))
    with pytest.raises(IllegalActionError, match="out of turn"):
        apply_story(s, ChooseAttack(1, "sum"))
    s = apply_story(s, DiceThrown(parse_symbols("kick,kick,strength")))
    assert dict(story_options(s))["Square 1 Combo"] == 19
    s = apply_story(s, ChooseAttack(0, "square 1 combo"))
    assert story_actor(s) == 1 and story_pool(s) == (5, 3)  # Jiren
    s = apply_story(s, DiceThrown(parse_symbols("kick,kick,strength,star,star")))
    assert dict(story_options(s))["Jiren Rush"] == 16
    s = apply_story(s, ChooseAttack(1, "Square 1 Combo"))  # 19 v 19: thrown again
    b = s.current
    assert b is not None and b.rethrows == 1 and b.green_damage is None and s.square == 0
    s = apply_story(s, DiceThrown(parse_symbols("kick,kick,strength")))
    s = apply_story(s, ChooseAttack(0, "Square 1 Combo"))
    s = apply_story(s, DiceThrown(parse_symbols("kick,kick,strength,star,star")))
    s = apply_story(s, ChooseAttack(1, "Jiren Rush"))
    assert s.points == (s.story.squares[0].points, 0) and s.square == 1
    # square 2 offers several fights: the green player chooses
    assert [a.fight for a in story_actions(s) if isinstance(a, ChooseFight)] == [0, 1, 2]
    with pytest.raises(IllegalActionError, match="choose the fight first"):
        apply_story(s, DiceThrown(parse_symbols("kick,kick,kick")))
    s = apply_story(s, ChooseFight(0, 1))
    assert s.fighters(s.bouts[0]) == ("Son Gohan", "Dyspo")


def test_four_players_play_two_fights_on_a_multi_fight_square() -> None:
    s = new_story(_story(), demo_data().roster, ("P1", "P2", "P3", "P4"))
    assert [(b.green_seat, b.red_seat) for b in s.bouts] == [(0, 1)]
    while s.square < 1:
        s = apply_story(s, next(a for a in story_actions(s)) if s.current and s.current.throws
                        else DiceThrown(parse_symbols(",".join(["kick"] * story_pool(s)[0]))))  # fmt: skip
    assert [(b.green_seat, b.red_seat) for b in s.bouts] == [(0, 1), (2, 3)]
    s = apply_story(s, ChooseFight(0, 2))
    assert story_actor(s) == 0 and s.bouts[0].fight == 2
    for seat in (0, 1):  # P1 then P2 throw and cash in
        s = apply_story(s, DiceThrown(parse_symbols(",".join(["kick"] * story_pool(s)[0]))))
        s = apply_story(s, ChooseAttack(seat, "sum"))
    assert story_actor(s) == 2  # now P3 chooses among the fights left
    assert [a.fight for a in story_actions(s) if isinstance(a, ChooseFight)] == [0, 1]
    with pytest.raises(IllegalActionError, match="choose a free fight"):
        apply_story(s, ChooseFight(2, 2))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_whole_story_games_end_after_13_squares(players: int) -> None:
    config = GameConfig(tuple(f"P{i + 1}" for i in range(players)), kind=GameKind.STORY)
    for seed in range(3):
        s = play_game(config, demo_data(), seed).state.story
        assert s is not None and s.over and s.winners
        assert len(s.log) >= 13
        assert max(s.points) == s.points[s.winners[0]]
    with pytest.raises(IllegalActionError, match="2 to 4 players"):
        new_story(_story(), demo_data().roster, ("A",) * 5)


def test_cli_story(capsys: pytest.CaptureFixture[str]) -> None:
    from controller.cli.main import main

    assert main(["story", "simulate", "--players", "2", "--games", "3", "--json"]) == 0
    assert '"games": 3' in capsys.readouterr().out
    assert main(["story", "simulate", "--players", "5"]) == 2
