"""The rig of ``toptable bench events``: Debian's mosquitto with the shipped broker
config, ``toptable scoreboard`` in a child process, and the timers that read its
Server-Sent Events stream and its page in Chromium."""

from __future__ import annotations

import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from controller.publish.settings import Connection, parse_broker_url
from controller.system.broker_files import broker_folder

# ---------------------------------------------------------------- the rig
BENCH_USER = "bench"  # the simulated tables and the flood: may write every table's topics


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_port(port: int, timeout: float = 10.0) -> None:
    """Wait until something listens on ``port``.

    Raises:
        RuntimeError: nothing did within ``timeout`` s.
    """
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on port {port} after {timeout} s")


def _binary(name: str) -> str:
    for candidate in (shutil.which(name), f"/usr/sbin/{name}", f"/usr/bin/{name}"):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    raise SystemExit(f"toptable bench events: {name} is missing: run tools/services/install.sh")


class Broker:
    """Mosquitto on a free loopback port with the shipped config, and its users' passwords."""

    def __init__(self, directory: Path, tables: list[str]) -> None:
        self.exe = _binary("mosquitto")
        self.port = free_port()
        self.directory = directory
        self.folder = broker_folder(directory, self.port)
        acl = self.folder.config.parent / "toptable.acl"
        acl.write_text(
            acl.read_text(encoding="utf-8") + f"\nuser {BENCH_USER}\ntopic readwrite toptable/#\n",
            encoding="utf-8",
        )
        passwd = _binary("mosquitto_passwd")
        self.passwords: dict[str, Path] = {}
        for user in [*tables, "scoreboard", BENCH_USER]:
            secret = f"pw-{user}-{os.getpid()}"
            subprocess.run([passwd, "-b", str(self.folder.password_file), user, secret],
                           check=True, capture_output=True)  # fmt: skip
            f = directory / f"password-{user}"
            f.write_text(secret + "\n", encoding="utf-8")
            f.chmod(0o600)
            self.passwords[user] = f
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """mqtt://127.0.0.1:PORT"""
        return f"mqtt://127.0.0.1:{self.port}"

    def conn(self, user: str) -> Connection:
        """How ``user`` connects."""
        return Connection(parse_broker_url(self.url), user, self.passwords[user])

    def login(self, user: str) -> list[str]:
        """``--mqtt URL --username USER --password-file FILE`` for a child ``toptable``."""
        return ["--mqtt", self.url, "--username", user, "--password-file",
                str(self.passwords[user])]  # fmt: skip

    def start(self) -> Broker:
        """Start it and wait until it listens."""
        self.proc = subprocess.Popen(
            [self.exe, "-c", str(self.folder.config)], stderr=subprocess.DEVNULL
        )
        wait_port(self.port)
        return self

    def kill(self) -> None:
        """SIGKILL: a crash, not a clean stop."""
        if self.proc is not None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(5)
            self.proc = None

    def stop(self) -> None:
        """A clean stop (idempotent)."""
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(5)
            self.proc = None


class ScoreboardProcess:
    """``toptable scoreboard`` in a child process (its own interpreter, as in a club)."""

    def __init__(self, broker: Broker, client_id: str, state_dir: Path) -> None:
        self.port = free_port()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "controller.cli", "scoreboard", *broker.login("scoreboard"),
             "--port", str(self.port), "--client-id", client_id, "--state-dir", str(state_dir)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        wait_port(self.port)

    @property
    def url(self) -> str:
        """The page's address."""
        return f"http://127.0.0.1:{self.port}/"

    def get(self, path: str, timeout: float = 5.0) -> Any:
        """GET a JSON route."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            conn.request("GET", path)
            return json.loads(conn.getresponse().read())
        finally:
            conn.close()

    def table(self, table_id: str) -> dict[str, Any]:
        """One table as ``/api/tables`` shows it ({} if not shown)."""
        tables = self.get("/api/tables")
        return next((t for t in tables if t.get("table_id") == table_id), {})

    def wait_linked(self, timeout: float = 10.0) -> bool:
        """Wait until the scoreboard is connected to its broker."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.get("/api/status")["link"]["state"] == "connected":
                return True
            time.sleep(0.1)
        return False

    def peak_rss_mb(self) -> float:
        """The process's peak resident memory (VmHWM), in MB."""
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    def stop(self) -> None:
        """SIGTERM and wait."""
        self.proc.terminate()
        self.proc.wait(10)


class StreamTimer:
    """Reads the scoreboard's event stream (what the page's ``EventSource`` gets) and times
    each new table state from ``sent_at`` (when the table journalled it) to its arrival."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.latency_ms: dict[tuple[str, str, int], float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._read, name="sse-timer", daemon=True)
        self._ready = threading.Event()

    def start(self) -> StreamTimer:
        """Start reading; returns once the snapshot arrived."""
        self._thread.start()
        self._ready.wait(10)
        return self

    def _read(self) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        conn.request("GET", "/api/stream")
        resp = conn.getresponse()
        data = ""
        while not self._stop.is_set():
            line = resp.fp.readline()
            if not line:
                break
            text = line.decode().rstrip("\n")
            if text.startswith("data: "):
                data = text[6:]
            elif text == "" and data:
                now = time.time()
                self._ready.set()
                for t in json.loads(data).get("tables", []):
                    sent = t.get("sent_at")
                    key = (t.get("table_id"), t.get("game_id"), t.get("seq"))
                    if isinstance(sent, float | int) and key not in self.latency_ms:
                        self.latency_ms[key] = (now - sent) * 1000.0
                data = ""
        conn.close()

    def stop(self) -> list[float]:
        """Stop reading; every latency measured, in ms."""
        self._stop.set()
        return list(self.latency_ms.values())


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile of ``values`` (nearest rank; NaN for none)."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


# ---------------------------------------------------------------- the page in Chromium
WATCH = """
window.benchLatency = [];
const seen = new Set();
new MutationObserver((changes) => {
  const fresh = [];
  for (const change of changes) {
    for (const node of change.addedNodes) {
      if (!(node instanceof HTMLElement) || !node.classList.contains('card')) continue;
      const key = node.dataset.tableId + '/' + node.dataset.seq;
      const sent = Number(node.dataset.sentAt);
      if (sent > 0 && !seen.has(key)) { seen.add(key); fresh.push(sent); }
    }
  }
  if (fresh.length) requestAnimationFrame(() => {
    const now = Date.now() / 1000;
    for (const sent of fresh) window.benchLatency.push((now - sent) * 1000);
  });
}).observe(document.getElementById('tables'), { childList: true, subtree: true });
return true;
"""


def _browser_binary(name: str) -> str | None:
    for candidate in (shutil.which(name), f"/usr/bin/{name}", f"/usr/lib/chromium/{name}"):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


class PageTimer:
    """A headless Chromium on the scoreboard's page, timing each card it draws."""

    def __init__(self, url: str) -> None:
        """Open the page (1280x900, the laptop layout: every table's card drawn).

        Raises:
            RuntimeError: Chromium, chromedriver or Selenium is not installed (the
                message says how to install them).
        """
        chromium, driver = _browser_binary("chromium"), _browser_binary("chromedriver")
        try:
            from selenium import webdriver
            from selenium.webdriver.chrome.service import Service
        except ImportError:
            chromium = None
        if chromium is None or driver is None:
            raise RuntimeError(
                "Chromium, chromedriver and Selenium are needed: make services, and the "
                "development dependencies (pip install -e '.[dev]')"
            )
        self._profile = tempfile.TemporaryDirectory(prefix="toptable-bench-chromium-")
        opts = webdriver.ChromeOptions()
        opts.binary_location = chromium
        for flag in (
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--no-first-run",
            "--disable-background-networking",
            "--window-size=1280,900",
            f"--user-data-dir={self._profile.name}",
        ):
            opts.add_argument(flag)  # fmt: skip
        self.driver: Any = webdriver.Chrome(service=Service(driver), options=opts)
        self.driver.set_page_load_timeout(20)
        self.driver.get(url)
        self.driver.execute_script(WATCH)

    def latencies_ms(self) -> list[float]:
        """Every latency measured so far, in ms."""
        values: list[float] = self.driver.execute_script("return window.benchLatency")
        return [float(v) for v in values]

    def close(self) -> None:
        """Quit Chromium."""
        self.driver.quit()
        self._profile.cleanup()
