"""Loading and validating warrior files: the bundled data and every kind of bad input."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from controller.cli.main import main
from controller.core.errors import DataError, UnknownNameError
from controller.core.quoting import short_repr
from controller.core.symbols import Symbol
from controller.gamedata import DEMO_DIR, RULEBOOK_DIR
from controller.gamedata.warriors import load_warriors
from controller.rules.warriors import AbilityKind

GOOD = """
[[warrior]]
name = "Alpha"
aliases = ["Alfa"]
endurance = 20
power = 4
technique = 2
values = { kick = 1, punch = 2, sphere = 3, strength = 4 }
dodge = 3
ability = { kind = "attacker_fewer_dice", n = 2 }
combos = [{ name = "Hit", symbols = ["kick", "punch"], damage = 10 }]
  [[warrior.form]]
  name = "Super Alpha"
  threshold = 4
  power = 5
  technique = 3
  divisor = 2
  cost = 1
"""


def _write(tmp_path: Path, text: str, name: str = "warriors.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_rulebook_table_is_complete_and_real() -> None:
    wf = load_warriors(RULEBOOK_DIR / "warriors.toml")
    roster = wf.roster
    assert wf.invented is False
    assert len(roster) == 82
    assert sum(len(w.forms) for w in roster.values()) == 27  # 109 rows in the printed table
    goku = roster["Son Goku"]
    assert (goku.endurance, goku.power, goku.technique, goku.transform_dice) == (34, 3, 2, 2)
    assert len(goku.forms) == 8
    assert roster.find("Tooppo")[0].name == "Toppo"
    assert roster.find("Freezer")[0].name == "Frieza"
    warrior, form = roster.find("Full Power Jiren")
    assert warrior.name == "Jiren" and form is not None and (form.power, form.technique) == (6, 4)
    assert roster["Vegeta"].ability.kind is AbilityKind.SOLO
    assert {"values", "combos"} <= roster["Hit"].unknown


def test_demo_set_completes_every_warrior_and_says_it_is_invented() -> None:
    wf = load_warriors(DEMO_DIR / "warriors.toml")
    assert wf.invented is True
    assert "INVENTED" in (DEMO_DIR / "warriors.toml").read_text(encoding="utf-8")
    assert all(not w.unknown for w in wf.roster.values())
    kefla = wf.roster.fighter("Kefla")
    assert kefla.values[Symbol.SPHERE] == 3 and kefla.values[Symbol.PUNCH] == 4
    assert kefla.warrior.endurance == 32  # from the rulebook file, not restated


def test_good_file_loads_with_forms_and_aliases(tmp_path: Path) -> None:
    roster = load_warriors(_write(tmp_path, GOOD)).roster
    fighter = roster.fighter("alfa", "Super Alpha")
    assert (fighter.power, fighter.technique, fighter.divisor, fighter.cost) == (5, 3, 2, 1)
    assert fighter.values[Symbol.STRENGTH] == 4  # the form prints none: the base card's
    assert fighter.ability.n == 2
    with pytest.raises(UnknownNameError, match="has no form 'Mega Alpha'"):
        roster.fighter("Alpha", "Mega Alpha")


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (('"kick", "punch"]', '"kick", "fist"]'), "'combos[0].symbols': unknown symbol 'fist'"),
        (("endurance = 20\n", ""), "field 'endurance': missing"),
        (
            (
                'symbols = ["kick", "punch"]',
                'symbols = ["kick", "kick", "kick", "kick", "kick", "kick", "kick"]',
            ),
            "7 symbols, but a pool never has more than 6 dice",
        ),
        (("threshold = 4", "threshold = 7"), "threshold': expected a whole number 1..6, got 7"),
        (
            ('kind = "attacker_fewer_dice", n = 2', 'kind = "attacker_fewer_dice"'),
            "needs n = 1 or 2",
        ),
        (('kind = "attacker_fewer_dice", n = 2', 'kind = "flying"'), "unknown ability 'flying'"),
        (("strength = 4 }", "strength = 4, star = 1 }"), "star and teleport are worth 0"),
        (("sphere = 3, ", ""), "missing the value of sphere"),
        (('symbols = ["kick", "punch"]', 'symbols = ["kick", "star"]'), "cannot ask for a star"),
        (("dodge = 3", "dodge = 9"), "field 'dodge': expected a whole number 1..6"),
        (("power = 4", "power = 4\nheight = 2"), "field 'height': unknown key"),
    ],
)
def test_each_problem_names_file_warrior_and_field(
    tmp_path: Path, change: tuple[str, str], expected: str
) -> None:
    path = _write(tmp_path, GOOD.replace(*change, 1))
    with pytest.raises(DataError) as info:
        load_warriors(path)
    text = str(info.value)
    assert str(path) in text
    assert "warrior 'Alpha'" in text
    assert expected in text


def test_all_problems_are_reported_at_once(tmp_path: Path) -> None:
    text = GOOD.replace("power = 4", "power = 9").replace("dodge = 3", "dodge = 0") + GOOD.replace(
        '"Alpha"', '"Beta"'
    ).replace('"Alfa"', '"Bet"').replace('"Super Alpha"', '"Super Beta"').replace(
        "cost = 1", "cost = -1"
    )
    with pytest.raises(DataError) as info:
        load_warriors(_write(tmp_path, text))
    fields = sorted((p.entry, p.field) for p in info.value.problems)
    assert fields == [
        ("warrior 'Alpha'", "dodge"),
        ("warrior 'Alpha'", "power"),
        ("warrior 'Beta'", "form 'Super Beta'.cost"),
    ]


def test_duplicate_names_and_alias_clashes(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="duplicate warrior name"):
        load_warriors(_write(tmp_path, GOOD + GOOD))
    clash = GOOD + GOOD.replace('"Alpha"', '"Gamma"').replace('"Super Alpha"', '"Super Gamma"')
    with pytest.raises(DataError, match="'Alfa' is also a name of 'Alpha'") as info:
        load_warriors(_write(tmp_path, clash))
    # said of the field the clashing name is written in, not of the warrior's name
    assert {(p.entry, p.field) for p in info.value.problems} >= {
        ("warrior 'Gamma'", "aliases"),
    }


def test_thresholds_must_rise(tmp_path: Path) -> None:
    two_forms = (
        GOOD
        + '  [[warrior.form]]\n  name = "Hyper Alpha"\n  threshold = 3\n  power = 6\n  technique = 3\n  divisor = 3\n  cost = 2\n'
    )
    with pytest.raises(DataError, match=r"thresholds must rise in form order \(3 after 4\)"):
        load_warriors(_write(tmp_path, two_forms))


def test_a_base_file_is_completed_and_its_problems_named(tmp_path: Path) -> None:
    _write(
        tmp_path,
        GOOD.replace(
            "values = { kick = 1, punch = 2, sphere = 3, strength = 4 }", 'values = "unknown"'
        ),
        "base.toml",
    )
    over = _write(
        tmp_path,
        'base = "base.toml"\n[[warrior]]\nname = "Alpha"\nvalues = { kick = 1, punch = 1, sphere = 1, strength = "x" }\n',
        "over.toml",
    )
    with pytest.raises(DataError) as info:
        load_warriors(over)
    assert f"{over}: warrior 'Alpha': field 'values.strength'" in str(info.value)


def test_a_name_the_base_spells_otherwise_or_an_empty_base_is_said_once(tmp_path: Path) -> None:
    """Review fuzz f04: the base's Alpha renamed, the completing file's Alpha was said
    missing endurance, power and technique, each twice (missing, then "got None"), all
    of the completing file; a base cut short, every warrior so (610 lines)."""
    over_text = 'base = "base.toml"\n[[warrior]]\nname = "Alpha"\ndodge = 2\n'
    _write(tmp_path, GOOD.replace('"Alpha"', '"Alpah"'), "base.toml")
    over = _write(tmp_path, over_text, "over.toml")
    with pytest.raises(DataError) as info:
        load_warriors(over)
    assert str(info.value) == (
        f"{over}: warrior 'Alpha': field 'name': in none of its base files (base.toml), and "
        "it gives no endurance, power, technique, values, ability, combos: the base's name "
        "spelt otherwise, or a warrior new here needs them"
    )
    base = _write(tmp_path, "# cut short\n", "base.toml")
    with pytest.raises(DataError) as info:
        load_warriors(over)
    assert str(info.value) == (
        f"{base}: field 'warrior': holds no [[warrior]] tables; expected the warriors the "
        "files naming it as their base complete"
    )
    # a base of the die's faces alone, completed by whole warriors: no mistake (diff17 f02)
    _write(tmp_path, '[die]\nname = "two stars"\nfaces = ["kick", "punch", "sphere", '
           '"strength", "star", "star"]\n', "base.toml")  # fmt: skip
    whole = _write(tmp_path, 'base = "base.toml"\n' + GOOD, "whole.toml")
    assert load_warriors(whole).die.name == "two stars"
    alone = _write(tmp_path, GOOD.replace("power = 4\n", "", 1), "alone.toml")
    with pytest.raises(DataError) as info:
        load_warriors(alone)
    assert [(p.entry, p.field) for p in info.value.problems] == [("warrior 'Alpha'", "power")]


@pytest.mark.parametrize("base", ["nope.toml", ".", "y" * 100_000])
def test_a_base_that_is_no_file_is_named_in_the_file_that_names_it(
    tmp_path: Path, base: str
) -> None:
    """The base a warriors file names is missing, a folder, or a name the system refuses:
    said of that file's field 'base' (the path it made was named alone, and a 100,000
    character name in full)."""
    over = _write(tmp_path, f'base = "{base}"\n' + GOOD, "over.toml")
    with pytest.raises(DataError) as info:
        load_warriors(over)
    assert str(info.value) == (
        f"{over}: field 'base': names {short_repr(base)}, which is no file; expected the path "
        "of the warriors file this one completes, relative to this file"
    )


def test_unknown_fields_block_fighting_with_a_clear_message(tmp_path: Path) -> None:
    roster = load_warriors(_write(tmp_path, GOOD.replace("dodge = 3", 'dodge = "unknown"'))).roster
    with pytest.raises(DataError, match=r"'Alpha'.*dodge.*not printed in the rulebooks"):
        roster.fighter("Alpha")


def test_malformed_toml_names_the_file(tmp_path: Path) -> None:
    path = _write(tmp_path, "[[warrior]\nname = 1")
    with pytest.raises(DataError, match="not valid TOML"):
        load_warriors(path)


def test_data_check_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["data", "check"]) == 0
    assert "all data valid" in capsys.readouterr().out
    _write(tmp_path, GOOD.replace("power = 4", "power = 0"))
    assert main(["data", "check", str(tmp_path)]) == 2
    out = capsys.readouterr().out
    assert "field 'power': expected a whole number 1..6, got 0" in out


def test_data_check_validates_cards_and_story_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import shutil

    shutil.copytree(DEMO_DIR, tmp_path / "data")
    data = tmp_path / "data"
    (data / "warriors.toml").write_text(
        (DEMO_DIR / "warriors.toml")
        .read_text(encoding="utf-8")
        .replace(
            'base = "../rulebook/warriors.toml"', f'base = "{RULEBOOK_DIR / "warriors.toml"}"'
        ),
        encoding="utf-8",
    )
    cards = data / "cards.toml"
    cards.write_text(
        cards.read_text(encoding="utf-8").replace('deck = "attack"', 'deck = "weapons"', 1),
        encoding="utf-8",
    )
    assert main(["data", "check", str(data)]) == 2
    out = capsys.readouterr().out
    assert f"bad {cards}" in out
    assert "ok  story.toml: 13 squares (INVENTED)" in out


def test_the_faces_of_the_die_are_data(tmp_path: Path) -> None:
    assert load_warriors(_write(tmp_path, GOOD)).die.faces == tuple(Symbol)
    loaded = load_warriors(
        _write(
            tmp_path,
            '[die]\nname = "two stars"\nfaces = ["kick", "punch", "sphere", "star", "star", "teleport"]\n'
            + GOOD,
        )
    )
    assert loaded.die.name == "two stars"
    assert loaded.die.probabilities()[Symbol.STAR] == pytest.approx(2 / 6)
    with pytest.raises(DataError, match=r"die: field 'faces': expected a non-empty list"):
        load_warriors(_write(tmp_path, '[die]\nfaces = ["kick", "fist"]\n' + GOOD))


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('[die]\nfaces = ["kick"]\n', "die: field 'faces': 1 faces; a die has 6 (docs/rules.md §1)"),
        ("[die]\nfaces = [" + ", ".join(['"kick"'] * 1000) + "]\n",
         "die: field 'faces': 1000 faces; a die has 6"),
        ('[die]\nname = 7\nfaces = ["kick", "punch", "sphere", "strength", "star", "teleport"]\n',
         "die: field 'name': expected the die's name, got 7"),
        ("note = 5\n", "field 'note': expected text, got 5"),
    ],
)  # fmt: skip
def test_a_die_or_note_of_the_wrong_kind_is_named(tmp_path: Path, text: str, problem: str) -> None:
    # a one-face die made every odds 100 %; a number for a note or a name was kept as text
    with pytest.raises(DataError, match=re.escape(problem)):
        load_warriors(_write(tmp_path, text + GOOD))


NUL = "expected a name without a NUL character (\\u0000), got "


@pytest.mark.parametrize(
    ("old", "new", "problem"),
    [
        ('name = "Alpha"', 'name = "Al\\u0000pha"',
         f"warrior #1: field 'name': {NUL}'Al\\x00pha'"),
        ('aliases = ["Alfa"]', 'aliases = ["Al\\u0000fa"]',
         f"warrior 'Alpha': field 'aliases[0]': {NUL}'Al\\x00fa'"),
        ('name = "Hit"', 'name = "H\\u0000it"',
         f"warrior 'Alpha': field 'combos[0].name': {NUL}'H\\x00it'"),
        ('name = "Super Alpha"', 'name = "Super\\u0000Alpha"',
         f"warrior 'Alpha': field 'form 'Super\\x00Alpha'.name': {NUL}'Super\\x00Alpha'"),
        ("[[warrior]]", '[die]\nname = "d\\u00006"\n'
         'faces = ["kick", "punch", "sphere", "strength", "star", "teleport"]\n[[warrior]]',
         f"die: field 'name': {NUL}'d\\x006'"),
    ],
)  # fmt: skip
def test_a_name_with_a_nul_character_is_refused(
    tmp_path: Path, old: str, new: str, problem: str
) -> None:
    # the journal, the scoreboard and the screens carried it on
    path = _write(tmp_path, GOOD.replace(old, new, 1))
    with pytest.raises(DataError) as info:
        load_warriors(path)
    assert str(info.value) == f"{path}: {problem}"


def test_a_warrior_the_data_leaves_unknown_names_its_file() -> None:
    rulebook = load_warriors(RULEBOOK_DIR / "warriors.toml").roster
    with pytest.raises(DataError, match=rf"^{re.escape(str(RULEBOOK_DIR / 'warriors.toml'))}: "
                       r"warrior 'Jiren': field .*values': not printed in the rulebooks"):  # fmt: skip
        rulebook.fighter("Jiren")


@pytest.mark.parametrize("named", ["Goku", "son goku", "  SON GOKU "])
def test_a_warrior_completed_by_an_alias_or_in_another_case_keeps_its_name(
    tmp_path: Path, named: str
) -> None:
    """Review 94: completing the rulebook's Son Goku by his alias "Goku" was refused as a
    name given twice (in no file), and by "son goku" renamed him."""
    demo = (DEMO_DIR / "warriors.toml").read_text(encoding="utf-8")
    text = demo.replace('name = "Son Goku"', f'name = "{named}"', 1).replace(
        'base = "../rulebook/warriors.toml"', f'base = "{RULEBOOK_DIR / "warriors.toml"}"', 1
    )
    assert f'name = "{named}"' in text and str(RULEBOOK_DIR) in text
    roster = load_warriors(_write(tmp_path, text, "warriors.toml")).roster
    assert "Son Goku" in list(roster) and named not in list(roster)


def test_the_name_a_completing_entry_uses_stays_a_name_of_the_warrior(tmp_path: Path) -> None:
    """Review 98: an entry named by the alias "Goku" that set its own aliases lost "Goku"."""
    demo = (DEMO_DIR / "warriors.toml").read_text(encoding="utf-8")
    text = demo.replace('name = "Son Goku"', 'name = "Goku"\naliases = ["Kakarot"]', 1).replace(
        'base = "../rulebook/warriors.toml"', f'base = "{RULEBOOK_DIR / "warriors.toml"}"', 1
    )
    roster = load_warriors(_write(tmp_path, text, "warriors.toml")).roster
    for name in ("Goku", "Kakarot", "son goku"):
        assert roster.find(name)[0].name == "Son Goku"
