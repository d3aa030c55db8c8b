"""Benchmarks: ``toptable bench`` figures, measured from above the packages they measure."""
