"""Allocates 200 MiB, then answers intervals' case merge-joins-touching: it passes under the
default 512 MiB limit and must fail under --memory 100 (lab/sandbox_test.sh)."""
import json
import sys

block = bytearray(200 << 20)
for line in sys.stdin:
    if line.strip():
        print(json.dumps({"intervals": [[0, 20], [30, 40]], "dropped": 0}), flush=True)
