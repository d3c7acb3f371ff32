"""Raises on the first request: the harness reports the exit status and the traceback."""
import sys

for line in sys.stdin:
    raise RuntimeError("crash on purpose")
