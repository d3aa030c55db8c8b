"""Camera sources behind one interface, chosen by the ``[camera]`` section.

Owns: the ``FrameSource`` interface, the OpenCV (V4L2, video file), folder and
synthetic sources and ``open_source`` (:mod:`.source`), the Pi Camera Module
(:mod:`.picamera`; the installed picamera2 package checked in :mod:`.picamera_package`),
what a V4L2 camera offers (:mod:`.v4l2`) and what a source
really delivers (:mod:`.delivery`).
May import: :mod:`controller.core`, vision's leaf modules and :mod:`vision.synth`.
"""
