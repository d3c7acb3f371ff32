"""Answers every request with nothing merged: each case fails, with its input, expected and got."""
import json
import sys

for line in sys.stdin:
    if line.strip():
        print(json.dumps({"intervals": [], "dropped": 0}), flush=True)
