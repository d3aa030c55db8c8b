"""toptable: the daemon, rules engine, game data, journal and CLI of the dice table.

Each subpackage's docstring says what it owns and what it may import; the
order (core up to cli) is drawn in the README and checked by tests/test_layers.py.
"""

__version__ = "0.1.0"
