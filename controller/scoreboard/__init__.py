"""The evening's web scoreboard: every table's game, live, and the standings across tables.

Owns: the store of what the tables publish (:mod:`.model`), its checks of
untrusted messages (:mod:`.checks`), the tables' event streams
(:mod:`.streams`) and the standings (:mod:`.standings`), the MQTT subscriber
(:mod:`.subscriber`), the web server and its static page (:mod:`.server`,
``static/``), and ``toptable scoreboard`` (:mod:`.command`).

May import ``controller.core``, ``controller.game`` and ``controller.publish``
(topics, message schema, broker settings); never ``controller.cli`` (its
``command.py`` only defines the ``register`` function the CLI calls).
"""
