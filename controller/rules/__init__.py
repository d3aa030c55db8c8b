"""The pure rules engine: no I/O, no clock, randomness only from a passed RNG."""
