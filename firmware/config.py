"""The board's configuration: edit before `toptable firmware deploy` (see firmware/README.md)."""

SENSORS = 42  # sensors wired, 1..128 (the example board has 42 spaces)
DRIVER = "165"  # "165": 74HC165 shift-register chain; "4067": 74HC4067 multiplexers
ACTIVE_LOW = True  # DRV5032-style open-drain outputs pull low when a magnet is near

# 74HC165 chain: GPIO numbers of /PL (load), CP (clock) and Q7 of the last chip
PIN_LOAD = 2
PIN_CLOCK = 3
PIN_DATA = 4

# 74HC4067 multiplexers: S0..S3 shared, one signal (Z) pin per multiplexer, 16 sensors each
PINS_SELECT = (6, 7, 8, 9)
PINS_SIGNAL = (10, 11, 12, 13, 14, 15, 16, 17)

SCAN_MS = 5  # 200 Hz scan
DEBOUNCE = 2  # samples that must agree before a change counts
HEARTBEAT_MS = 250  # 1..1000: before IDENTIFY the host hears the board by these alone
WATCHDOG_MS = 2000  # 100..8388: the RP2040 watchdog resets a board whose loop stalls this long
BOOT_FILE = "boot_count"
PIN_MAINTENANCE = 22  # tie to GND at power-up to stay in the REPL (no scanning, no watchdog)
BOOT_GRACE_MS = 1000  # after a reset, Ctrl-C (mpremote) still works this long
