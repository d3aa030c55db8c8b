"""The room display (``/?view=room``) in a real headless Chromium, at a TV's 1920x1080 and a
projector's 1280x720: twelve tables and the standings at once, large type, nothing to
scroll; more tables cycle through pages. And what the laptop page says about its broker,
stale tables, two tables on one id, companion numbers and green-space warriors.

Screenshots go to the test's temporary folder; ``pytest --docs-images`` also copies the
room display's into docs/ (a deliberate regeneration).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.companion.datafile import MAX_PLAYERS as MAX_COMPANION_PLAYERS
from controller.game import engine
from controller.game.events import GameEvent
from controller.game.simulate import play_game
from controller.game.state import MAX_PLAYERS, GameConfig, GameState, Length
from controller.publish.link import Link
from controller.publish.messages import encode, state_message
from controller.scoreboard import server as server_module
from controller.scoreboard.model import Scoreboard
from controller.scoreboard.server import ScoreboardServer
from tests.game.helpers import tied_game
from tests.paths import REPO
from tests.scoreboard.test_page import _card_text, chrome
from tests.waiting import wait_for

__all__ = ["chrome"]

pytestmark = pytest.mark.timeout(180)
DOCS = REPO / "docs"
SIZES = {"tv": (1920, 1080), "projector": (1280, 720)}
PEOPLE = ("Ann Lee", "Bob Marsh", "Cleo Diaz", "Dev Patel", "Eli Ford", "Fay Wong", "Gus Hale",
          "Hana Ito", "Ivo Kral", "Jun Park", "Kai Moss", "Lea Roy", "Mo Reid", "Nia Cole",
          "Oto Berg", "Pia Lund", "Quin Shaw", "Rae Kent", "Sol Vega", "Tam Nash", "Uma Rao",
          "Vic Hart", "Wen Liu", "Xia Chen", "Yul Dunn", "Zoe Hill", "Ada Ruiz",
          "Ben Oduya")  # fmt: skip


def _game(game_data: Any, players: tuple[str, ...], seed: int) -> list[GameState]:
    config = GameConfig(players, Length.ROUNDS5, game_id=f"g{seed}")
    states = [engine.new_game(config, game_data)]

    def submit(event: GameEvent) -> GameState:
        states.append(engine.apply(states[-1], event))
        return states[-1]

    play_game(config, game_data, seed, None, submit)
    return states


def _green_fight(game_data: Any, players: tuple[str, ...]) -> tuple[list[GameState], GameState]:
    """The states of the first game (seeds 1..59) that fights a green-space warrior (a green
    space is reached only after some combats, A l.39), and the first state of that fight."""
    for seed in range(1, 60):
        states = _game(game_data, players, seed)
        fights = [s for s in states if s.combat is not None and s.combat.green]
        if fights:
            return states, fights[0]
    raise AssertionError("no game of seeds 1..59 fights a green-space warrior")


def _companion(table: str, mode: str, numbers: list[dict[str, int]], main: str) -> bytes:
    """A companion table's state as its table sends it (numbers as the real modes name them)."""
    players = [
        {"seat": i, "player": PEOPLE[20 + i], "player_id": f"{table}/{PEOPLE[20 + i]}",
         "main": main, "value": n[main], "numbers": n, "eliminated": False}
        for i, n in enumerate(numbers)
    ]  # fmt: skip
    return encode({"schema": 1, "kind": "companion", "table_id": table, "game_id": f"c-{table}",
                   "seq": 40, "mode": mode, "step": "combat",
                   "turn": {"seat": 0, "player": players[0]["player"]}, "players": players,
                   "over": False, "winners": [], "sent_at": None})  # fmt: skip


def _fill(board: Scoreboard, game_data: Any, tables: int) -> None:
    """``tables`` tables: dice games at many points (two to four players, some over) and
    two companion tables."""
    for i in range(tables):
        table = f"table-{i + 1}"
        if i == 3:
            board.handle(f"toptable/{table}/state", _companion(table, "dbz-tcg", [
                {"level": 3, "stages": 8, "anger": 2, "life": 38, "dragon_balls": 2},
                {"level": 2, "stages": 8, "anger": 4, "life": 41, "dragon_balls": 1},
            ], "life"))  # fmt: skip
            continue
        if i == 8:
            board.handle(f"toptable/{table}/state", _companion(table, "challengers", [
                {"fans": 7, "fan_cards": 2, "trophies": 1}, {"fans": 5, "fan_cards": 1, "trophies": 2},
            ], "fans"))  # fmt: skip
            continue
        players = 4 if i % 5 == 1 else 2
        names = tuple(PEOPLE[(2 * i + k) % 20] for k in range(players))
        states = _game(game_data, names, seed=i + 1)
        at = len(states) - 1 if i % 4 == 2 else len(states) * (i + 2) // (tables + 3)
        m = state_message(states[at], table, seq=at, game_id=f"g{i}", sent_at=None)
        board.handle(f"toptable/{table}/state", encode(m))


@pytest.fixture
def served() -> Iterator[tuple[Scoreboard, ScoreboardServer]]:
    board = Scoreboard()
    server = ScoreboardServer(board, "127.0.0.1", 0).start()
    yield board, server
    server.close()


def _size(driver: Any, width: int, height: int) -> None:
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
    )


FITS = """
const vw = window.innerWidth, vh = window.innerHeight, doc = document.documentElement;
const inside = (r) => r.left >= 0 && r.top >= 0 && r.right <= vw + 0.5 && r.bottom <= vh + 0.5;
const cards = [...document.querySelectorAll('.card')];
const texts = [...document.querySelectorAll('.card *, #standings td, #standings caption')]
  .filter((e) => e.childElementCount === 0 && e.textContent.trim() && e.getClientRects().length);
const size = (e) => parseFloat(getComputedStyle(e).fontSize);
const tables = document.getElementById('tables').getBoundingClientRect();
const standings = document.getElementById('standings').getBoundingClientRect();
return {
  scrolls: doc.scrollHeight > vh || doc.scrollWidth > vw,
  cards: cards.length,
  outside: cards.filter((c) => !inside(c.getBoundingClientRect())).map((c) => c.dataset.tableId),
  clipped: cards.filter((c) => c.scrollHeight > c.clientHeight + 1).map((c) => c.dataset.tableId),
  smallest: Math.min(...texts.map(size)) / vh,
  names: Math.min(...[...document.querySelectorAll('.card .player')].map(size)) / vh,
  beside: standings.left >= tables.right && inside(standings),
  rows: document.querySelectorAll('#standings tbody tr').length,
};
"""


@pytest.mark.parametrize("screen", list(SIZES))
def test_twelve_tables_and_the_standings_at_once_in_large_type(
    chrome: Any,
    served: tuple[Scoreboard, ScoreboardServer],
    game_data: Any,
    tmp_path: Path,
    request: pytest.FixtureRequest,
    screen: str,
) -> None:
    board, server = served
    _fill(board, game_data, 12)
    width, height = SIZES[screen]
    _size(chrome, width, height)
    chrome.get(server.url + "?view=room")
    assert wait_for(lambda: chrome.execute_script(FITS)["cards"] == 12, 10)
    fit = chrome.execute_script(FITS)
    assert not fit["scrolls"] and fit["outside"] == [] and fit["clipped"] == []
    assert fit["beside"] and fit["rows"] >= 8
    assert fit["names"] >= 0.0335  # a player's name: 36 px on a TV, 24 px on a projector
    assert fit["smallest"] >= 0.0255  # nothing below 27 px on a TV, 18 px on a projector
    won = "return document.querySelectorAll(\".card[data-table-id='table-3'] .seat.won\").length"
    assert "final" in _card_text(chrome, "table-3") and chrome.execute_script(won) >= 1
    assert "level 3" in _card_text(chrome, "table-4")
    errors = [e for e in chrome.get_log("browser") if e["level"] in ("SEVERE", "ERROR")]
    assert errors == [], errors
    shot = tmp_path / f"scoreboard-room-{width}x{height}.png"
    assert chrome.save_screenshot(str(shot)) and shot.stat().st_size > 20_000
    if request.config.getoption("docs_images"):
        shutil.copyfile(shot, DOCS / shot.name)


SEATS = """
const inside = (r, box) => r.width > 0 && r.height > 0 && r.left >= box.left - 0.5 &&
  r.top >= box.top - 0.5 && r.right <= box.right + 0.5 && r.bottom <= box.bottom + 0.5;
const shown = [];
for (const card of document.querySelectorAll('.card')) {
  const box = card.getBoundingClientRect();
  for (const seat of card.querySelectorAll('.seat')) {
    const name = seat.querySelector('.player');
    if (inside(seat.getBoundingClientRect(), box) && inside(name.getBoundingClientRect(), box)
        && name.scrollWidth <= name.clientWidth) shown.push(`${card.dataset.tableId}/${name.textContent}`);
  }
}
return shown;
"""


def _full_tables(board: Scoreboard, game_data: Any) -> list[str]:
    """Twelve tables of the most players a game seats: Challengers! games of 8 (table-6 over,
    two winners starred) and dice games of 6 (table-5 over); every seat as table/name."""
    seats: list[str] = []
    for i in range(12):
        table = f"table-{i + 1}"
        if i % 2:
            numbers = [{"fans": 10 + 11 * k, "fan_cards": k % 3, "trophies": k % 4}
                       for k in range(MAX_COMPANION_PLAYERS)]  # fmt: skip
            m = json.loads(_companion(table, "challengers", numbers, "fans"))
            if i == 5:
                m.update(over=True, turn=None, winners=[p["player"] for p in m["players"][:2]])
            board.handle(f"toptable/{table}/state", encode(m))
            seats += [f"{table}/{p['player']}" for p in m["players"]]
            continue
        names = tuple(PEOPLE[(6 * i + k) % 20] for k in range(MAX_PLAYERS))
        states = _game(game_data, names, seed=i + 1)
        at = len(states) - 1 if i == 4 else len(states) * (i + 2) // 15
        board.handle(f"toptable/{table}/state", encode(state_message(states[at], table, seq=at)))
        seats += [f"{table}/{n}" for n in names]
    return seats


@pytest.mark.parametrize("screen", list(SIZES))
def test_every_seat_of_twelve_full_tables_is_shown(
    chrome: Any,
    served: tuple[Scoreboard, ScoreboardServer],
    game_data: Any,
    tmp_path: Path,
    screen: str,
) -> None:
    # a card of more than four seats only shrank its type to 0.8 and its overflow was
    # hidden: an 8-player Challengers! card showed 5 seats, a 6-player dice card was cut too
    board, server = served
    seats = _full_tables(board, game_data)
    assert len(seats) == 6 * MAX_COMPANION_PLAYERS + 6 * MAX_PLAYERS
    width, height = SIZES[screen]
    _size(chrome, width, height)
    chrome.get(server.url + "?view=room")
    assert wait_for(lambda: chrome.execute_script(FITS)["cards"] == 12, 10)
    fit = chrome.execute_script(FITS)
    assert not fit["scrolls"] and fit["outside"] == [] and fit["clipped"] == []
    assert fit["beside"]
    assert sorted(chrome.execute_script(SEATS)) == sorted(seats)  # whole, inside their card
    assert fit["names"] >= 0.021  # eight seats' names: 23 px on a TV, 15 px on a projector
    assert fit["smallest"] >= 0.021
    won = "return document.querySelectorAll(\".card[data-table-id='table-6'] .seat.won\").length"
    assert chrome.execute_script(won) == 2
    errors = [e for e in chrome.get_log("browser") if e["level"] in ("SEVERE", "ERROR")]
    assert errors == [], errors
    shot = tmp_path / f"scoreboard-room-full-{width}x{height}.png"
    assert chrome.save_screenshot(str(shot)) and shot.stat().st_size > 20_000


def test_more_tables_cycle_through_pages(
    chrome: Any, served: tuple[Scoreboard, ScoreboardServer], game_data: Any
) -> None:
    board, server = served
    _fill(board, game_data, 15)
    _size(chrome, *SIZES["projector"])
    chrome.get(server.url + "?view=room&cycle=2")
    assert wait_for(lambda: chrome.execute_script(FITS)["cards"] == 12, 10)
    # the page's label and its cards read at once (the page turns every 2 s)
    shown = (
        "return [document.getElementById('page').textContent,"
        " [...document.querySelectorAll('.card')].map((c) => c.dataset.tableId)]"
    )
    pages: dict[str, list[str]] = {}

    def page(label: str) -> bool:
        now, ids = chrome.execute_script(shown)
        pages[now] = ids
        return bool(now == label)

    assert wait_for(lambda: page("page 1/2"), 10)
    assert wait_for(lambda: page("page 2/2"), 10)
    assert sorted(pages["page 2/2"]) == ["table-13", "table-14", "table-15"]
    assert "table-13" not in pages["page 1/2"] and len(pages["page 1/2"]) == 12
    fit = chrome.execute_script(FITS)
    assert not fit["scrolls"] and fit["clipped"] == []


def test_the_laptop_page_says_what_the_scoreboard_doubts(
    chrome: Any, served: tuple[Scoreboard, ScoreboardServer], game_data: Any, tmp_path: Path
) -> None:
    board, server = served
    link = Link("the scoreboard", "mqtt://club:1883", on_change=board.set_link)
    link.refused("Not authorized")
    chrome.get(server.url)
    assert wait_for(lambda: "broker refused: Not authorized" in chrome.find_element(
        "id", "link").text, 10)  # fmt: skip
    assert "not connected to its broker" in chrome.find_element("id", "tables").text
    link.connected()
    _fill(board, game_data, 9)
    assert wait_for(lambda: chrome.find_element("id", "link").text == "broker: connected", 10)
    assert wait_for(
        lambda: "level 3 · stages 8 · anger 2 · dragon balls 2" in _card_text(chrome, "table-4"), 10
    )
    assert "fans 7" in _card_text(chrome, "table-9")
    assert "fan cards 2 · trophies 1" in _card_text(chrome, "table-9")
    states, fight = _green_fight(game_data, ("Ann Lee", "Bob Marsh"))
    board.handle("toptable/green/state", encode(state_message(fight, "green", seq=9)))
    assert wait_for(lambda: "Green space" in _card_text(chrome, "green"), 10)
    assert fight.combat is not None and fight.combat.defender in _card_text(chrome, "green")
    for instance in ("aaaa1111", "bbbb2222", "aaaa1111"):  # two processes behind one id
        m = state_message(states[5], "twin", seq=5)
        m["instance"] = instance
        board.handle("toptable/twin/state", encode(m))
    assert wait_for(lambda: "Two tables publish as twin" in _card_text(chrome, "twin"), 10)
    assert chrome.save_screenshot(str(tmp_path / "laptop.png"))
    errors = [e for e in chrome.get_log("browser") if e["level"] in ("SEVERE", "ERROR")]
    assert errors == [], errors


def test_a_stale_table_says_how_old_its_state_is(chrome: Any, game_data: Any) -> None:
    now = [1000.0]
    board = Scoreboard(clock=lambda: now[0], wall=lambda: 1.7e9 + now[0])
    server = ScoreboardServer(board, "127.0.0.1", 0).start()
    try:
        states = _game(game_data, ("Ann Lee", "Bob Marsh"), seed=2)
        board.handle("toptable/quiet/state", encode(state_message(states[9], "quiet", seq=9)))
        now[0] += 7 * 60
        chrome.get(server.url)
        assert wait_for(lambda: "last state 7 min ago" in _card_text(chrome, "quiet"), 10)
        # NTP steps the kiosk Pi's wall clock a week forward (no real-time clock): the
        # page counts on its monotonic clock, so the age is redrawn the same (review 109)
        chrome.execute_script("const d = Date.now; Date.now = () => d() + 7 * 86400000;")
        redrawn = "window.__redrawn = 0; setInterval(() => { window.__redrawn += 1; }, 1000);"
        chrome.execute_script(redrawn)
        assert wait_for(lambda: chrome.execute_script("return window.__redrawn") >= 2, 10)
        assert "last state 7 min ago" in _card_text(chrome, "quiet")
    finally:
        server.close()


def test_a_ties_extra_round_is_shown_as_one_on_both_pages(
    chrome: Any, served: tuple[Scoreboard, ScoreboardServer]
) -> None:
    # a tie of three or more after round 5 plays on: both pages said "Round 6/5"
    board, server = served
    states = tied_game().states
    extra = next(s for s in states if s.round == 6)
    last = next(s for s in states if s.round == 5)
    board.handle("toptable/tie/state", encode(state_message(extra, "tie", seq=1)))
    board.handle("toptable/last/state", encode(state_message(last, "last", seq=1)))
    older = state_message(extra, "older", seq=1)
    del older["extra_round"]  # a table from before the field
    board.handle("toptable/older/state", encode(older))
    info = "return document.querySelector(\".card[data-table-id='tie'] .info\").textContent"
    for page in ("", "?view=room"):
        chrome.get(server.url + page)
        assert wait_for(lambda: "Extra round 1 of 3" in _card_text(chrome, "tie"), 10), page
        assert "6/5" not in _card_text(chrome, "tie")
        assert "Round 5/5" in _card_text(chrome, "last")
        assert "P1" in _card_text(chrome, "older")  # it loads, as it did
    assert chrome.execute_script(info) == "Extra round 1 of 3"  # the room card's title line
    errors = [e for e in chrome.get_log("browser") if e["level"] in ("SEVERE", "ERROR")]
    assert errors == [], errors


def test_a_page_refused_its_stream_asks_again(chrome: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """An EventSource gives up for good after a 503: the room's screen, refused while a
    guest held every live page, stayed dead after the guest left (review 112)."""
    monkeypatch.setattr(server_module, "MAX_STREAMS", 0)
    server = ScoreboardServer(Scoreboard(), "127.0.0.1", 0).start()
    try:
        chrome.get(server.url)
        status = "return document.getElementById('status').textContent"
        assert wait_for(lambda: chrome.execute_script(status) == "page: reconnecting…", 10)
        monkeypatch.setattr(server_module, "MAX_STREAMS", 64)  # the guest left
        assert wait_for(lambda: chrome.execute_script(status) == "page: live", 15)
    finally:
        server.close()
        chrome.get_log("browser")  # the refusals' 503s, not the next test's errors
