"""Simulations of the camera libraries, shipped as gpiozero ships its mock pins.

``picamera2`` here is a simulated ``picamera2`` module: the ``Picamera2`` class's
job queue, event loop, sensor-mode probing and control refresh written after
picamera2's own source (each behaviour cites its function), over simulated
Camera Module 3, Camera Module 2, HQ camera and USB webcam sensors. The tests
and ``toptable bench camera`` pass it to
:class:`~vision.sources.picamera.Picamera2Source` in place of the real module;
why it is a simulation of picamera2 rather than the real picamera2 over a
simulated libcamera is said in ``vision/README.md``.
"""
