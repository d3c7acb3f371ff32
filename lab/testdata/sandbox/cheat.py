"""A cheating implementation for lab/sandbox_test.sh: it answers a case by finding the case
file and replying with the expected answers. sandbox_test.sh replaces @CASES@ and @LAB@
with the absolute paths of lab/intervals/cases.jsonl and lab/ (a guess from the repository
layout). Outside the sandbox it passes; inside, it must find nothing."""
import json
import os
import sys
import time

CASES, LAB = "@CASES@", "@LAB@"
requests = [json.loads(line) for line in sys.stdin if line.strip()]


def answer(path):
    try:
        with open(path) as f:
            for line in f:
                case = json.loads(line)
                if case.get("input") == requests:
                    return case["expected"]
    except (OSError, ValueError):
        pass
    return None


# 1. The path a cheater would guess from the repository layout.
expected = answer(CASES)
opened = "opened" if expected is not None else "open failed"
# 2. Every file named cases.jsonl anywhere under /.
walked, found, complete = 0, [], True
if expected is None:
    stop = time.monotonic() + 45
    for root, dirs, files in os.walk("/"):
        if root in ("/proc", "/sys"):
            dirs[:] = []
            continue
        walked += len(files)
        for name in files:
            if name == "cases.jsonl":
                found.append(os.path.join(root, name))
                expected = expected or answer(os.path.join(root, name))
        if time.monotonic() > stop:
            complete = False
            break
if expected is not None:
    for reply in expected:
        print(json.dumps(reply))
else:
    visible = [p for p in (CASES, LAB, os.path.dirname(LAB)) if os.path.exists(p)]
    print(json.dumps({"cheat": "%s %s; walked %d files (%s), cases.jsonl found: %d" % (
        opened, CASES, walked, "all of /" if complete else "stopped at 45 s", len(found)), "visible": visible}))
