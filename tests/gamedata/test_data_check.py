"""``toptable data check`` is the check every game runs: what it refuses, a game refuses."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from controller.cli.main import main
from controller.core.errors import DataError
from controller.gamedata import DEMO_DIR
from controller.gamedata.bundle import load_game_data
from controller.gamedata.datadir import check_data_dir, init_data_dir


def _own_set(tmp_path: Path) -> Path:
    mine = tmp_path / "mine"
    init_data_dir(mine)
    return mine


def _refused_alike(
    directory: Path, capsys: pytest.CaptureFixture[str], *expected: str
) -> list[str]:
    """data check and a game's loading both refuse ``directory``, naming ``expected``."""
    assert main(["data", "check", str(directory)]) == 2
    out = capsys.readouterr().out
    with pytest.raises(DataError) as refused:
        load_game_data(directory)
    for text in expected:
        assert text in out
        assert text in str(refused.value)
    assert [f"bad {p}" for p in refused.value.problems] == [
        line for line in out.splitlines() if line.startswith("bad ")
    ]
    return out.splitlines()


def test_a_warrior_with_unknown_fields_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mine = _own_set(tmp_path)
    warriors = mine / "warriors.toml"
    text = warriors.read_text(encoding="utf-8")
    first = text.index("dodge = ", text.index('name = "Kefla"'))
    warriors.write_text(
        text[:first] + 'dodge = "unknown"' + text[text.index("\n", first) :], encoding="utf-8"
    )
    lines = _refused_alike(mine, capsys, "warrior 'Kefla': field 'dodge': still \"unknown\"")
    summary = [line for line in lines if line.startswith("!!  warriors.toml: ")]
    assert len(summary) == 1 and re.fullmatch(
        r"!!  warriors\.toml: \d+ warriors \(INVENTED demo values\); 1 with fields still unknown",
        summary[0],
    )


def test_an_empty_warriors_file_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mine = _own_set(tmp_path)
    (mine / "warriors.toml").write_text("# nothing yet\n", encoding="utf-8")
    lines = _refused_alike(mine, capsys, "no warriors: a data set needs [[warrior]] tables")
    assert "0 problem" not in "\n".join(lines)
    assert not any(line.endswith("all data valid") for line in lines)


def test_a_duplicate_warrior_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    mine = _own_set(tmp_path)
    warriors = mine / "warriors.toml"
    text = warriors.read_text(encoding="utf-8")
    jiren = text[
        text.index("[[warrior]]") : text.index("[[warrior]]", text.index("[[warrior]]") + 1)
    ]
    warriors.write_text(text + "\n" + jiren, encoding="utf-8")
    _refused_alike(mine, capsys, "Jiren")


def test_a_bad_value_in_the_base_file_is_named_though_the_set_replaces_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mine = _own_set(tmp_path)
    base = mine / "rulebook-warriors.toml"  # the demo's warriors.toml gives both values anew
    text = base.read_text(encoding="utf-8")
    jiren = text.index('name = "Jiren"')
    dodge = text.index('dodge = "unknown"', jiren)
    text = text[:dodge] + 'dodge = "lots"' + text[dodge + len('dodge = "unknown"') :]
    threshold = text.index('threshold = "unknown"', jiren)
    text = text[:threshold] + "threshold = 0" + text[threshold + len('threshold = "unknown"') :]
    base.write_text(text, encoding="utf-8")
    lines = _refused_alike(
        mine,
        capsys,
        f"{base}: warrior 'Jiren': field 'dodge': expected a whole number 1..6, got 'lots'",
        f"{base}: warrior 'Jiren': field 'form 'Full Power Jiren'.threshold': "
        "expected a whole number 1..6, got 0",
    )
    assert len([line for line in lines if line.startswith("bad ")]) == 2


def _after_first(path: Path, line: str, added: str) -> None:
    """Write ``added`` on the line after the first ``line`` of ``path``."""
    text = path.read_text(encoding="utf-8")
    at = text.index("\n", text.index(line)) + 1
    path.write_text(text[:at] + added + "\n" + text[at:], encoding="utf-8")


def test_an_empty_board_name_and_notes_that_are_not_text_are_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mine = _own_set(tmp_path)
    board = mine / "board.toml"
    board.write_text(
        board.read_text(encoding="utf-8").replace('name = "example-grid-7x6"', 'name = " "'),
        encoding="utf-8",
    )
    _after_first(board, "example = true", "note = 3")
    _after_first(mine / "cards.toml", "invented = true", 'note = ["x"]')
    _after_first(mine / "story.toml", "invented = true", "note = 1.5")
    _after_first(mine / "warriors.toml", 'name = "Kefla"', "note = 7")
    _refused_alike(
        mine,
        capsys,
        f"{board}: field 'name': expected a non-empty string, got ' '",
        f"{board}: field 'note': expected text, got 3",
        f"{mine / 'cards.toml'}: field 'note': expected text, got ['x']",
        f"{mine / 'story.toml'}: field 'note': expected text, got 1.5",
        "warriors.toml: warrior 'Kefla': field 'note': expected text, got 7",
    )


def test_a_name_with_a_nul_character_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # a name the journal, the scoreboard and the screens carry on (warriors: test_warriors.py)
    mine = _own_set(tmp_path)
    for file, old, new in (
        ("board.toml", 'name = "example-grid-7x6"', 'name = "example\\u0000grid"'),
        ("board.toml", "sensor = 0\n", 'sensor = 0\nname = "Start\\u0000"\n'),
        ("cards.toml", 'name = "Kamehameha"', 'name = "Kame\\u0000hameha"'),
        ("story.toml", 'name = "Square 1 Combo"', 'name = "Square\\u0000Combo"'),
        ("story.toml", "number = 2\n", 'number = 2\nname = "Two\\u0000"\n'),
    ):
        path = mine / file
        path.write_text(path.read_text(encoding="utf-8").replace(old, new, 1), encoding="utf-8")
    nul = "expected a name without a NUL character (\\u0000), got "
    _refused_alike(
        mine,
        capsys,
        f"{mine / 'board.toml'}: field 'name': {nul}'example\\x00grid'",
        f"{mine / 'board.toml'}: space 0: field 'name': {nul}'Start\\x00'",
        f"{mine / 'cards.toml'}: card #1: field 'name': {nul}'Kame\\x00hameha'",
        f"{mine / 'story.toml'}: square 1: field 'combo': name: {nul}'Square\\x00Combo'",
        f"{mine / 'story.toml'}: square 2: field 'name': {nul}'Two\\x00'",
    )


def test_a_byte_order_mark_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    mine = _own_set(tmp_path)
    board = mine / "board.toml"
    board.write_bytes(b"\xef\xbb\xbf" + board.read_bytes())
    _refused_alike(mine, capsys, "byte-order mark")


def test_a_set_without_a_board_checks_but_does_not_play(tmp_path: Path) -> None:
    mine = _own_set(tmp_path)
    (mine / "board.toml").unlink()
    report = check_data_dir(mine)
    assert report.ok
    assert "--  board.toml: absent (needed for a game)" in report.lines
    with pytest.raises(DataError, match=r"board\.toml: missing: a game needs board\.toml"):
        load_game_data(mine)


def test_the_demo_set_checks_and_plays() -> None:
    report = check_data_dir(DEMO_DIR)
    assert report.ok, report.problems
    assert all(line.startswith(("ok  ", "--  ")) for line in report.lines)
    assert report.warriors is not None
    assert load_game_data(DEMO_DIR).roster.keys() == report.warriors.roster.keys()


def test_a_failed_init_leaves_nothing(tmp_path: Path) -> None:
    source = tmp_path / "source"
    (source / "more").mkdir(parents=True)
    shutil.copy(DEMO_DIR / "board.toml", source / "board.toml")
    (source / "warriors.toml").write_text('base = "more/warriors.toml"\n', encoding="utf-8")
    (source / "more" / "warriors.toml").write_text('base = "broken\n', encoding="utf-8")
    dest = tmp_path / "out" / "mine"
    with pytest.raises(DataError, match=r"more/warriors\.toml"):
        init_data_dir(dest, source)
    assert list((tmp_path / "out").iterdir()) == []


HUGE = '"' + "y" * 100_000 + '"'
MANY = "[" + "1, " * 5000 + "]"
QUOTED = "'" + "y" * 40 + "...' (100000 characters)"  # HUGE, as short_repr quotes it
LISTED = "[" + "1, " * 14 + "... (5000 items)]"  # MANY, so


@pytest.mark.parametrize(
    ("file", "old", "new", "said"),
    [
        ("warriors.toml", "values = { kick = 4,", f"values = {{ kick = {HUGE},",
         f"warrior 'Jiren': field 'values.kick': expected a whole number 0..99, got {QUOTED}"),
        ("warriors.toml", "values = { kick = 4,", f"values = {{ kick = {MANY},",
         f"warrior 'Jiren': field 'values.kick': expected a whole number 0..99, got {LISTED}"),
        ("warriors.toml", 'ability = { kind = "solo" }', f"ability = {{ kind = {HUGE} }}",
         f"warrior 'Jiren': field 'ability.kind': unknown ability {QUOTED}; expected one of "),
        ("warriors.toml", '["punch", "punch", "strength"]', f'["punch", {HUGE}, "strength"]',
         f"warrior 'Jiren': field 'combos[0].symbols': unknown symbol {QUOTED}; expected one of "),
        ("story.toml", "number = 1\n", f"number = {HUGE}\n",
         f"square #1: field 'number': expected a whole number 1..13, got {QUOTED}"),
        ("story.toml", "points = 1\n", f"points = {MANY}\n",
         f"square 1: field 'points': expected a whole number 1..99, got {LISTED}"),
        ("story.toml", '[["Super Saiyan 3 Son Goku", "Beerus"]]', f"[{MANY}]",
         f"square 1: field 'fights': fight 1: expected [green warrior, red warrior], got {LISTED}"),
        ("cards.toml", "copies = 3\n", f"copies = {HUGE}\n",
         f"card 'Kamehameha': field 'copies': expected a whole number 1..20, got {QUOTED}"),
        ("cards.toml", "amount = 22 }", f"amount = {MANY} }}",
         f"card 'Kamehameha': field 'effect': amount: expected a whole number 0..200, got {LISTED}"),
    ],
)  # fmt: skip
def test_a_huge_value_is_shown_in_part(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], file: str, old: str, new: str, said: str
) -> None:
    """A value of 100,000 characters, or a list of 5,000 items, is quoted by its start and
    size: each problem stays a line of bounded length (it was printed whole), naming the
    entry and the field, and the value by its start and size."""
    mine = _own_set(tmp_path)
    path = mine / file
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    assert main(["data", "check", str(mine)]) == 2
    bad = [line for line in capsys.readouterr().out.splitlines() if line.startswith("bad ")]
    assert bad and max(len(line) for line in bad) < 500, bad
    assert any(line.startswith(f"bad {path}: {said}") for line in bad), bad
