"""Build-time tools, run from a checkout (``python -m tools.<package>.<module>``); not installed."""
