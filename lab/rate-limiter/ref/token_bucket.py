"""The rate-limiter build in Python, over the lab protocol (lab/README.md, "The protocol").

Run it through the cases: ridge lab test rate-limiter --impl lab/rate-limiter/ref/token_bucket.py
Tokens are integer units of 1e-9 token; a rate of r tokens/s is r units per nanosecond.
The clock is each request's now_ns.
"""
import json
import sys

UNITS = 1_000_000_000


class TokenBucket:
    def __init__(self, capacity, rate, now):
        self.capacity = capacity * UNITS
        self.rate = rate
        self.units = self.capacity  # starts full
        self.last = now

    def units_at(self, t):
        if t <= self.last:  # a clock that did not advance (or went back) adds nothing
            return self.units
        return min(self.capacity, self.units + (t - self.last) * self.rate)

    def acquire(self, cost, now):
        if cost < 1:
            return "invalid_cost", 0
        if cost * UNITS > self.capacity:
            return "never_fits", 0
        self.units = self.units_at(now)
        self.last = max(self.last, now)
        need = cost * UNITS
        if self.units >= need:
            self.units -= need
            return "allowed", 0
        deficit = need - self.units
        return "denied", -(-deficit // self.rate)  # rounded up


bucket = None


def handle(req):
    global bucket
    op, now = req["op"], req["now_ns"]
    if op == "new":
        bucket = TokenBucket(req["capacity"], req["rate"], now)
        return {"ok": True}
    if op == "acquire":
        verdict, wait = bucket.acquire(req["cost"], now)
        return {"verdict": verdict, "retry_after_ns": wait}
    if op == "available":
        return {"units": bucket.units_at(now)}
    return {"error": "unknown op %s; accepted: new, acquire, available" % op}


for line in sys.stdin:
    if line.strip():
        print(json.dumps(handle(json.loads(line))), flush=True)
