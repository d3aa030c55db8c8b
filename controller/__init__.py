"""toptable: the daemon, rules engine, game data, journal and CLI of the dice table."""

__version__ = "0.1.0"
