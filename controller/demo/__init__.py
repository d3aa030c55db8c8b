"""``toptable demo``: the daemon on simulated devices, played by bots.

Owns only what is not the daemon: the simulated world the bots act in —
the dice tray the camera reads (``tray.py``), hands on the simulated board and
fingers on the mock buttons (``world.py``) —, the bots at the dice table
(``players.py``) and their view of it, the snapshots the table publishes on their
own queue (``watch.py``), the runners of a dice game (``runner.py``, with its
summary in ``summary.py``) and of a companion game (``companion.py``), what they
keep of the screens (``record.py``), and the one way both open the daemon's table
from a config on a loop thread (``table.py``).

May import everything but ``controller.cli``.
"""
