"""Story mode's own rules (docs/rules.md §12, B): the squares file, the pairs, the fight
chosen together, who takes a square, the end."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.cli.main import main
from controller.core.errors import DataError, IllegalActionError
from controller.game.story import (
    StoryState,
    choose_fight,
    new_story,
    pairs_for,
    record_damage,
    story_actions,
    story_actor,
)
from controller.gamedata.story import MULTI_FIGHT_SQUARES, Story, load_story, parse_story
from tests.game.helpers import demo_data
from tests.paths import REPO

DEMO = REPO / "controller" / "data" / "demo" / "story.toml"


def _story() -> Story:
    return load_story(DEMO, demo_data().roster)


def test_demo_squares_are_invented_complete_and_square_1_is_the_books() -> None:
    story = _story()
    assert story.invented and "INVENTED" in DEMO.read_text(encoding="utf-8")
    assert [sq.number for sq in story.squares] == list(range(1, 14))
    assert {sq.number for sq in story.squares if len(sq.fights) > 1} == MULTI_FIGHT_SQUARES
    # B l.188, l.211: on square 1, Son Goku in Super Saiyan 3 (green) against Beerus (red)
    assert story.squares[0].fights == (("Super Saiyan 3 Son Goku", "Beerus"),)
    beerus = demo_data().roster["Beerus"]
    assert beerus.story_only  # a warrior, but never drafted nor met on a green space


def _square(number: int, fights: list[list[str]]) -> dict[str, object]:
    return {"number": number, "fights": fights, "combo": {"symbols": ["kick"], "damage": 5},
            "points": 1}  # fmt: skip


def test_malformed_story_reports_every_problem() -> None:
    data = {
        "square": [
            {"number": 1, "fights": [["Son Goku", "Nobody"]], "combo": {"symbols": ["kick"], "damage": 5}, "points": 1},
            {"number": 2, "fights": [["Son Goku", "Jiren"]], "combo": {"symbols": ["fist"], "damage": -1}, "points": 0},
            {"number": 3, "fights": [["Son Goku", "Jiren"], ["Hit", "Toppo"]], "combo": {"symbols": ["star"], "damage": 5}, "points": 1},
            {"number": 3, "fights": [["Son Goku", "Jiren"]], "combo": {"symbols": ["kick"], "damage": 5}, "points": 1, "colour": 1},
            {"number": 4, "fights": [["Son Goku", "Jiren"]], "combo": {"symbols": ["kick"], "damage": 5}, "points": 1},
            {"number": 4, "fights": [["Son Goku", "Jiren"]], "combo": {"symbols": ["kick"], "damage": 5}, "points": 1},
            _square(7, [["Super Saiyan 9 Son Goku", "Beerus"]]),
            _square(9, [["Beerus"]]),
            _square(10, [["", "Beerus"]]),
            _square(12, [["Son Goku", "Super Saiyan Son Goku"]]),
            # the square's combo named as a fighter's, or as the sum: a player names the
            # option they score, and the table recorded the other one (review helper 87)
            {"number": 5, "fights": [["Son Goku", "Jiren"], ["Hit", "Toppo"]], "points": 1,
             "combo": {"name": "goku blast", "symbols": ["kick"], "damage": 40}},
            {"number": 6, "fights": [["Hit", "Jiren"], ["Hit", "Toppo"]], "points": 1,
             "combo": {"name": "Sum", "symbols": ["kick"], "damage": 40}},
            {"number": 14},
        ]
    }  # fmt: skip
    with pytest.raises(DataError) as info:
        parse_story(data, "story.toml", demo_data().roster)
    text = str(info.value)
    for needle in (
        "square 1: field 'fights': fight 1: unknown warrior 'Nobody'",
        "square 2: field 'fights': this square offers several fights",
        "square 2: field 'combo': unknown symbol 'fist'",
        "square 2: field 'combo': damage",
        "square 2: field 'points'",
        "square 3: field 'fights': this square has exactly one fight",
        "square 3: field 'combo': a combo cannot ask for a star",
        "square 4: field 'number': duplicate square number",
        "square 3: field 'colour': unknown key",
        "square 7: field 'fights': fight 1: unknown form 'Super Saiyan 9 Son Goku' of Son Goku",
        "square 9: field 'fights': fight 1 has no red warrior",
        "square 10: field 'fights': fight 1 has no green warrior",
        "square 12: field 'fights': fight 1: Son Goku cannot fight himself",
        "square #13: field 'number'",
        "square 5: field 'combo': name: 'goku blast' is also a combo of Son Goku, who fights",
        "square 6: field 'combo': name: 'Sum' names another option (the symbol sum",
    ):
        assert needle in text, needle
    with pytest.raises(DataError, match="squares missing: 2, 3"):
        parse_story({"square": [{"number": n, "fights": [["Hit", "Jiren"]] * (2 if n in MULTI_FIGHT_SQUARES else 1),
                                 "combo": {"symbols": ["kick"], "damage": 5}, "points": 1}
                                for n in range(1, 14) if n not in (2, 3)]}, "story.toml")  # fmt: skip


def test_data_check_names_file_square_and_field_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main(["data", "init", str(tmp_path / "own")])
    story = tmp_path / "own" / "story.toml"
    text = story.read_text(encoding="utf-8")
    story.write_text(text.replace('"Beerus"]]', '"Super Saiyan Beerus"]]', 1), encoding="utf-8")
    capsys.readouterr()
    assert main(["data", "check", str(tmp_path / "own")]) == 2
    bad = [line for line in capsys.readouterr().out.splitlines() if line.startswith("bad ")]
    assert len(bad) == 1, bad
    assert str(story) in bad[0] and "square 1" in bad[0] and "'fights'" in bad[0]
    assert "unknown form 'Super Saiyan Beerus' of Beerus" in bad[0]


@pytest.mark.parametrize(
    ("players", "square", "several", "pairs"),
    [
        (2, 1, False, [(0, 1)]),
        (2, 2, True, [(0, 1)]),
        (3, 1, False, [(0, 1)]),
        (3, 2, True, [(2, 1)]),  # B l.225: P3 against P2 on square 2 with 3 players
        (3, 5, True, [(0, 1)]),  # one fight on a square with several, with 2 or 3 (B l.223)
        (4, 2, True, [(2, 3), (0, 1)]),  # 4 players: two of the fights (B l.223)
        (4, 4, False, [(2, 3)]),  # P3 against P4 with 4 players (B l.225)
        (4, 13, False, [(0, 1)]),
    ],
)
def test_pairs_alternate_as_bs_example(
    players: int, square: int, several: bool, pairs: list[tuple[int, int]]
) -> None:
    assert pairs_for(players, square, several) == pairs


def _at_square_2(players: int) -> StoryState:
    s = new_story(_story(), tuple(f"P{i + 1}" for i in range(players)))
    s = record_damage(s, 20)  # green (P1) on square 1
    return record_damage(s, 10)  # red (P2)


def test_a_fight_is_chosen_when_both_players_agree() -> None:
    s = _at_square_2(2)
    assert s.square == 1 and s.points == (s.story.squares[0].points, 0)
    assert story_actor(s) == 0  # green proposes first
    assert [a.fight for a in story_actions(s)] == [0, 1, 2]
    with pytest.raises(IllegalActionError, match="out of turn"):
        choose_fight(s, 1, 0)
    s = choose_fight(s, 0, 1)  # green proposes fight 1
    b = s.current
    assert b is not None and b.fight is None and story_actor(s) == 1
    assert [a.fight for a in story_actions(s)] == [1, 0, 2]  # the proposal first
    s = choose_fight(s, 1, 2)  # red proposes another
    assert story_actor(s) == 0 and s.current is not None and s.current.fight is None
    s = choose_fight(s, 0, 2)  # green agrees
    b = s.current
    assert b is not None and b.fight == 2 and story_actor(s) == 0
    assert s.fighters(b) == ("Piccolo", "Kakunsa")
    with pytest.raises(IllegalActionError, match="no fight to choose"):
        choose_fight(s, 0, 1)


def test_with_four_players_the_second_pair_chooses_among_the_other_fights() -> None:
    s = _at_square_2(4)
    assert [(b.green_seat, b.red_seat) for b in s.bouts] == [(2, 3), (0, 1)]
    s = choose_fight(choose_fight(s, 2, 0), 3, 0)  # P3 proposes, P4 agrees
    s = record_damage(record_damage(s, 5), 5)
    assert story_actor(s) == 0 and [a.fight for a in story_actions(s)] == [1, 2]
    with pytest.raises(IllegalActionError, match="choose a free fight"):
        choose_fight(s, 0, 0)


@pytest.mark.parametrize(
    ("green", "red", "winner"), [(21, 20, 0), (20, 20, 1), (0, 0, 1), (19, 20, 1)]
)
def test_green_takes_the_square_only_by_inflicting_more(green: int, red: int, winner: int) -> None:
    """B l.188: green wins the points if its attack inflicts more damage than red's,
    otherwise red wins them; a tie is not thrown again."""
    s = new_story(_story(), ("Ann", "Bob"))
    s = record_damage(record_damage(s, green), red)
    assert s.square == 1
    assert s.points[winner] == s.story.squares[0].points and s.points[1 - winner] == 0
    assert s.log[0] == f"square 1: {('Ann', 'Bob')[winner]} takes 1 ({green} v {red})"


def test_the_story_ends_after_square_13_and_a_tie_is_shared() -> None:
    s = new_story(_story(), ("Ann", "Bob"))
    while not s.over:
        b = s.current
        assert b is not None
        if b.fight is None:
            s = choose_fight(choose_fight(s, b.green_seat, 0), b.red_seat, 0)
        else:
            s = record_damage(s, 10)  # every square a tie: red's
    assert s.winners == (1,) and s.points[0] == 0 and len(s.log) == 13
    with pytest.raises(IllegalActionError, match="2 to 4 players"):
        new_story(_story(), ("A",) * 5)
