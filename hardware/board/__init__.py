"""The board link (host side): serial link, protocol session, simulator, fault relay, stress.

The wire format itself lives in :mod:`firmware.wire`, shared with the firmware.
Owns the ``[board]`` config section (:mod:`hardware.board.settings`). Imports
only :mod:`controller.core`, :mod:`firmware` and this package (and pyserial).
"""
