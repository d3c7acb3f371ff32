"""The kv-versioned build in Python, over the lab protocol (lab/README.md, "The protocol").

Run it through the cases: ridge lab test kv-versioned --impl lab/kv-versioned/ref/versioned_kv.py
Each key keeps its writes ascending by version; None is a tombstone.
"""
import bisect
import json
import sys


class VersionedKv:
    def __init__(self):
        self.version = 0
        self.oldest = 0
        self.data = {}  # key -> [(version, value or None)], ascending

    def write(self, key, value):
        self.version += 1
        self.data.setdefault(key, []).append((self.version, value))
        return self.version

    def check(self, v):
        if v > self.version:
            return "future_version"  # not "latest": writes still to come would change it
        if v < self.oldest:
            return "compacted"
        return None

    @staticmethod
    def visible(history, v):
        i = bisect.bisect_right([w[0] for w in history], v)
        return history[i - 1] if i > 0 else None

    def get_at(self, key, v):
        bad = self.check(v)
        if bad:
            return {"status": bad}
        w = self.visible(self.data.get(key, []), v)
        if w is None or w[1] is None:
            return {"status": "not_found"}
        return {"status": "found", "value": w[1], "version": w[0]}

    def scan_at(self, v):
        bad = self.check(v)
        if bad:
            return {"status": bad}
        entries = []
        for key in sorted(self.data):  # byte order, as std::map<std::string> sorts
            w = self.visible(self.data[key], v)
            if w is not None and w[1] is not None:
                entries.append([key, w[1]])
        return {"status": "found", "entries": entries}

    def compact(self, oldest):
        oldest = min(oldest, self.version)
        if oldest <= self.oldest:
            return 0
        self.oldest = oldest
        dropped = 0
        for key in list(self.data):
            history = self.data[key]
            i = bisect.bisect_right([w[0] for w in history], oldest)
            if i == 0:
                continue
            dropped += i - 1  # keep the write visible at oldest and everything newer
            del history[:i - 1]
            if len(history) == 1 and history[0][1] is None:  # only a tombstone left
                dropped += 1
                del self.data[key]
        return dropped


kv = VersionedKv()


def handle(req):
    op = req["op"]
    if op == "put":
        return {"version": kv.write(req["key"], req["value"])}
    if op == "erase":
        return {"version": kv.write(req["key"], None)}
    if op == "get":
        return kv.get_at(req["key"], kv.version)
    if op == "get_at":
        return kv.get_at(req["key"], req["version"])
    if op == "scan_at":
        return kv.scan_at(req["version"])
    if op == "compact":
        return {"dropped": kv.compact(req["oldest"])}
    if op == "stats":
        return {"current_version": kv.version, "oldest_readable": kv.oldest,
                "history_size": sum(len(h) for h in kv.data.values())}
    return {"error": "unknown op %s; accepted: put, erase, get, get_at, scan_at, compact, stats" % op}


for line in sys.stdin:
    if line.strip():
        print(json.dumps(handle(json.loads(line))), flush=True)
