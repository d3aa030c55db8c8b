"""The rulebook data set holds every row of A's printed warrior table (A l.380-491), and the
odds command knows each of them."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.cli.main import main
from controller.gamedata import RULEBOOK_DIR
from controller.gamedata.warriors import load_warriors

BOOK_A = "rules/000_1b689245464bc15c.txt"
PRINTED_ROWS = 109  # A l.381-435 and l.438-491


def _printed_rows(book: Path) -> list[tuple[str, int, int, int]]:
    """(name, endurance, power, technique) of every row under A's "WARRIOR" headings."""
    rows: list[tuple[str, int, int, int]] = []
    in_table = False
    for line in book.read_text(encoding="utf-8").splitlines():
        cells = line.split("\t")
        if cells[0] == "WARRIOR":
            in_table = True
            continue
        if in_table and len(cells) == 4 and all(c.strip().isdigit() for c in cells[1:]):
            rows.append((cells[0].strip(), int(cells[1]), int(cells[2]), int(cells[3])))
        elif in_table and line.strip():
            in_table = False
    return rows


def test_every_printed_row_is_in_the_rulebook_data(shared_dir: Path) -> None:
    rows = _printed_rows(shared_dir / BOOK_A)
    assert len(rows) == PRINTED_ROWS
    roster = load_warriors(RULEBOOK_DIR / "warriors.toml").roster
    for name, endurance, power, technique in rows:
        warrior, form = roster.find(name)  # the printed spelling: a name, alias or form
        assert warrior.endurance == endurance, name
        printed = (
            (form.power, form.technique) if form is not None else (warrior.power, warrior.technique)
        )
        assert printed == (power, technique), name
    assert len(roster) + sum(len(w.forms) for w in roster.values()) == PRINTED_ROWS


@pytest.mark.parametrize("name", ["Zoiray", "Transformed Ganos", "Lilibeu", "Dr. Rota"])
def test_odds_on_the_rulebook_data_knows_the_second_page(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["odds", name, "--data", str(RULEBOOK_DIR)])
    err = capsys.readouterr().err
    assert code == 2 and "unknown warrior" not in err
    assert "not printed in the rulebooks" in err and len(err.strip().splitlines()) == 1
