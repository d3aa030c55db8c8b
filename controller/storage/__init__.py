"""The table's storage: every game kind's journal on one crash-safe, hash-chained SQLite log.

Owns: the log itself (``chained_log.py``: WAL and ``synchronous=FULL``, the hash
chain, the file's ``application_id``/``user_version`` stamp and its ordered
migrations, undo markers, the append errors) and the journal of typed events
built on it (``journal.py``: the game's id and set-up in the ``meta`` table, each
event encoded to a row's kind and JSON payload and decoded back, and the journal's
error classes). The dice game's journal (:mod:`controller.game.journal`) and the
companion modes' (:mod:`controller.companion.journal`) are two kinds of it: each
names its file stamp, its migrations and how its events are encoded.

May import ``controller.core`` only.
"""
