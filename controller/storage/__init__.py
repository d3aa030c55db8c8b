"""The table's storage: every game kind's journal on one crash-safe, hash-chained SQLite log.

Owns: the log itself (``chained_log.py``: WAL and ``synchronous=FULL``, the hash
chain, the file's ``application_id``/``user_version`` stamp and its ordered
migrations, undo markers, the append errors; its rows' format in ``rows.py``), its
one writer (``lock.py``: a lock file beside the journal, held while it is open for
writing, so a second writer is refused at its open) and the journal of typed events
built on it (``journal.py``: the game's id and set-up in the ``meta`` table, each
event encoded to a row's kind and JSON payload and decoded back), the journal's
error classes (``errors.py``), what a journal records of its game's making (``origin.py``: the
seed, the data set's fingerprint, and the refusal of a flag that contradicts them)
and what is wrong with a journal's place (``place.py``: its folder missing,
read-only or another user's, a full disk, a file this user cannot read: one line
each, told apart from a damaged journal). The dice game's journal (:mod:`controller.game.journal`) and the
companion modes' (:mod:`controller.companion.journal`) are two kinds of it: each
names its file stamp, its migrations and how its events are encoded.

May import ``controller.core`` only.
"""
