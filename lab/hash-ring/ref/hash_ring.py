"""The hash-ring build in Python, over the lab protocol (lab/README.md, "The protocol").

Run it through the cases: ridge lab test hash-ring --impl lab/hash-ring/ref/hash_ring.py
Python integers do not wrap, so every 64-bit product is masked.
"""
import bisect
import json
import sys

MASK = (1 << 64) - 1


def fnv1a64(data):
    h = 0xCBF29CE484222325
    for byte in data:
        h ^= byte
        h = (h * 0x100000001B3) & MASK
    return h


def mix64(x):
    x ^= x >> 33
    x = (x * 0xFF51AFD7ED558CCD) & MASK
    x ^= x >> 33
    x = (x * 0xC4CEB9FE1A85EC53) & MASK
    x ^= x >> 33
    return x


def stable_hash64(text):
    return mix64(fnv1a64(text.encode("utf-8")))


class HashRing:
    def __init__(self, points_per_replica):
        self.per = points_per_replica
        self.replicas = set()
        self.points = []  # (hash, replica), sorted: ties go to the smaller name

    def rebuild(self):
        self.points = sorted((stable_hash64("%s#%d" % (r, i)), r) for r in self.replicas for i in range(self.per))
        self.hashes = [p[0] for p in self.points]

    def add(self, replica):
        if replica in self.replicas:
            return False
        self.replicas.add(replica)
        self.rebuild()
        return True

    def remove(self, replica):
        if replica not in self.replicas:
            return False
        self.replicas.remove(replica)
        self.rebuild()
        return True

    def owner_of_hash(self, h):
        if not self.points:
            return None
        i = bisect.bisect_left(self.hashes, h)  # first point at or after h
        if i == len(self.points):
            i = 0  # past the largest point: wrap around
        return self.points[i][1]


ring = None


def handle(req):
    global ring
    op = req["op"]
    if op == "hash":
        data = req["bytes"].encode("utf-8")
        return {"fnv1a64": fnv1a64(data), "stable": mix64(fnv1a64(data))}
    if op == "mix64":
        return {"mix64": mix64(req["x"])}
    if op == "new":
        if req["points_per_replica"] < 1:
            return {"error": "points_per_replica must be >= 1"}
        ring = HashRing(req["points_per_replica"])
        return {"ok": True}
    if op == "add":
        return {"added": ring.add(req["replica"])}
    if op == "remove":
        return {"removed": ring.remove(req["replica"])}
    if op == "owner":
        return {"owner": ring.owner_of_hash(stable_hash64(req["key"]))}
    if op == "owners":
        return {"owners": [ring.owner_of_hash(stable_hash64(k)) for k in req["keys"]]}
    if op == "owner_of_hash":
        return {"owner": ring.owner_of_hash(req["hash"])}
    if op == "stats":
        return {"replicas": len(ring.replicas), "points": len(ring.points)}
    if op == "points":
        return {"points": [[h, r] for h, r in ring.points]}
    return {"error": "unknown op %s; accepted: hash, mix64, new, add, remove, owner, owners, owner_of_hash, stats, points" % op}


for line in sys.stdin:
    if line.strip():
        print(json.dumps(handle(json.loads(line))), flush=True)
