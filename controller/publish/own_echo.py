"""Whether the broker hands a table its own "online" message back: the proof that its ACL
gives this user the table's topics.

A table subscribes to its own ``online`` topic before it says online there (to notice a
second table using its id). With the shipped ACL (``pattern write toptable/%u/#``,
``pattern read toptable/%u/online``) a user name that is not the table id may neither
write nor read those topics, and mosquitto 2.0 neither says so: it grants the SUBSCRIBE
(SUBACK QoS 1, measured with 2.0.11) and acknowledges each denied QoS 1 PUBLISH
(``handle__publish``), dropping it. The table would count every event delivered while the
room sees none. Its own message never coming back is the one sign.
"""

from __future__ import annotations

ECHO_WAIT_S = 5.0
"""How long after saying online the table waits for its own message to come back."""


class OwnEcho:
    """One connection's wait for the table's own "online" message (the publisher thread's)."""

    def __init__(self) -> None:
        self._sent_at: float | None = None
        self._seen = False

    def sent(self, now: float) -> None:
        """The table said online (on a fresh connection): the wait begins again."""
        self._sent_at, self._seen = now, False

    def seen(self) -> None:
        """The broker handed the table's own "online" back."""
        self._seen = True

    def overdue(self, now: float) -> bool:
        """True once per connection, when the message has not come back in time."""
        if self._seen or self._sent_at is None or now - self._sent_at < ECHO_WAIT_S:
            return False
        self._sent_at = None
        return True


def no_echo_text(table_id: str, username: str | None) -> str:
    """What a table whose own message never came back tells its owner."""
    return (
        f"table {table_id}: the broker did not hand back this table's own 'online' message "
        f"in {ECHO_WAIT_S:.0f} s: its ACL does not let user {username!r} read "
        f"toptable/{table_id}/online, and with the shipped ACL it drops every event it "
        "acknowledges too (a table logs in with its table id as its user name: set [events] "
        "username = table_id)"
    )
