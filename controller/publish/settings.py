"""The ``[events]`` config section: where a table publishes its game.

::

    [events]
    broker = "mqtt://scoreboard.local:1883"   # or mqtts://HOST:8883 for TLS
    table_id = "table-1"                      # letters, digits, '-' and '_'
    username = "table-1"                      # optional
    password_file = "/etc/toptable/mqtt-password"  # optional: the password, one line
    ca_file = "/etc/toptable/mqtt-ca.pem"     # optional: TLS with this CA (implies TLS)
    keepalive = 30                            # seconds, 5..300
    players = ["Ann Lee=ann", "Bob"]          # optional: the people here, NAME[=PERSON_ID]

A missing section means publishing is off (and the unit keeps its network
address families closed). Credentials never go into the broker URL: it would
show in logs and in ``ps``; the password lives in its own file, read at connect.
"""

from __future__ import annotations

import re
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from controller.core.checked import name_problem
from controller.core.config_schema import (
    InvalidOptionError,
    Section,
    config_problems,
    integer,
    path_in,
    text,
)
from controller.publish.errors import PublishError as PublishError  # re-exported
from controller.publish.people import Person, PlayerNameError, parse_people

SECTION = "events"
DEFAULT_PORT = 1883
DEFAULT_TLS_PORT = 8883
TABLE_ID_RE = re.compile(r"[A-Za-z0-9_-]{1,32}")  # the whole id: use is_table_id (fullmatch)
MQTT_STRING_BYTES = 65535
"""The longest user name or password MQTT carries: its length goes in two bytes (MQTT 3.1.1
§1.5.3, §3.1.3.5); paho's network thread dies on a longer one (``struct.error``)."""


class BrokerUrlError(PublishError, ValueError):
    """A broker URL that is not ``mqtt://HOST[:PORT]`` or ``mqtts://HOST[:PORT]``."""


class TableIdError(PublishError, ValueError):
    """A table id that cannot be an MQTT topic level (1..32 of A-Z a-z 0-9 - _)."""


class CredentialsError(PublishError, OSError):
    """The password file cannot be read (its contents are never shown)."""


@dataclass(frozen=True)
class Broker:
    """Where the broker is."""

    host: str
    port: int
    tls: bool

    @property
    def url(self) -> str:
        """The URL again (never holds credentials)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{'mqtts' if self.tls else 'mqtt'}://{host}:{self.port}"


def parse_broker_url(text: str) -> Broker:
    """``mqtt://HOST[:PORT]`` (1883) or ``mqtts://HOST[:PORT]`` (8883, TLS).

    Raises:
        BrokerUrlError: another scheme, no host, a bad port, or credentials in the URL.
    """
    try:
        parts = urlsplit(text.strip())
        port = parts.port
    except ValueError as exc:
        raise BrokerUrlError(f"broker URL: {exc}") from None
    if parts.scheme not in ("mqtt", "mqtts"):
        raise BrokerUrlError("broker URL must start with mqtt:// or mqtts://")
    if parts.username is not None or parts.password is not None:
        raise BrokerUrlError(
            "broker URL must not hold credentials: give username and password_file instead"
        )
    if not parts.hostname:
        raise BrokerUrlError("broker URL has no host (expected mqtt://HOST:PORT)")
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise BrokerUrlError("broker URL takes no path or query (expected mqtt://HOST:PORT)")
    tls = parts.scheme == "mqtts"
    if port is None:
        port = DEFAULT_TLS_PORT if tls else DEFAULT_PORT
    if not 1 <= port <= 65535:
        raise BrokerUrlError(f"broker URL port must be 1..65535 (got {port})")
    return Broker(parts.hostname, port, tls)


def is_table_id(text: str) -> bool:
    """Whether ``text`` is, in whole, a table id (``re.match`` with ``$`` would let a
    trailing newline through: ``$`` also matches before a final ``\\n``)."""
    return TABLE_ID_RE.fullmatch(text) is not None


def check_table_id(text: str) -> str:
    """``text`` if it is a valid table id (it becomes an MQTT topic level).

    Raises:
        TableIdError: empty, too long, or holding '/', '+', '#' or other characters.
    """
    if not is_table_id(text):
        raise TableIdError(
            f"table id must be 1..32 letters, digits, '-' or '_' (got {text[:40]!r})"
        )
    return text


PLAIN_WITH_CA = (
    f"means TLS, but the broker is mqtt:// on MQTT's plain port {DEFAULT_PORT} (the TLS "
    "handshake met a plain listener, 'Connection reset by peer'): write it mqtts://HOST "
    f"(port {DEFAULT_TLS_PORT}), or name the TLS listener's port"
)
"""A CA file beside a plain broker URL on the plain port: refused by the config and the
command line (a CA file implies TLS, documented, on whatever port the URL names)."""


def plain_with_ca(broker: Broker, ca_file: Path | None) -> bool:
    """Whether a CA file (TLS) would go to the plain port of an ``mqtt://`` broker."""
    return ca_file is not None and not broker.tls and broker.port == DEFAULT_PORT


KEEPALIVE_S = 30
"""The MQTT keepalive unless ``[events] keepalive`` says (seconds)."""


@dataclass(frozen=True)
class Connection:
    """How to reach and log in to a broker."""

    broker: Broker
    username: str | None = None
    password_file: Path | None = None
    ca_file: Path | None = None
    keepalive: int = KEEPALIVE_S

    @property
    def tls(self) -> bool:
        """TLS for mqtts:// or when a CA file is given."""
        return self.broker.tls or self.ca_file is not None

    def password(self) -> str | None:
        """The first line of ``password_file`` (None without one).

        Raises:
            CredentialsError: the file cannot be read, or its first line is blank (an empty
                file logged in with an empty password); the message names the file only.
        """
        if self.password_file is None:
            return None
        try:
            regular = stat.S_ISREG(self.password_file.stat().st_mode)  # a FIFO blocks open
            text = self.password_file.read_text(encoding="utf-8") if regular else ""
        except OSError as exc:
            raise CredentialsError(
                f"{self.password_file}: cannot read the password: {exc.strerror}"
            ) from None
        except UnicodeDecodeError:
            raise CredentialsError(
                f"{self.password_file}: cannot read the password: not UTF-8 text"
            ) from None
        if not regular:
            raise CredentialsError(
                f"{self.password_file}: cannot read the password: not a regular file"
            )
        first = text.splitlines()[0] if text else ""
        if not first.strip():
            raise CredentialsError(
                f"{self.password_file}: holds no password: its first line is blank "
                "(expected the password alone, on one line)"
            )
        if (size := _utf8_size(first)) > MQTT_STRING_BYTES:
            raise CredentialsError(
                f"{self.password_file}: holds a password of {size} bytes (UTF-8); MQTT "
                f"carries at most {MQTT_STRING_BYTES}"
            )
        return first


@dataclass(frozen=True)
class EventsSettings:
    """The checked ``[events]`` section: a connection, this table's id, and its people."""

    connection: Connection
    table_id: str
    people: tuple[Person, ...] = ()  # the players' names and person ids, when given

    @property
    def names(self) -> tuple[str, ...]:
        """The players' names, in seat order (empty: the table's own names)."""
        return tuple(p.name for p in self.people)


def _broker(value: Any) -> Broker:
    try:
        return parse_broker_url(text(value))
    except BrokerUrlError as exc:
        raise InvalidOptionError(str(exc).replace("broker URL ", "", 1)) from None


def _table_id(value: Any) -> str:
    try:
        return check_table_id(text(value))
    except TableIdError as exc:
        raise InvalidOptionError(str(exc).replace("table id ", "", 1)) from None


def _people(value: Any) -> tuple[Person, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InvalidOptionError('must be a list of "NAME" or "NAME=PERSON_ID"')
    try:
        return parse_people(value)
    except PlayerNameError as exc:
        raise InvalidOptionError(str(exc)) from None


def _name(value: Any) -> str:
    try:
        return check_user_name(text(value))
    except CredentialsError as exc:
        raise InvalidOptionError(str(exc)) from None


def check_user_name(name: str, what: str = "user name") -> str:
    """``name`` if MQTT can carry it as a user name (``what``: or as another of its strings,
    a client id).

    Raises:
        CredentialsError: empty, holding U+0000, not UTF-8, or longer than
            :data:`MQTT_STRING_BYTES`.
    """
    if not name:
        raise CredentialsError("must not be empty")
    if (why := name_problem(name)) is not None:  # MQTT's strings may not hold U+0000 either
        raise CredentialsError(f"must be a {what}: {why}")
    try:
        size = _utf8_size(name)
    except UnicodeEncodeError:  # a command line's bytes that are not UTF-8
        raise CredentialsError(f"must be a {what} of UTF-8 text") from None
    if size > MQTT_STRING_BYTES:
        raise CredentialsError(
            f"must be a {what} of at most {MQTT_STRING_BYTES} bytes (UTF-8), got {size}"
        )
    return name


def check_client_id(name: str) -> str:
    """``name`` if MQTT can carry it as a client id (paho raised on one that is no UTF-8).

    Raises:
        CredentialsError: as :func:`check_user_name`.
    """
    return check_user_name(name, "client id")


def _utf8_size(text: str) -> int:
    """The bytes ``text`` takes in UTF-8, as MQTT sends it.

    Raises:
        UnicodeEncodeError: it holds a lone surrogate (bytes of a command line that are no
            UTF-8), which no UTF-8 holds.
    """
    return len(text.encode("utf-8"))


def parse_events(s: Section) -> EventsSettings | None:
    """The ``[events]`` section, or None when the file has none (publishing off).

    Its problems are noted in ``s`` (every one, Klipper-worded); the composer
    raises them together.
    """
    if not s.data:
        return None
    broker = s.get("broker", None, _broker)
    table_id = s.get("table_id", "", _table_id)
    username = s.get("username", None, _name)
    password_file = s.get("password_file", None, path_in(s.base_dir))
    ca_file = s.get("ca_file", None, path_in(s.base_dir))
    keepalive = s.get("keepalive", KEEPALIVE_S, integer(5, 300))
    no_people: tuple[Person, ...] = ()
    people = s.get("players", no_people, _people)
    for key, example in (("broker", "mqtt://scoreboard.local:1883"), ("table_id", "table-1")):
        if not s.has(key):
            s.problem(key, f'is required (e.g. {key} = "{example}")')
    if password_file is not None and username is None:
        s.problem("password_file", "needs a username too")
    if broker is not None and plain_with_ca(broker, ca_file):
        s.problem("ca_file", PLAIN_WITH_CA)
    if broker is None or not table_id:
        return None
    connection = Connection(broker, username, password_file, ca_file, keepalive)
    return EventsSettings(connection, table_id, people)


def read_events(
    data: Mapping[str, Any], file: str = "", base_dir: Path | None = None
) -> EventsSettings | None:
    """``[events]`` of a parsed TOML file on its own (tests, tools).

    Raises:
        DataError: every problem of the section.
    """
    problems = config_problems(file)
    section = Section(SECTION, data.get(SECTION, {}), problems, base_dir or Path.cwd())
    settings = parse_events(section)
    section.finish()
    problems.check()
    return settings
