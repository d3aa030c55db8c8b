"""MicroPython firmware of the board's microcontroller; also importable on CPython.

Owns: the sensor scan, debounce, the wire format (:mod:`firmware.wire`, shared with
the host) and the link's acks and resync. May import: MicroPython's own modules
and this package only (tests/firmware/test_mpy_cross.py checks it).
"""
