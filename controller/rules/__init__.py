"""The pure rules engine: no I/O, no clock, randomness only from a passed RNG.

Owns: scoring, pools, endurance, speed and defences allowed, warriors' types, the
attack and the one combat sequence. May import: controller.core only.
"""
