"""The table daemon: one loop thread owns the game and every timer; devices post events.

Owns: the loop with its timers (``loop.py``), the daemon's own events
(``events.py``), the devices opened from the config (``hardware.py``, with the
camera's hand-off in ``camera.py``), the game of every kind from its journal
(``journals.py``), its table opened on the devices (``tables.py``: the dice game
or a companion mode, wired to the loop by ``wiring.py`` and published by
``publishing.py``) and ``toptable run``
(``run.py``). The demo (:mod:`controller.demo`) runs the same pieces on simulated
devices.

May import everything but ``controller.cli``.
"""
