"""A name the table tells players (a form, a combo, a card) is given once, whatever its
case and spaces, and a name of the wrong kind is named, not dropped."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.gamedata.datadir import check_data_dir, init_data_dir


def _edited(tmp_path: Path, file: str, old: str, new: str) -> list[str]:
    """The problems of a copy of the demo set with ``old`` replaced by ``new`` in ``file``."""
    mine = tmp_path / "mine"
    init_data_dir(mine)
    path = mine / file
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return [str(p).removeprefix(f"{mine}/") for p in check_data_dir(mine).problems]


FORM = '  name = "Full Power Jiren"\n  threshold = 4'


@pytest.mark.parametrize(
    ("file", "old", "new", "problem"),
    [
        ("warriors.toml", FORM, FORM.replace('"Full Power Jiren"', "5"),
         "warriors.toml: warrior 'Jiren': field 'form 5.name': expected the form's name"),
        ("warriors.toml", FORM, FORM.replace('"Full Power Jiren"', '""'),
         "warriors.toml: warrior 'Jiren': field 'form ''.name': expected the form's name"),
        ("warriors.toml", FORM, FORM + '\n  aliases = ["jiren "]',
         # (said of the field and the file the alias is written in, not the base's name)
         "warriors.toml: warrior 'Jiren': field 'form 'Full Power Jiren'.aliases': "
         "'jiren' is given twice among its names, forms and aliases"),
        ("warriors.toml", 'name = "Toppo"\n', 'name = "Toppo"\naliases = ["Full Power Jiren"]\n',
         # review 105: an owner's alias of a rulebook warrior, said of the owner's file
         "warriors.toml: warrior 'Toppo': field 'aliases': 'Full Power Jiren' is also a name "
         "of 'Jiren'"),
        ("warriors.toml", 'name = "Jiren"\n', 'name = "Jiren"\naliases = ["Tooppo"]\n',
         # review 106: the owner's alias, met before the rulebook's own: the owner's side
         "warriors.toml: warrior 'Jiren': field 'aliases': 'Tooppo' is also a name of 'Toppo'"),
        ("warriors.toml", 'name = "Jiren Rush"', 'name = " jiren  blast"',
         "warriors.toml: warrior 'Jiren': field 'combos[1].name': duplicate combo name "
         "'Jiren Blast'"),
        ("warriors.toml", 'name = "Jiren Rush"', 'name = "Sum "',
         # a player names the option they score: this one hid the symbol sum
         "warriors.toml: warrior 'Jiren': field 'combos[0].name': 'Sum ' names another "
         "option"),
        ("cards.toml", 'name = "Spirit Bomb"', 'name = "Sum"',
         "cards.toml: card 'Sum': field 'name': the symbol sum is named so too: a player "
         "naming it would score the other"),
        ("cards.toml", 'name = "Spirit Bomb"', 'name = "rapid punches "',
         "cards.toml: card 'rapid punches': field 'name': duplicate card name (names "
         "differing in case or spaces are one)"),
        ("story.toml", "invented = true", 'invented = "no"',
         "story.toml: field 'invented': expected true or false, got 'no'"),
        ("story.toml", "damage = 19 }", "damage = 99999999999999 }",
         "story.toml: square 1: field 'combo': damage: expected a whole number 0..999, got "
         "99999999999999"),
        ("story.toml", "damage = 19 }", 'damage = 19, colour = "red" }',
         "story.toml: square 1: field 'combo': unknown key 'colour'; expected name, symbols, "
         "damage"),
        ("story.toml", "points = 1", "points = 99999999999999999",
         "story.toml: square 1: field 'points': expected a whole number 1..99, got "
         "99999999999999999"),
        ("story.toml", 'name = "Square 1 Combo"', "name = 4",
         "story.toml: square 1: field 'combo': name: expected the combo's name, got 4"),
    ],
)  # fmt: skip
def test_a_name_twice_or_of_the_wrong_kind_is_a_problem(
    tmp_path: Path, file: str, old: str, new: str, problem: str
) -> None:
    assert problem in _edited(tmp_path, file, old, new)


def test_the_demo_set_as_shipped_has_no_problem(tmp_path: Path) -> None:
    assert _edited(tmp_path, "cards.toml", 'name = "Spirit Bomb"', 'name = "Spirit Bomb"') == []


def test_a_combo_name_with_spaces_around_is_read_as_a_player_names_it(tmp_path: Path) -> None:
    """A combo named "Jiren Rush " in the file is the option "Jiren Rush": the engine looked
    for the name as the player gives it (bot games crashed, the table refused the combo)."""
    mine = tmp_path / "mine"
    init_data_dir(mine)
    path = mine / "warriors.toml"
    path.write_text(path.read_text().replace('name = "Jiren Rush"', 'name = "Jiren Rush "', 1))
    check = check_data_dir(mine)
    assert not check.problems and check.warriors is not None
    jiren = check.warriors.roster["Jiren"]
    assert jiren.combos[0].name == "Jiren Rush"


@pytest.mark.parametrize("size", [64, 65])
def test_a_form_name_the_scoreboard_would_drop_is_a_problem(tmp_path: Path, size: int) -> None:
    """Review 99: the events carry warrior and form names to the room's scoreboard, which
    dropped every state holding a text of more than 64 characters: the table never showed."""
    long = FORM.replace('"Full Power Jiren"', '"' + "J" * size + '"')
    problems = _edited(tmp_path, "warriors.toml", FORM, long)
    said = (
        f"a name of {size} characters; the scoreboard shows at most 64: shorten it (a longer "
        "one may stay as an alias)"
    )
    assert len([p for p in problems if said in p]) == (0 if size == 64 else 1)
