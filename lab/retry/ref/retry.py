"""The retry build in Python, over the lab protocol (lab/README.md, "The protocol").

Run it through the cases: ridge lab test retry --impl lab/retry/ref/retry.py
Time is virtual (attempts and sleeps advance it); draw i is the request's draws[i], clamped
to the bound asked for, or the bound itself once the list ends.
"""
import json
import sys


def bound(base, cap, retry):
    b = base
    for _ in range(retry):  # doubling step by step stops at the cap: no overflow
        if b >= cap:
            break
        b = cap if b > cap // 2 else b * 2
    return min(b, cap)


def run(req):
    base, cap = req["base_ns"], req["cap_ns"]
    max_attempts = req.get("max_attempts", 10)
    now = req.get("start_ns", 1_000_000_000)
    deadline_at = now + req.get("deadline_ns", 30_000_000_000)
    script, draws = req.get("attempts", []), req.get("draws", [])
    sleeps, bounds, remaining = [], [], []
    attempts, retry = 0, 0

    def reply(status):
        return {"status": status, "attempts": attempts, "sleeps_ns": sleeps, "bounds_ns": bounds,
                "remaining_ns": remaining, "end_ns": now}

    while True:
        left = deadline_at - now
        if left <= 0:
            return reply("deadline_exceeded")
        attempts += 1
        remaining.append(left)
        outcome = "retryable"
        if attempts <= len(script):
            step = script[attempts - 1]
            now += step.get("duration_ns", 0)
            outcome = step["outcome"]
        if outcome == "success":
            return reply("succeeded")
        if outcome == "permanent":
            return reply("permanent_failure")
        if attempts >= max_attempts:
            return reply("attempts_exhausted")
        b = bound(base, cap, retry)
        bounds.append(b)
        i = len(bounds) - 1
        sleep = min(draws[i], b) if i < len(draws) else b
        if now + sleep >= deadline_at:  # no attempt could start after this sleep
            return reply("deadline_exceeded")
        now += sleep
        sleeps.append(sleep)
        retry += 1


def handle(req):
    op = req["op"]
    if op == "bound":
        return {"bound_ns": bound(req["base_ns"], req["cap_ns"], req["retry"])}
    if op == "run":
        return run(req)
    return {"error": "unknown op %s; accepted: bound, run" % op}


for line in sys.stdin:
    if line.strip():
        print(json.dumps(handle(json.loads(line))), flush=True)
