"""The intervals build in Python, over the lab protocol (lab/README.md, "The protocol").

Run it through the cases: ridge lab test intervals --impl lab/intervals/ref/intervals.py
Intervals are half-open [start, end): touching intervals of one rank merge, touching
intervals of two ranks share no idle time.
"""
import json
import sys


def merge(intervals):
    kept = sorted((s, e) for s, e in intervals if s < e)
    dropped = len(intervals) - len(kept)
    out = []
    for s, e in kept:
        if out and s <= out[-1][1]:  # overlaps or touches
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out, dropped


def idle_at_least(ranks, k):
    if k == 0 or k > len(ranks):
        return []
    events = []
    for rank in ranks:
        for s, e in merge(rank)[0]:  # merge first, or a rank counts twice
            events.append((s, +1))
            events.append((e, -1))
    events.sort()  # at equal times -1 sorts first: ends before starts
    out, idle, opened = [], 0, None
    for t, delta in events:
        idle += delta
        if idle >= k and opened is None:
            opened = t
            if out and out[-1][1] == t:  # a stretch that closed at this instant goes on
                opened = out.pop()[0]
        elif idle < k and opened is not None:
            if t > opened:
                out.append([opened, t])
            opened = None
    return out


def handle(req):
    op = req["op"]
    if op == "merge":
        merged, dropped = merge(req["intervals"])
        return {"intervals": merged, "dropped": dropped}
    if op == "idle_at_least":
        return {"intervals": idle_at_least(req["ranks"], req["k"])}
    if op == "all_idle":
        return {"intervals": idle_at_least(req["ranks"], len(req["ranks"]))}
    if op == "any_idle":
        return {"intervals": idle_at_least(req["ranks"], 1)}
    if op == "total":
        return {"total_us": sum(e - s for s, e in req["intervals"])}
    return {"error": "unknown op %s; accepted: merge, idle_at_least, all_idle, any_idle, total" % op}


for line in sys.stdin:
    if line.strip():
        print(json.dumps(handle(json.loads(line))), flush=True)
