"""The table's game published over MQTT when ``[events]`` (or ``demo --mqtt``) asks for it.

One place for the daemon and the demo, for the dice game (:func:`publish_table`) and
a companion mode (:func:`publish_companion`): start the publisher, point it at the
game's journal (the outbox), and tell it after every change of the game. The
publisher's own thread talks to the broker; the table never waits for it.

The demo is stricter than the daemon (a person runs it and reads its output): it
waits for its broker's first answer before playing (:func:`require_link`) and says
at its end how much of the game went out (:func:`finish_publishing`).
"""

from __future__ import annotations

import logging
from pathlib import Path

from controller.game.session import TableGame
from controller.publish.errors import LinkError
from controller.publish.link import LinkState
from controller.publish.people import person_ids
from controller.publish.progress import Delivery
from controller.publish.publisher import Publisher
from controller.publish.settings import EventsSettings, PublishError
from controller.table.companion import CompanionTable
from controller.table.controller import TableController

log = logging.getLogger(__name__)

DEMO_LINK_WAIT_S = 10.0  # the demo's wait for its broker's first answer


def publish_table(
    events: EventsSettings | None, game: TableGame, table: TableController
) -> Publisher | None:
    """Start publishing ``game`` as ``table`` plays it, or None when publishing is off.

    A publisher that cannot start (an unreadable password file, a bad CA file) is
    logged and the game goes on unpublished: the table never waits for the network.
    """
    publisher = _start(events, game.journal.path, game.journal.game_id)
    if publisher is None:
        return None

    def tell(state: object) -> None:
        publisher.notify(table.state, len(game.journal), table.seconds_left())

    table.listeners.append(tell)
    tell(table.state)
    return publisher


def publish_companion(events: EventsSettings | None, table: CompanionTable) -> Publisher | None:
    """Start publishing the companion game ``table`` keeps, or None when publishing is off.

    Every row of its journal is sent (actions, refused actions, undo markers: the
    sequence numbers stay gap-free), then the state (:mod:`controller.publish.companion`).
    """
    publisher = _start(events, table.journal.path, table.journal.game_id)
    if publisher is None:
        return None

    def tell(t: CompanionTable) -> None:
        publisher.notify_companion(t.mode, t.state, len(t.journal))

    table.listeners.append(tell)
    tell(table)
    return publisher


def require_link(publisher: Publisher | None, timeout: float = DEMO_LINK_WAIT_S) -> None:
    """Return once the broker accepted ``publisher`` (at once when None: not publishing).

    Raises:
        LinkError: the broker refused it (a password, the ACL, a certificate), could
            not be reached, or did not answer within ``timeout`` s.
    """
    if publisher is None:
        return
    status = publisher.wait_link(timeout)
    if status.state is LinkState.CONNECTED:
        return
    why = status.problem or f"no answer in {timeout:g} s"
    raise LinkError(f"broker {status.broker} {status.state.value}: {why}; nothing was played")


def finish_publishing(publisher: Publisher | None, timeout: float) -> Delivery | None:
    """Wait up to ``timeout`` s for the broker to take the rest of the game, close, and say
    how much it took (None: not publishing)."""
    if publisher is None:
        return None
    delivery = publisher.finish(timeout)
    log.info("events: %s", delivery.text())
    return delivery


def _start(events: EventsSettings | None, journal: Path, game_id: str) -> Publisher | None:
    """A publisher of the game journalled at ``journal``, started (None: publishing is off,
    or cannot start). The journal is attached first: the publisher's first word on an
    unreachable broker says how many of its events wait."""
    if events is None:
        return None
    try:
        people = person_ids(events.people)
        publisher = Publisher(events.connection, events.table_id, people=people)
        publisher.attach(journal, game_id)
        publisher.start()
    except PublishError as exc:
        log.error("events: not publishing: %s", exc)
        return None
    log.info("events: publishing table %s to %s", events.table_id, events.connection.broker.url)
    return publisher
