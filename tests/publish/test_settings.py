"""The [events] config section and broker URLs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from controller.cli.main import main
from controller.core.errors import DataError
from controller.publish.client import make_client
from controller.publish.settings import (
    Broker,
    BrokerUrlError,
    Connection,
    CredentialsError,
    parse_broker_url,
    read_events,
)


def test_a_full_section(tmp_path: Path) -> None:
    s = read_events(
        {"events": {"broker": "mqtts://club.example:8884", "table_id": "table-3",
                    "username": "t3", "password_file": "pw", "ca_file": "/etc/ca.pem",
                    "keepalive": 20}},
        "config.toml", tmp_path,
    )  # fmt: skip
    assert s is not None
    assert s.table_id == "table-3"
    assert s.connection == Connection(
        Broker("club.example", 8884, True), "t3", tmp_path / "pw", Path("/etc/ca.pem"), 20
    )
    assert s.connection.tls


def test_every_problem_is_named_at_once() -> None:
    with pytest.raises(DataError) as err:
        read_events(
            {"events": {"broker": "http://x", "table_id": "a/b", "keepalive": 1,
                        "pasword_file": "x"}},
            "config.toml",
        )  # fmt: skip
    text = str(err.value)
    assert len(err.value.problems) == 4
    assert "Option 'broker' in section 'events' must start with mqtt://" in text
    assert "did you mean 'password_file'" in text
    assert "keepalive" in text and "table_id" in text


def test_required_options() -> None:
    with pytest.raises(DataError) as err:
        read_events({"events": {"username": "u"}})
    assert {p.field for p in err.value.problems} == {"broker", "table_id"}


def test_a_username_with_a_nul_character_is_refused() -> None:
    # MQTT 3.1.1 §1.5.3: a broker closes the connection of a string holding U+0000
    with pytest.raises(DataError) as err:
        read_events(
            {"events": {"broker": "mqtt://h", "table_id": "t", "username": "t\x003"}},
            "config.toml",
        )
    assert str(err.value) == (
        "config.toml: Option 'username' in section 'events' must be a user name: expected a "
        "name without a NUL character (\\u0000), got 't\\x003'"
    )


def test_no_section_no_publishing() -> None:
    assert read_events({}) is None


@pytest.mark.parametrize(
    ("url", "broker"),
    [
        ("mqtt://localhost", Broker("localhost", 1883, False)),
        ("mqtts://h.example", Broker("h.example", 8883, True)),
        ("mqtt://127.0.0.1:1884", Broker("127.0.0.1", 1884, False)),
        ("mqtt://[::1]:1885", Broker("::1", 1885, False)),
    ],
)
def test_broker_urls(url: str, broker: Broker) -> None:
    assert parse_broker_url(url) == broker
    assert parse_broker_url(broker.url) == broker


@pytest.mark.parametrize(
    "url", ["http://h", "mqtt://", "mqtt://h:0", "mqtt://h:99999", "mqtt://h/x", "h:1883"]
)
def test_bad_broker_urls(url: str) -> None:
    with pytest.raises(BrokerUrlError):
        parse_broker_url(url)


def test_credentials_never_in_the_url_nor_in_the_error() -> None:
    with pytest.raises(BrokerUrlError) as err:
        parse_broker_url("mqtt://user:s3cret@h:1883")
    assert "s3cret" not in str(err.value)


def test_password_file(tmp_path: Path) -> None:
    f = tmp_path / "pw"
    f.write_text("s3cret\n", encoding="utf-8")
    conn = Connection(Broker("h", 1883, False), "u", f)
    assert conn.password() == "s3cret"
    assert "s3cret" not in repr(conn)
    with pytest.raises(CredentialsError) as err:
        Connection(Broker("h", 1883, False), "u", tmp_path / "missing").password()
    assert "missing" in str(err.value)


@pytest.mark.timeout(10)
def test_a_password_file_that_is_a_fifo_is_refused_not_waited_on(tmp_path: Path) -> None:
    """Review 95: a FIFO as [events] password_file blocked config check and run (which
    then ignored SIGTERM) in open(), waiting for a writer."""
    fifo = tmp_path / "pw"
    os.mkfifo(fifo)
    with pytest.raises(CredentialsError) as err:
        Connection(Broker("h", 1883, False), "u", fifo).password()
    assert str(err.value) == f"{fifo}: cannot read the password: not a regular file"


@pytest.mark.parametrize("text", ["", " \t\n", "\ns3cret\n"])
def test_a_password_file_without_a_password_is_refused(tmp_path: Path, text: str) -> None:
    # an empty file logged in with an empty password, and config check said OK
    f = tmp_path / "pw"
    f.write_text(text, encoding="utf-8")
    with pytest.raises(CredentialsError) as err:
        Connection(Broker("h", 1883, False), "u", f).password()
    assert str(err.value) == (
        f"{f}: holds no password: its first line is blank "
        "(expected the password alone, on one line)"
    )


def test_a_password_or_user_name_longer_than_mqtt_carries_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """MQTT sends a user name and a password after a 2-byte length: a longer one killed
    paho's network thread (struct.error) and the scoreboard ran on, never connected; a user
    name of a command line's bytes that are no UTF-8 did the same (UnicodeEncodeError)."""
    f = tmp_path / "pw"
    f.write_text("é" * 40_000 + "\n", encoding="utf-8")  # 40,000 characters, 80,000 bytes
    with pytest.raises(CredentialsError) as err:
        Connection(Broker("h", 1883, False), "u", f).password()
    assert (
        str(err.value)
        == f"{f}: holds a password of 80000 bytes (UTF-8); MQTT carries at most 65535"
    )
    with pytest.raises(DataError) as bad:
        read_events(
            {"events": {"broker": "mqtt://h", "table_id": "t", "username": "u" * 65536}},
            "config.toml",
        )
    assert str(bad.value) == (
        "config.toml: Option 'username' in section 'events' must be a user name of at most "
        "65535 bytes (UTF-8), got 65536"
    )
    state = ["--state-dir", str(tmp_path / "evening"), "--port", "0"]
    too_long = "must be a user name of at most 65535 bytes (UTF-8), got 65536"
    for name, said in (("\udcff", "must be a user name of UTF-8 text"), ("u" * 65536, too_long)):
        argv = ["scoreboard", "--mqtt", "mqtt://127.0.0.1:1", "--username", name, *state]
        assert main(argv) == 2
        assert (
            capsys.readouterr().err == f"toptable scoreboard: error: argument --username: {said}\n"
        )


def test_a_password_of_65535_bytes_is_taken_and_one_of_65536_refused(tmp_path: Path) -> None:
    f = tmp_path / "pw"
    f.write_text("é" * 32767 + "a\n", encoding="utf-8")  # 65,535 bytes in UTF-8
    conn = Connection(Broker("h", 1883, False), "u", f)
    assert conn.password() == "é" * 32767 + "a"
    f.write_text("é" * 32767 + "ab\n", encoding="utf-8")
    with pytest.raises(CredentialsError) as err:
        conn.password()
    assert (
        str(err.value)
        == f"{f}: holds a password of 65536 bytes (UTF-8); MQTT carries at most 65535"
    )


def test_a_user_name_of_65535_bytes_is_taken_and_one_of_65536_refused() -> None:
    name = "é" * 32767 + "a"  # 32,768 characters, 65,535 bytes
    events = {"broker": "mqtt://h", "table_id": "t", "username": name}
    s = read_events({"events": events}, "config.toml")
    assert s is not None and s.connection.username == name
    with pytest.raises(DataError) as bad:
        read_events({"events": {**events, "username": name + "b"}}, "config.toml")
    assert str(bad.value) == (
        "config.toml: Option 'username' in section 'events' must be a user name of at most "
        "65535 bytes (UTF-8), got 65536"
    )


def test_paho_carries_the_longest_user_name_and_password_taken(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The CONNECT packet paho builds holds both, each after its 2-byte length."""
    f = tmp_path / "pw"
    f.write_text("p" * 65535 + "\n", encoding="utf-8")
    client = make_client(Connection(Broker("h", 1883, False), "u" * 65535, f), "t")
    sent: list[bytes] = []

    def queue(_command: int, packet: bytes, *_rest: object, **_named: object) -> None:
        sent.append(bytes(packet))

    monkeypatch.setattr(client, "_packet_queue", queue)
    client._send_connect(30)
    assert sent and sent[0].endswith(b"\xff\xff" + b"u" * 65535 + b"\xff\xff" + b"p" * 65535)


def test_a_ca_file_that_does_not_load_stops_the_client_in_one_line(tmp_path: Path) -> None:
    # paho's tls_set loads the file into an SSLContext: FileNotFoundError, ssl.SSLError
    missing = Connection(parse_broker_url("mqtts://host"), ca_file=tmp_path / "none.pem")
    with pytest.raises(CredentialsError) as err:
        make_client(missing, "t")
    assert str(err.value) == (
        f"{tmp_path / 'none.pem'}: cannot use it as the broker's CA: No such file or directory"
    )
    garbage = tmp_path / "ca.pem"
    garbage.write_bytes(b"not a certificate\n")
    with pytest.raises(CredentialsError, match=r"ca\.pem: cannot use it as the broker's CA: "):
        make_client(Connection(parse_broker_url("mqtts://host"), ca_file=garbage), "t")


def test_a_client_id_that_is_no_utf8_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    """Review 95: scoreboard --client-id of bytes that are no UTF-8 reached paho, which raised
    (a traceback); --username refused the same bytes."""
    assert main(["scoreboard", "--client-id", "ab\udcff"]) == 2
    assert (
        capsys.readouterr()
        .err.strip()
        .endswith("argument --client-id: must be a client id of UTF-8 text")
    )


def test_a_ca_file_beside_a_plain_broker_url_is_refused(tmp_path: Path) -> None:
    """Review 104: TLS was switched on against mqtt://'s port 1883; the log said only
    "Connection reset by peer", and the table kept trying."""
    with pytest.raises(DataError, match=r"Option 'ca_file' in section 'events' means TLS, but "
                       r"the broker is mqtt:// on MQTT.s plain port 1883 .*write it mqtts://HOST"):  # fmt: skip
        read_events(
            {"events": {"broker": "mqtt://club.example", "table_id": "t1", "ca_file": "ca.pem"}},
            "config.toml", tmp_path,
        )  # fmt: skip
    assert main(["demo", "--mqtt", "mqtt://127.0.0.1", "--ca-file", __file__]) == 2
    # a CA file implies TLS, on the port the URL names (documented): as before
    kept = read_events(
        {"events": {"broker": "mqtt://club.example:8883", "table_id": "t1", "ca_file": "ca.pem"}},
        "config.toml", tmp_path,
    )  # fmt: skip
    assert kept is not None and kept.connection.tls and kept.connection.broker.port == 8883
