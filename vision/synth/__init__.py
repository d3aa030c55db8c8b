"""The synthetic renderer: our own drawings of the game's dice, in a tray, seen from above.

Owns: one die and its placement (:mod:`.die`), scenes and labeled datasets of them
(:mod:`.scenes`), scripted attacks as camera frames (:mod:`.throws`).
May import: :mod:`controller.core` and vision's leaf modules only.
"""
