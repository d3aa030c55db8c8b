"""A huge value from outside (a data or config file, a journal, the command line, the
board's link) is quoted in part wherever a message names it
(:func:`controller.core.quoting.short_repr`): the start of it and its length, one short
line, never the whole of it."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from controller.advisor.defence import CardStopOdds
from controller.bench.daemon import _whole
from controller.board.tracker import MoveTracker
from controller.companion.registry import get_mode
from controller.daemon.journals import held_kind
from controller.game.journal import Journal
from controller.gamedata.cards import parse_card_spec, parse_card_specs
from controller.rules.dice import Die
from controller.scoreboard.evening import _saved_at
from controller.system.logs import level_number
from controller.table.settings import _variants
from tests.game.helpers import demo_data

HUGE = "x" * 100_000
SHOWN = f"'{'x' * 40}...' (100000 characters)"
LONGEST = 1000  # a line of its own words (a list of the names known), not of the value

CASES: dict[str, Callable[[], object]] = {
    "card spec": lambda: parse_card_spec(HUGE),
    "card spec's damage": lambda: parse_card_spec(f"K:sphere:{'9' * 100_000}"),
    "card spec's option": lambda: parse_card_spec(f"K:sphere:3:{HUGE}"),
    "card given twice": lambda: parse_card_specs(["K:sphere:3", f"K:sphere:3:none{' ' * 100_000}"]),
    "card defence": lambda: CardStopOdds.parse(HUGE),
    "log level": lambda: level_number(HUGE),
    "companion mode": lambda: get_mode(HUGE),
    "variant": lambda: _variants([HUGE]),
    "saved_at": lambda: _saved_at(HUGE),
    "bench's whole number": lambda: _whole(1, 9)(HUGE),
    "token": lambda: MoveTracker({"Goku": 3}, {(3, 4)}).assign(HUGE, 4),
    "board": lambda: dataclasses.replace(demo_data().board, name=HUGE).space(10**6),
    "die": lambda: Die(HUGE, ()),
}


@pytest.mark.parametrize("case", CASES, ids=str)
def test_a_huge_value_is_named_by_its_start_and_length(case: str) -> None:
    with pytest.raises(Exception) as err:
        CASES[case]()
    message = str(err.value)
    assert len(message) < LONGEST, message[:200]
    assert re.search(r"\.\.\.' \(1000\d\d characters\)", message), message


def test_a_journal_whose_set_up_names_a_huge_game_is_named_in_part(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    Journal.create(path, {"mode": HUGE}).close()
    with pytest.raises(Exception) as err:
        held_kind(path)
    assert str(err.value) == f"{path}: the set-up names no game ({SHOWN})"
