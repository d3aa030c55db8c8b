"""The daemon's place in the operating system: systemd notify, logging, memory.

Owns: sd_notify and the watchdog (:mod:`.sdnotify`), journald-friendly logging
(:mod:`.logs`), glibc memory tuning (:mod:`.memory`).
May import: core only.
"""
