"""Making a paho-mqtt 2.x client for a broker: TLS, credentials, reconnect timing, refusals.

Shared by the table's publisher and the scoreboard's subscriber. The password
is read from its file here and handed to paho only: it is never logged (paho's
own logger is left off) nor kept anywhere else.
"""

from __future__ import annotations

import ssl
from pathlib import Path

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from controller.publish.settings import Connection, CredentialsError

RECONNECT_MIN_S = 1
RECONNECT_MAX_S = 4  # the table is back on the scoreboard at most this long after the broker


def make_client(
    conn: Connection,
    client_id: str,
    *,
    clean_session: bool = True,
    will: tuple[str, bytes] | None = None,
) -> mqtt.Client:
    """A configured, not yet connected client (MQTT 3.1.1, callback API version 2).

    ``will``: (topic, payload) sent retained at QoS 1 if the client vanishes.

    Raises:
        CredentialsError: the password file cannot be read or holds no password.
    """
    client = mqtt.Client(
        CallbackAPIVersion.VERSION2,
        client_id=client_id,
        clean_session=clean_session,
        protocol=mqtt.MQTTv311,
    )
    if conn.username is not None:
        client.username_pw_set(conn.username, conn.password())
    if conn.tls:
        try:
            client.tls_set(
                ca_certs=str(conn.ca_file) if conn.ca_file is not None else None,
                cert_reqs=ssl.CERT_REQUIRED,
                tls_version=ssl.PROTOCOL_TLS_CLIENT,
            )
        except (OSError, ssl.SSLError) as exc:  # paho loads the file here (SSLContext)
            raise CredentialsError(ca_file_problem(conn.ca_file, exc)) from None
    if will is not None:
        client.will_set(will[0], will[1], qos=1, retain=True)
    client.reconnect_delay_set(RECONNECT_MIN_S, RECONNECT_MAX_S)
    return client


def ca_file_problem(ca_file: Path | None, exc: OSError | ssl.SSLError) -> str:
    """Why the CA file (or the system's CAs, for ``None``) cannot be used, in one line."""
    why = exc.strerror if isinstance(exc, OSError) and exc.strerror else " ".join(str(exc).split())
    return f"{ca_file or 'the system CA store'}: cannot use it as the broker's CA: {why}"


def reason_text(reason: object) -> str:
    """A paho reason code as words (never holds credentials)."""
    return str(getattr(reason, "getName", lambda: reason)())
