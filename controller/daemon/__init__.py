"""The table daemon: one loop thread owns the game and every timer; devices post events.

Owns: the loop with its timers (``loop.py``), the daemon's own events
(``events.py``), the wiring of the table and the board follower to the loop
(``wiring.py``), the devices opened from the config (``hardware.py``),
``toptable run`` (``run.py``; a companion game's table: ``companion.py``) and
``toptable bench daemon`` (``bench.py``).

May import everything but ``controller.cli``.
"""
