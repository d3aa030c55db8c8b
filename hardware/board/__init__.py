"""The board link (host side): serial link, protocol session, simulator, fault relay, stress.

The wire format itself lives in :mod:`firmware.wire`, shared with the firmware.
"""
