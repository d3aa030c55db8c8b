"""Publishing a table's game over MQTT, so the tables of an evening can talk.

Owns: the ``[events]`` config section (:mod:`.settings`), the topics and the JSON
messages a table sends (:mod:`.messages`, with the pure :func:`state_message`; a
companion game's state message in :mod:`.companion`), the
MQTT client set-up shared with the scoreboard (:mod:`.client`), the journal-as-outbox
reader (:mod:`.outbox`), the publisher thread (:mod:`.publisher`) and how far it has got
(:mod:`.progress`), the multi-table
simulation (:mod:`.tables`); ``toptable bench events`` measures them from above
(:mod:`controller.bench.scoreboard`).

May import ``controller.core``, ``controller.rules``, ``controller.gamedata``,
``controller.game`` and ``controller.companion``; never ``controller.cli`` (its ``command.py`` only defines the
``register`` functions the CLI calls) nor the table, daemon or demo.
"""
