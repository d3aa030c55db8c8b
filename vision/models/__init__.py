"""Shipped face models (``.npz``); a package so that the files install with the code."""
