"""Reading the dice: camera sources, settle detection, finding dice, face classifier.

Owns the ``[camera]`` config section (:mod:`vision.settings`: its schema,
limits, and the settings a frame source takes). Imports only
:mod:`controller.core` and this package (and OpenCV, NumPy).
"""
