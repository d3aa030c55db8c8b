"""Experiments whose figures docs/decisions/vision.md reports; not part of the product."""
