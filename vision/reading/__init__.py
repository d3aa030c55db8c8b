"""Reading the dice: a frame in, the dice found and their faces read, one event a throw.

Owns: settle detection (:mod:`.settle`), finding dice (:mod:`.detect`,
:mod:`.die_shape`), describing a die (:mod:`.features`, :mod:`.embedding` — the
shipped network's forward pass, by ``cv2.dnn`` (:mod:`.embedding_dnn`) with numpy as
its reference — and :mod:`.describe`), the face model and its file (:mod:`.model`,
:mod:`.stored`), one frame read (:mod:`.read`), roll tracking (:mod:`.tracking`) and
the reader the table uses, ``DiceReader`` and ``CameraWorker`` (:mod:`.reader`).
May import: :mod:`controller.core`, vision's leaf modules, :mod:`vision.synth` and
:mod:`vision.sources`; never :mod:`vision.learning`.
"""
