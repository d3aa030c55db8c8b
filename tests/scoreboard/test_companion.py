"""The scoreboard and a companion table (issue 15): checks, standings, the card on the page."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from controller.companion.datafile import MAX_PLAYERS as MAX_COMPANION_PLAYERS
from controller.demo.companion import run_companion_demo
from controller.publish.companion import MAX_NUMBERS, companion_state_message
from controller.publish.messages import encode
from controller.scoreboard.checks import MessageError, clean_state
from controller.scoreboard.model import Scoreboard
from controller.scoreboard.server import ScoreboardServer
from controller.scoreboard.standings import Ranking, standings
from controller.table.companion import CompanionTable
from tests.scoreboard.test_page import HOSTILE, _card_text, chrome
from tests.waiting import wait_for

__all__ = ["chrome"]

pytestmark = [
    pytest.mark.timeout(120),
    pytest.mark.filterwarnings("ignore:Image.Image.getdata is deprecated:DeprecationWarning"),
]


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The state message of a finished dbz-tcg game (played by the demo's bots)."""
    out = tmp_path_factory.mktemp("companion")
    s = run_companion_demo("dbz-tcg", seed=4, players=2, out=out, fast=True)
    with CompanionTable.resume(s.journal) as table:
        return companion_state_message(
            table.mode, table.state, "cards-1", seq=len(table.journal), game_id="g-c", sent_at=1.0
        )


def test_a_finished_companion_state_is_copied_field_by_field(finished: dict[str, Any]) -> None:
    assert finished["over"] and len(finished["winners"]) == 1
    assert all(p["main"] == "life" for p in finished["players"])
    m = json.loads(encode(finished))
    m["extra"] = "<script>"
    m["players"][0]["evil"] = 1
    clean = clean_state("cards-1", json.dumps(m).encode())
    assert clean == finished


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"kind": "poker"}, "state kind"),
        ({"mode": ""}, "mode"),
        ({"step": 3}, "step"),
        ({"players": [{"seat": 0, "player": "A", "value": "9"}]}, "value"),
        ({"players": [{"seat": 0, "player": "A", "numbers": {"life": 1.5}}]}, "numbers"),
        ({"players": [{"seat": 0, "player": "A",
                       "numbers": {f"n{i}": i for i in range(MAX_NUMBERS + 1)}}]}, "numbers"),
        ({"players": [{"seat": 0, "player": "x" * 65}]}, "player"),
        ({"players": [{"seat": 0, "player": "A"}] * (MAX_COMPANION_PLAYERS + 1)}, "players"),
        ({"winners": [1]}, "winner"),
        ({"turn": {"seat": "0", "player": "A"}}, "turn.seat"),
    ],
)  # fmt: skip
def test_bad_companion_fields_are_refused(
    finished: dict[str, Any], change: dict[str, Any], why: str
) -> None:
    m = {**finished, **change}
    with pytest.raises(MessageError, match=why):
        clean_state("cards-1", encode(m))


def test_a_companion_game_of_the_most_players_a_mode_seats_is_shown(tmp_path: Path) -> None:
    # Challengers! seats 8 (its data file), more than the dice game's 6
    s = run_companion_demo("challengers", seed=1, players=MAX_COMPANION_PLAYERS, out=tmp_path,
                           fast=True)  # fmt: skip
    with CompanionTable.resume(s.journal) as table:
        message = companion_state_message(
            table.mode, table.state, "cards-8", seq=len(table.journal), game_id="g-8", sent_at=1.0
        )
    clean = clean_state("cards-8", encode(message))
    assert len(clean["players"]) == MAX_COMPANION_PLAYERS
    assert clean == json.loads(encode(message))


def test_a_companion_winner_counts_in_its_own_ranking(finished: dict[str, Any]) -> None:
    board = Scoreboard()
    board.handle("toptable/cards-1/state", encode(finished))
    winner = finished["winners"][0]
    (cards,) = board.standings()
    assert cards["group"] == "companion:dbz-tcg" and not cards["dice"]
    top = cards["rows"][0]
    assert (top["rank"], top["player"], top["won"]) == (1, winner, 1)
    assert top["player_id"] == f"cards-1/{winner}"


def test_companion_and_dice_games_ranked_apart_or_together(finished: dict[str, Any]) -> None:
    winner = finished["winners"][0]
    dice = {
        "table_id": "t1", "game_id": "d", "over": True, "winners": ["Zed"],
        "teams": [{"player": "Zed", "player_id": "zed", "warriors_left": 2, "endurance_left": 9},
                  {"player": winner, "player_id": "p-7", "warriors_left": 1,
                   "endurance_left": 3}],
    }  # fmt: skip
    card = clean_state("cards-1", encode(finished))
    for p in card["players"]:
        if p["player"] == winner:
            p["player_id"] = "p-7"  # the organiser gave the same person one id at both tables
    apart = standings([dice, card], Ranking.GAME)
    assert [g["group"] for g in apart] == ["dice", "companion:dbz-tcg"]
    kind = standings([dice, card], Ranking.KIND)
    assert [g["title"] for g in kind] == ["Dice game", "Companion games"]
    (together,) = standings([dice, card], Ranking.ALL)
    rows = {r["player_id"]: r for r in together["rows"]}
    won = rows["p-7"]
    assert (won["games"], won["won"], won["warriors_left"], won["endurance_left"]) == (2, 1, 1, 3)
    assert won["tables"] == ["t1", "cards-1"]


def test_the_page_shows_a_companion_card(
    chrome: Any, finished: dict[str, Any], tmp_path: Path
) -> None:
    board = Scoreboard()
    server = ScoreboardServer(board, "127.0.0.1", 0).start()
    try:
        board.handle("toptable/cards-1/state", encode(finished))
        live = {**finished, "over": False, "winners": [], "turn": {"seat": 0, "player": HOSTILE},
                "players": [{**p, "player": HOSTILE if i == 0 else p["player"]}
                            for i, p in enumerate(finished["players"])]}  # fmt: skip
        board.handle("toptable/cards-2/state", encode({**live, "table_id": "cards-2"}))
        chrome.get(server.url)
        assert wait_for(lambda: "Winner" in _card_text(chrome, "cards-1"), 10)
        text = _card_text(chrome, "cards-1")
        assert "dbz-tcg" in text and f"Winner: {finished['winners'][0]}" in text
        for p in finished["players"]:
            assert p["player"] in text and f"life {p['value']}" in text
        other = _card_text(chrome, "cards-2")
        assert HOSTILE in other and f"Turn: {HOSTILE}" in other and "Winner" not in other
        assert chrome.execute_script("return document.querySelectorAll('img').length") == 0
        errors = [e for e in chrome.get_log("browser") if e["level"] in ("SEVERE", "ERROR")]
        assert errors == [], errors
    finally:
        server.close()
