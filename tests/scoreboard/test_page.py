"""The scoreboard page in a real headless Chromium (Debian's chromium + chromium-driver).

Two tables publish through a real Mosquitto; the page shows both, updates when a
table's game moves on, shows a hostile player name as text, and logs no console
error. The screenshot goes to the test's temporary folder; ``make docs-images``
(``pytest --docs-images``) also writes it to docs/scoreboard.png, which the README shows.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.publish.messages import encode, state_message
from controller.publish.settings import Connection, parse_broker_url
from controller.scoreboard.model import Scoreboard
from controller.scoreboard.server import ScoreboardServer
from controller.scoreboard.subscriber import Subscriber
from tests.paths import REPO
from tests.publish.broker import Mosquitto, binary
from tests.publish.table import TestTable
from tests.waiting import wait_for

HOSTILE = '<img src=x onerror="document.title=1">'
FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-dev-shm-usage", "--window-size=1280,900",
)  # fmt: skip
SCREENSHOT = REPO / "docs" / "scoreboard.png"


@pytest.fixture
def chrome(tmp_path: Path) -> Iterator[Any]:
    """A headless Chromium driven by Selenium through Debian's chromedriver."""
    chromium = binary("chromium")
    driver_path = binary("chromedriver")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = chromium
    for flag in FLAGS:
        opts.add_argument(flag)
    opts.add_argument(f"--user-data-dir={tmp_path / 'chromium-profile'}")
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(driver_path), options=opts)
    driver.set_page_load_timeout(20)
    try:
        yield driver
    finally:
        driver.quit()


def _card_text(driver: Any, table_id: str) -> str:
    from selenium.common.exceptions import WebDriverException

    try:
        text: str = driver.execute_script(
            "const c = document.querySelector(`.card[data-table-id='${arguments[0]}']`);"
            "return c ? c.textContent : '';",
            table_id,
        )
    except WebDriverException:
        return ""
    return text


class _PauseError(Exception):
    """Stops a table's game part way."""


def test_the_page_shows_both_tables_and_updates_live(
    chrome: Any,
    broker: Mosquitto,
    tmp_path: Path,
    game_data: Any,
    request: pytest.FixtureRequest,
) -> None:
    board = Scoreboard()
    sub = Subscriber(Connection(parse_broker_url(broker.url)), board, "page-test").start()
    server = ScoreboardServer(board, "127.0.0.1", 0).start()
    one = TestTable(tmp_path, broker.url, game_data, "table-1", ("Ann", "Bob"))
    two = TestTable(tmp_path, broker.url, game_data, "table-2", ("Cleo", "Dev"))
    try:
        assert sub.wait_connected(5)
        one.play(seed=11)
        assert one.publisher.flush(10)
        two.publisher.notify(two.game.state, 0)  # table 2 is set up, its game not started
        assert two.publisher.flush(10)
        assert wait_for(lambda: len(board.tables()) == 2, 5)

        chrome.get(server.url)
        assert wait_for(lambda: "Winner" in _card_text(chrome, "table-1"), 10)
        assert "Cleo" in _card_text(chrome, "table-2")
        assert "Winner" not in _card_text(chrome, "table-2")
        assert chrome.execute_script("return document.body.dataset.updates || '0'") == "0"

        def pause(seq: int) -> None:
            if seq == 60:
                raise _PauseError

        with pytest.raises(_PauseError):  # table 2 plays 60 events while the page is open
            two.play(seed=12, pace_s=0.002, after=pause)
        assert two.publisher.flush(10)
        assert wait_for(
            lambda: (
                chrome.execute_script(
                    "const c = document.querySelector(\".card[data-table-id='table-2']\");"
                    "return c ? c.dataset.seq : ''"
                )
                == "60"
            ),
            10,
        )
        text = _card_text(chrome, "table-2")
        assert "Turn: " in text and "Round " in text and "Winner" not in text
        assert int(chrome.execute_script("return document.body.dataset.updates")) >= 1
        rows = chrome.execute_script(
            "return [...document.querySelectorAll('#standings tbody tr')].length"
        )
        assert rows == 4
        screenshot = tmp_path / SCREENSHOT.name
        assert chrome.save_screenshot(str(screenshot))
        assert screenshot.stat().st_size > 10_000
        if request.config.getoption("docs_images"):
            shutil.copyfile(screenshot, SCREENSHOT)

        # On a phone (390 px wide): nothing wider than the screen.
        chrome.execute_cdp_cmd(
            "Emulation.setDeviceMetricsOverride",
            {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True},
        )
        assert wait_for(
            lambda: chrome.execute_script(
                "const e = document.documentElement; return e.scrollWidth <= e.clientWidth"
            ),
            5,
        )
        chrome.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})

        # A hostile name from the broker is shown as text, never as markup.
        hostile = state_message(one.game.state, "table-3", seq=1)
        hostile["teams"][0]["player"] = HOSTILE
        hostile["teams"][0]["warriors"][0]["name"] = HOSTILE
        board.handle("toptable/table-3/state", encode(hostile))
        assert wait_for(lambda: HOSTILE in _card_text(chrome, "table-3"), 10)
        assert chrome.execute_script("return document.querySelectorAll('img').length") == 0
        assert chrome.title.startswith("Tournament of Power")

        errors = [e for e in chrome.get_log("browser") if e["level"] in ("SEVERE", "ERROR")]
        assert errors == [], errors
    finally:
        one.close()
        two.close()
        server.close()
        sub.close()
