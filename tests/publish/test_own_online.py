"""What a table hears on its own ``online`` topic (:mod:`controller.publish.own_online`)."""

from __future__ import annotations

from controller.publish.messages import online_message
from controller.publish.own_online import ECHO_WAIT_S, Heard, OwnOnline


def test_only_its_own_online_message_back_proves_the_acl() -> None:
    """The table's own "offline" (its last will, retained from a dropped connection) is no
    proof that the broker hands back what it says now: the owner is still told after the
    wait, and only once; its own "online" back is the proof."""
    own = OwnOnline("ab12")
    own.said_online(100.0)
    assert own.heard(online_message("t1", False, "ab12"), True) == (Heard.NOTHING, "")
    assert own.echo_overdue(100.0 + ECHO_WAIT_S)
    assert not own.echo_overdue(200.0)
    own.said_online(300.0)  # a new connection
    assert own.heard(online_message("t1", True, "ab12"), False) == (Heard.NOTHING, "")
    assert not own.echo_overdue(300.0 + ECHO_WAIT_S)
