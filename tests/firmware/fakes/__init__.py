"""Fakes of the MicroPython-only modules the firmware uses on the Pico, and of its wiring.

They follow the MicroPython documentation (docs.micropython.org, library
``machine.Pin``, ``machine.WDT``, ``time``, ``select``, ``micropython``) closely
enough to run ``firmware/main.py``, ``hw_165.py`` and ``hw_4067.py`` on CPython:

* ``clock``: ``ticks_ms``/``ticks_add``/``ticks_diff`` with MicroPython's
  wrap-around (period 2**30) and ``sleep_ms``, on a simulated clock with timers;
* ``machine``: ``Pin`` (modes, pulls, ``value()``) on a simulated wiring bus,
  ``WDT`` that resets the board when not fed in time, ``reset()``;
* ``select``: ``poll()`` with ``register``/``modify``/``unregister``/``poll``/``ipoll``;
* ``micropython``: ``kbd_intr``, ``const``;
* ``usb``: ``sys.stdin``/``sys.stdout`` of the USB CDC serial, with a host at the other end
  (one that may hold the port open and stop reading: the rp2's writes then wait);
* ``hc165``, ``hc4067``: the 74HC165 shift-register chain and 74HC4067 multiplexers;
* ``pico``: all of it together (the ``pico`` fixture in ``tests/firmware/conftest.py``).
"""
