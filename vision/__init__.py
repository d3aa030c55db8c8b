"""Reading the dice: camera frames in, one typed event per settled throw out.

Subpackages by job, each importing only the ones above it in this list
(``tests/test_layers.py`` checks it):

- the leaf modules here, which every subpackage may use: :mod:`.errors` (the
  package's exceptions), :mod:`.events` (what the reader posts to the table),
  :mod:`.settings` (the ``[camera]`` config section and ``CameraConfig``),
  :mod:`.images` (image files);
- :mod:`.synth`: the synthetic renderer (dice, scenes, scripted attacks, datasets);
- :mod:`.sources`: camera sources behind one interface (V4L2, picamera2, video
  file, folder, synthetic);
- :mod:`.reading`: one frame read (settle, find, describe, classify), roll
  tracking, ``DiceReader`` and ``CameraWorker``;
- :mod:`.learning`: labeled datasets, capture, calibration, evaluation and reports,
  and the shipped default model.

``models/`` holds the shipped files (the face-embedding network, the synthetic
model). Imports only :mod:`controller.core` and this package (and OpenCV, NumPy).
"""
