"""Clock functions that exist on MicroPython and on CPython alike."""

__all__ = ["sleep_ms", "ticks_add", "ticks_diff", "ticks_ms"]

try:
    from time import sleep_ms, ticks_add, ticks_diff, ticks_ms  # type: ignore[attr-defined]
except ImportError:
    import time as _time

    _START = _time.monotonic()

    def ticks_ms() -> int:
        """Milliseconds from an arbitrary start (MicroPython's ticks_ms on CPython)."""
        return int((_time.monotonic() - _START) * 1000)

    def ticks_add(a: int, b: int) -> int:
        """a + b milliseconds (MicroPython's ticks_add; no wrap on CPython)."""
        return a + b

    def ticks_diff(a: int, b: int) -> int:
        """a - b in milliseconds (MicroPython's ticks_diff; no wrap on CPython)."""
        return a - b

    def sleep_ms(ms: int) -> None:
        """Sleep for ``ms`` milliseconds."""
        _time.sleep(ms / 1000)
