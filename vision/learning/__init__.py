"""Learning the owner's dice: labeled photos in, a face model out, and its figures.

Owns: labeled datasets (:mod:`.dataset`) and capturing one (:mod:`.capture`),
calibration (:mod:`.calibrate`, the finder's training in :mod:`.detect_train`),
scoring reads against labels (:mod:`.evaluate`), reports (:mod:`.report`),
progress callbacks (:mod:`.progress`) and the default model, shipped or calibrated
now on synthetic dice (:mod:`.defaults`).
May import: :mod:`controller.core` and every other part of vision.
"""
