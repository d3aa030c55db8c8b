"""``toptable demo``: the table on simulated hardware, played by bots.

Owns: the demo runner (``runner.py``), the simulated world — board, dice tray,
buttons — the bots act in (``world.py``), the bots at the table (``players.py``)
and their view of it, the snapshots the table publishes on their own queue
(``watch.py``); a companion game played by bots (``companion.py``).

May import everything but ``controller.cli``.
"""
