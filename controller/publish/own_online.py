"""What a table hears on its own ``online`` topic, which it subscribes to before it says
online there: its own message back, a second table using its table id, or the last will
of its own dead predecessor.

- **Its own message back** proves the broker's ACL gives this user the table's topics.
  With the shipped ACL (``pattern write toptable/%u/#``, ``pattern read
  toptable/%u/online``) a user name that is not the table id may neither write nor read
  them, and mosquitto 2.0 says neither: it grants the SUBSCRIBE (SUBACK QoS 1, measured
  with 2.0.11) and acknowledges each denied QoS 1 PUBLISH (``handle__publish``), dropping
  it. The table would count every event delivered while the room sees none.
- **Another instance's "online", sent live** (not a retained copy): a second process
  publishes as this table id now (a cloned SD card).
- **Another instance's retained "online"** is only a suspicion: after a power cut it is
  the dead process's, whose connection the broker keeps up to 1.5 keepalives.
- **Another instance's "offline"**: that dead connection's will, retained over this
  table's "online": the table says online again.
"""

from __future__ import annotations

import json
from enum import Enum

from controller.publish.messages import OFFLINE, ONLINE

ECHO_WAIT_S = 5.0
"""How long after saying online the table waits for its own message to come back."""


class Heard(Enum):
    """What one message on the table's own ``online`` topic means."""

    NOTHING = "nothing"  # unreadable, or this process's own message
    SUSPECT = "suspect"  # another instance's retained "online": a clone, or a dead process
    CLONE = "clone"  # another instance's live "online": a second table with this id
    WILL = "will"  # another instance's "offline": say online again


class OwnOnline:
    """One publisher's own ``online`` topic (used on the publisher thread)."""

    def __init__(self, instance: str) -> None:
        self.instance = instance
        self._sent_at: float | None = None
        self._seen = False

    def said_online(self, now: float) -> None:
        """The table said online (on a fresh connection): the wait for its echo begins."""
        self._sent_at, self._seen = now, False

    def heard(self, payload: bytes, retained: bool) -> tuple[Heard, str]:
        """What a message means, and the other instance it names ("" for none)."""
        try:
            data = json.loads(payload[:512])
        except ValueError:
            return Heard.NOTHING, ""
        other = data.get("instance") if isinstance(data, dict) else None
        if not isinstance(other, str):
            return Heard.NOTHING, ""
        status = data.get("status")
        if other == self.instance:
            self._seen = self._seen or status == ONLINE
            return Heard.NOTHING, ""
        if status == OFFLINE:
            return Heard.WILL, other
        if status != ONLINE:
            return Heard.NOTHING, ""
        return (Heard.SUSPECT if retained else Heard.CLONE), other

    def echo_overdue(self, now: float) -> bool:
        """True once per connection, when the table's own message has not come back."""
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
