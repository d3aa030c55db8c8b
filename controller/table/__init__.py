"""The table's game owner: the one holder of a game at the table, and what it shows.

Owns: applying what the players enter (camera reads, dice by hand,
corrections, board moves, buttons) to the game through its journal
(``controller.py``, ``entry.py``, the choosers of ``chooser.py``), the
45-minute clock (``clock.py``), the advisor's line (``advice.py``), the
screens' view (``view.py``) and the snapshot published after each change for
whoever acts at the table from another thread (``awaits.py``), and the
``[table]`` config section: the game set up at this table (``settings.py``);
a companion game kept at the table (``companion.py``).

May import: ``controller.core``, ``rules``, ``gamedata``, ``game``, ``companion``,
``advisor``, and the event and view types of ``vision`` and ``hardware``. Never
the daemon, its loop or the devices: the daemon wires the table's handlers to
its loop.
"""
