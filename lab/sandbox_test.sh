#!/usr/bin/env bash
# The sandbox of `ridge lab test --impl`, end to end: an implementation cannot read the
# cases (their expected answers), reach the network, run past the time limit or allocate
# past the memory limit; bad input is refused with exit 2, a failing case shows its input,
# expected and got. Each attack has a control run outside the sandbox that proves it would
# have worked there, so the sandboxed failure is the sandbox's doing.
set -u
ridge="$1"
lab="$(cd "$(dirname "$0")" && pwd)"
data="$lab/testdata/sandbox"
tmp="$(mktemp -d)"
listener=""
trap '[ -n "$listener" ] && kill "$listener" 2>/dev/null; rm -rf "$tmp"' EXIT
py=/usr/bin/python3
fail=0
check() {  # check NAME EXPECTED-SUBSTRING OUTPUT
  if [[ "$3" != *"$2"* ]]; then echo "FAIL: $1: expected '$2' in:"; echo "$3"; fail=1; else echo "ok: $1"; fi
}
refute() {  # refute NAME UNEXPECTED-SUBSTRING OUTPUT
  if [[ "$3" == *"$2"* ]]; then echo "FAIL: $1: did not expect '$2' in:"; echo "$3"; fail=1; else echo "ok: $1"; fi
}
one_case=(--case merge-joins-touching)
first_input='{"op": "merge", "intervals": [[0, 10], [10, 20], [30, 40]]}'

# --- reading the answers: by the path a cheater would guess, and by walking / ---
sed "s|@CASES@|$lab/intervals/cases.jsonl|; s|@LAB@|$lab|" "$data/cheat.py" > "$tmp/cheat.py"
control=$(printf '%s\n' "$first_input" | "$py" "$tmp/cheat.py")
check "control: outside the sandbox the cheat finds the expected answer" '[[0, 20], [30, 40]]' "$control"
out=$("$ridge" lab test intervals --impl "$tmp/cheat.py" "${one_case[@]}" --timeout 90 2>&1); rc=$?
check "cheat exit" "1" "$rc"
check "cheat fails the case" "FAIL  merge-joins-touching" "$out"
check "cheat cannot open the cases by their path" "open failed $lab/intervals/cases.jsonl" "$out"
check "cheat walked all of / and found no cases.jsonl" "(all of /), cases.jsonl found: 0" "$out"
check "the repository and lab/ are not visible" '"visible":[]' "$out"

# --- the network: a TCP listener on 127.0.0.1 and a DNS lookup ---
"$py" -c '
import socket, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
while True:
    c, _ = s.accept()
    with open(sys.argv[2], "a") as log: log.write("connection\n")
    c.close()
' "$tmp/port" "$tmp/connections" &
listener=$!
for _ in $(seq 50); do [ -s "$tmp/port" ] && break; sleep 0.1; done
port=$(cat "$tmp/port")
sed "s|@PORT@|$port|" "$data/net.py" > "$tmp/net.py"
control=$(printf '%s\n' "$first_input" | "$py" "$tmp/net.py")
check "control: outside the sandbox the connection is made" '"connect": "connected"' "$control"
for _ in $(seq 20); do [ -s "$tmp/connections" ] && break; sleep 0.1; done
check "control: the listener saw it" "connection" "$(cat "$tmp/connections" 2>/dev/null)"
: > "$tmp/connections"
out=$("$ridge" lab test intervals --impl "$tmp/net.py" "${one_case[@]}" 2>&1); rc=$?
check "network exit" "1" "$rc"
check "connect to 127.0.0.1 fails in the sandbox" '"connect":"failed: ' "$out"
check "the DNS lookup fails in the sandbox" '"dns":"failed: ' "$out"
sleep 0.5
check "the listener saw no connection from the sandbox" "0" "$(wc -l < "$tmp/connections")"

# --- the time limit ---
start=$(date +%s)
out=$("$ridge" lab test intervals --impl "$data/loop.py" "${one_case[@]}" --timeout 1 2>&1); rc=$?
took=$(( $(date +%s) - start ))
check "endless loop exit" "1" "$rc"
check "endless loop killed at the limit" "killed at the time limit of 1 s per case (--timeout SECONDS changes it)" "$out"
check "endless loop summary" "0 of 1 cases passed" "$out"
[ "$took" -le 8 ] && echo "ok: killed within 8 s ($took s)" || { echo "FAIL: the 1 s limit took $took s"; fail=1; }
out=$("$ridge" lab test intervals --impl "$data/loop.go" "${one_case[@]}" --timeout 1 2>&1); rc=$?
check "endless Go loop exit" "1" "$rc"
check "endless Go loop killed at the limit" "killed at the time limit of 1 s per case" "$out"

# --- the memory limit ---
out=$("$ridge" lab test intervals --impl "$data/memhog.py" "${one_case[@]}" 2>&1); rc=$?
check "memory hog exit" "1" "$rc"
check "memory hog stopped" "ran out of memory: the sandbox allows 512 MiB of data per process" "$out"
refute "memory hog never got its 16 GiB" "allocated 16 GiB" "$out"
out=$("$ridge" lab test intervals --impl "$data/alloc200.py" "${one_case[@]}" 2>&1); rc=$?
check "200 MiB fits the default limit" "0" "$rc"
out=$("$ridge" lab test intervals --impl "$data/alloc200.py" "${one_case[@]}" --memory 100 2>&1); rc=$?
check "200 MiB under --memory 100 exit" "1" "$rc"
check "200 MiB under --memory 100 stopped" "the sandbox allows 100 MiB of data per process" "$out"

# --- failures are reported with the input, the expected and the got ---
out=$("$ridge" lab test intervals --impl "$data/wrong.py" 2>&1); rc=$?
check "wrong answers exit" "1" "$rc"
check "failure names the case" "FAIL  merge-joins-touching" "$out"
check "failure says what it catches" "catches:  touching intervals of one rank left apart" "$out"
check "failure shows the input" "input:    $(printf '%s' "$first_input" | tr -d ' ')" "$out"
check "failure shows the expected" 'expected: {"intervals":[[0,20],[30,40]],"dropped":0}' "$out"
check "failure shows the got" 'got:      {"intervals":[],"dropped":0}' "$out"
check "failure summary" "cases passed against $data/wrong.py (Python, /usr/bin/python3); failed: merge-joins-touching" "$out"
out=$("$ridge" lab test intervals --impl "$data/crash.py" "${one_case[@]}" 2>&1); rc=$?
check "crash exit" "1" "$rc"
check "crash reported" "program:  exited with status 1" "$out"
check "crash traceback shown" "RuntimeError: crash on purpose" "$out"
out=$("$ridge" lab test intervals --impl "$data/broken.go" 2>&1); rc=$?
check "Go compile error exit" "1" "$rc"
check "Go compile error shown" "undefined: undefinedFunction" "$out"
check "Go compile error names the file" "$data/broken.go does not compile" "$out"

# --- C++: --impl FILE.cc runs the gtest suite, then the same cases behind the adapter ---
out=$("$ridge" lab test intervals --impl "$lab/intervals/intervals.cc" 2>&1); rc=$?
check "C++ reference exit" "0" "$rc"
check "C++ reference passes the gtest suite" "PASSED" "$out"
n=$(grep -c . "$lab/intervals/cases.jsonl")
check "C++ reference passes the cases" "$n of $n cases passed against $lab/intervals/intervals.cc (C++, behind intervals_main.cc)" "$out"

# --- bad input and a missing sandbox ---
out=$("$ridge" lab test intervals --impl "$lab/README.md" 2>&1); rc=$?
check "unsupported extension exit" "2" "$rc"
check "unsupported extension named" "unsupported file type '.md'; accepted: .cc, .cpp, .cxx (C++), .py (Python), .go (Go)" "$out"
out=$("$ridge" lab test intervals --impl "$tmp/nope.py" 2>&1); rc=$?
check "missing file exit" "2" "$rc"
check "missing file named" "--impl '$tmp/nope.py': no such file" "$out"
out=$("$ridge" lab test batcher --impl "$data/wrong.py" 2>&1); rc=$?
check "build without cases exit" "2" "$rc"
check "build without cases named" "'batcher' has no language-neutral cases yet" "$out"
out=$("$ridge" lab test intervals --impl "$data/wrong.py" --case nope 2>&1); rc=$?
check "unknown case exit" "2" "$rc"
check "unknown case lists the cases" "--case 'nope' is not a case of 'intervals'; accepted: merge-joins-touching" "$out"
out=$("$ridge" lab test intervals --impl "$data/wrong.py" --timeout abc 2>&1); rc=$?
check "bad timeout exit" "2" "$rc"
check "bad timeout named" "--timeout 'abc' is not accepted" "$out"
out=$(RIDGE_BWRAP=/nonexistent/bwrap "$ridge" lab test intervals --impl "$data/wrong.py" 2>&1); rc=$?
check "missing bwrap exit" "1" "$rc"
check "missing bwrap message" "the sandbox needs bubblewrap and /nonexistent/bwrap is not there" "$out"
printf '#!/bin/sh\necho "bwrap: No permissions to create new namespace" >&2\nexit 1\n' > "$tmp/fake-bwrap"
chmod +x "$tmp/fake-bwrap"
out=$(RIDGE_BWRAP="$tmp/fake-bwrap" "$ridge" lab test intervals --impl "$data/wrong.py" 2>&1); rc=$?
check "no user namespaces exit" "1" "$rc"
check "no user namespaces message" "bubblewrap needs user namespaces" "$out"

exit $fail
