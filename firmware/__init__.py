"""MicroPython firmware of the board's microcontroller; also importable on CPython."""
