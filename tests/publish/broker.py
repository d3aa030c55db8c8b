"""A real Mosquitto broker on a free loopback port, for the tests (and the bench).

The ``mosquitto`` binary comes from the Debian package (``tools/services/install.sh``
installs it). A test that needs it FAILS with that hint when it is missing:
a broker test silently skipped in CI would prove nothing.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

from tests.waiting import wait_until

HINT = "run `sudo tools/services/install.sh` (Debian packages mosquitto, chromium, chromium-driver)"


def binary(name: str) -> str:
    """The path of a Debian-packaged binary, or fail the test with the install hint."""
    for candidate in (shutil.which(name), f"/usr/sbin/{name}", f"/usr/bin/{name}"):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    pytest.fail(f"{name} is not installed: {HINT}", pytrace=False)


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Mosquitto:
    """One broker process; ``kill()`` and ``start()`` again keep its port and its saved sessions."""

    def __init__(
        self,
        directory: Path,
        *,
        password_file: Path | None = None,
        acl_file: Path | None = None,
        tls: tuple[Path, Path, Path] | None = None,
    ) -> None:
        """``tls``: (CA, server certificate, server key) to listen with TLS only."""
        self.directory = directory
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        lines = [
            f"listener {self.port} 127.0.0.1",
            *(
                [f"cafile {tls[0]}", f"certfile {tls[1]}", f"keyfile {tls[2]}"]
                if tls is not None
                else []
            ),
            "persistence true",
            f"persistence_location {directory}/",
            "autosave_interval 1",
            f"log_dest file {directory}/mosquitto.log",
            "log_type error",
            "log_type warning",
            "log_type notice",
            "max_queued_messages 100000",
        ]
        if os.geteuid() == 0:
            lines.append("user root")  # else mosquitto drops to 'mosquitto', who cannot write here
        if password_file is not None:
            lines += ["allow_anonymous false", f"password_file {password_file}"]
        else:
            lines.append("allow_anonymous true")
        if acl_file is not None:
            lines.append(f"acl_file {acl_file}")
        self.config = directory / "mosquitto.conf"
        self.config.write_text("\n".join(lines) + "\n", encoding="utf-8")
        self.tls = tls is not None

    @property
    def url(self) -> str:
        """mqtt://127.0.0.1:PORT (mqtts:// with TLS)"""
        return f"{'mqtts' if self.tls else 'mqtt'}://127.0.0.1:{self.port}"

    def start(self) -> Mosquitto:
        """Start the broker and wait until it accepts connections."""
        exe = binary("mosquitto")
        self.proc = subprocess.Popen(
            [exe, "-c", str(self.config)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                err = self.proc.stderr.read().decode() if self.proc.stderr else ""
                raise RuntimeError(f"mosquitto exited at start: {err}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return self
            except OSError:
                time.sleep(0.05)
        self.kill()
        raise RuntimeError("mosquitto did not listen within 10 s")

    def save(self, timeout: float = 10.0) -> None:
        """Have the broker write its sessions to disk now (SIGUSR1) and wait until it has.

        Raises:
            AssertionError: the database was not rewritten within ``timeout`` s.
        """
        assert self.proc is not None and self.proc.poll() is None, "the broker is not running"
        before = _signature(self.database)
        self.proc.send_signal(signal.SIGUSR1)
        wait_until(lambda: _signature(self.database) != before, timeout, "mosquitto's save")

    @property
    def database(self) -> Path:
        """Where the broker keeps its sessions (``persistence_file``'s default name)."""
        return self.directory / "mosquitto.db"

    def kill(self) -> None:
        """SIGKILL: a crash, not a clean stop."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(5)
        self.proc = None

    def stop(self) -> None:
        """A clean stop (idempotent)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.proc = None


def _signature(path: Path) -> tuple[int, int] | None:
    """(inode, mtime) of ``path``, or None: mosquitto writes a new file and renames it over."""
    try:
        st = path.stat()
    except FileNotFoundError:
        return None
    return st.st_ino, st.st_mtime_ns


def make_password_file(path: Path, users: dict[str, str]) -> Path:
    """A Mosquitto password file made by ``mosquitto_passwd`` (hashed)."""
    exe = binary("mosquitto_passwd")
    path.touch()
    for user, password in users.items():
        subprocess.run(
            [exe, "-b", str(path), user, password], check=True, capture_output=True, timeout=30
        )
    path.chmod(0o600)
    return path


def make_certificates(directory: Path) -> tuple[Path, Path, Path]:
    """A throw-away CA and a server certificate for 127.0.0.1 (``openssl``): (ca, cert, key)."""
    exe = binary("openssl")
    ca_key, ca, key, csr, cert = (directory / n for n in
                                  ("ca.key", "ca.pem", "server.key", "server.csr", "server.pem"))  # fmt: skip
    ext = directory / "server.ext"
    ext.write_text("subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n", encoding="utf-8")
    for args in (
        ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", ca_key, "-out", ca,
         "-days", "2", "-subj", "/CN=toptable test CA"],
        ["req", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", csr,
         "-subj", "/CN=127.0.0.1"],
        ["x509", "-req", "-in", csr, "-CA", ca, "-CAkey", ca_key, "-CAcreateserial",
         "-out", cert, "-days", "2", "-extfile", ext],
    ):  # fmt: skip
        subprocess.run([exe, *map(str, args)], check=True, capture_output=True, timeout=60)
    return ca, cert, key
