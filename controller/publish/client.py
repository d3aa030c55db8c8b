"""Making a paho-mqtt 2.x client for a broker: TLS, credentials, reconnect timing, refusals.

Shared by the table's publisher and the scoreboard's subscriber. The password
is read from its file here and handed to paho only: it is never logged (paho's
own logger is left off) nor kept anywhere else.
"""

from __future__ import annotations

import ssl

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from controller.publish.settings import Connection

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
        CredentialsError: the password file cannot be read.
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
        client.tls_set(
            ca_certs=str(conn.ca_file) if conn.ca_file is not None else None,
            cert_reqs=ssl.CERT_REQUIRED,
            tls_version=ssl.PROTOCOL_TLS_CLIENT,
        )
    if will is not None:
        client.will_set(will[0], will[1], qos=1, retain=True)
    client.reconnect_delay_set(RECONNECT_MIN_S, RECONNECT_MAX_S)
    return client


def reason_text(reason: object) -> str:
    """A paho reason code as words (never holds credentials)."""
    return str(getattr(reason, "getName", lambda: reason)())
