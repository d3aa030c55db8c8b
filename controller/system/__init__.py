"""The daemon's place in the operating system: systemd notify, logging, memory.

Owns: sd_notify and the watchdog (:mod:`.sdnotify`), journald-friendly logging
(:mod:`.logs`), glibc memory tuning (:mod:`.memory`), the ``[log]`` config
section (:mod:`.settings`), serial ports (:mod:`.serial_ports`), and
``toptable service install``: the shipped files (:mod:`.unit_files`), the plan
(:mod:`.service`) and carrying it out (:mod:`.install_steps`).
May import: core only.
"""
