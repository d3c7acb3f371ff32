"""Tries the network from inside the sandbox (lab/sandbox_test.sh replaces @PORT@ with a
TCP listener's port on 127.0.0.1) and replies with what happened, for every request."""
import json
import socket
import sys

results = {}
try:
    socket.create_connection(("127.0.0.1", int("@PORT@")), timeout=3).close()
    results["connect"] = "connected"
except OSError as e:
    results["connect"] = "failed: %s" % e
try:
    socket.getaddrinfo("deb.debian.org", 443)
    results["dns"] = "resolved"
except OSError as e:
    results["dns"] = "failed: %s" % e
for line in sys.stdin:
    if line.strip():
        print(json.dumps(results), flush=True)
