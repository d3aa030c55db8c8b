"""The table daemon: one thread owns the game; devices post typed events to its queue."""
