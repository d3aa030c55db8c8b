"""``toptable bench``: every speed and memory figure, in one place above what it measures.

One module per area, each a ``main(argv) -> int`` that prints its figures
(:mod:`controller.cli.bench` dispatches): ``rules`` (throws scored per second),
``advisor`` (advice time, and its exact values against a Monte Carlo), ``game``
(bot games per second, journal replay), ``dice`` (dice reading speed and accuracy),
``board`` (the link's latency and the fault-injection stress), ``screens`` (render
time, bytes on the bus), ``daemon`` (the demo's memory, settle-to-screen latency,
idle CPU, the kill-and-resume runs) and ``events`` (publishing to MQTT and the
scoreboard, in :mod:`.scoreboard`, its targets and printing in :mod:`.events_report`);
``camera`` (the picamera2 source on simulated Pi cameras).
``kill`` is the one harness that kills a child process at a chosen event of its
journal and checks that the game resumes to the same end (the daemon bench's and
the tests'); ``resume`` is the daemon bench's kill test of every game kind.

May import every package but ``controller.cli``; nothing imports it but the CLI
and the tests. Figures are printed, never asserted.
"""
