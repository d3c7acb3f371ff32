#!/usr/bin/env bash
# `ridge lab` end to end, the way a user runs it: list, bad input, the built tests, the
# measure programs, and --impl with the reference implementation and with broken files.
set -u
ridge="$1"
lab="$(cd "$(dirname "$0")" && pwd)"
fail=0
check() {  # check NAME EXPECTED-SUBSTRING OUTPUT
  if [[ "$3" != *"$2"* ]]; then echo "FAIL: $1: expected '$2' in:"; echo "$3"; fail=1; else echo "ok: $1"; fi
}

out=$("$ridge" lab list); rc=$?
check "list exit" "0" "$rc"
for id in rate-limiter batcher work-queue hash-ring sampler straggler jobs-api tsdb intervals retry kv-versioned trace-parse ring-sim check-then-act tenant-limiter credit-scheduler gang-placement xid-parse reshard failure-detector dag-runner kv-blocks cb-scheduler radix-cache prefix-router spec-decode latency-sketch burn-rate grad-buckets spsc-ring; do
  check "list has $id" "$id" "$out"
done

err=$("$ridge" lab test nope 2>&1); rc=$?
check "unknown id exit" "2" "$rc"
check "unknown id named" "'nope' is not a lab build" "$err"
check "unknown id lists ids" "accepted: rate-limiter, batcher" "$err"
err=$("$ridge" lab measure nope 2>&1); rc=$?
check "unknown measure id exit" "2" "$rc"
err=$("$ridge" lab 2>&1); rc=$?
check "no command exit" "2" "$rc"
err=$("$ridge" lab test intervals --impl /nonexistent/impl.cc 2>&1); rc=$?
check "missing impl exit" "2" "$rc"
check "missing impl named" "'/nonexistent/impl.cc': no such file" "$err"
err=$("$ridge" lab test intervals --impl "$lab/README.md" 2>&1); rc=$?
check "non-C++ impl exit" "2" "$rc"

out=$("$ridge" lab test intervals 2>&1); rc=$?
check "built tests exit" "0" "$rc"
check "built tests pass" "PASSED" "$out"
out=$("$ridge" lab test intervals -- --gtest_filter='*16000*' 2>&1)
check "gtest flags pass through" "1 test from" "$out"

json=$("$ridge" lab measure intervals --json)
got=$(printf '%s' "$json" | python3 -c 'import json,sys; print(json.load(sys.stdin)["figures"]["question"]["all_idle_us"])')
check "measure json figure" "16000" "$got"
json=$("$ridge" lab measure --all --json); rc=$?
check "measure --all exit" "0" "$rc"
got=$(printf '%s' "$json" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(len(d), " ".join(d))')
check "measure --all keyed by id" "30 rate-limiter batcher work-queue hash-ring sampler straggler jobs-api tsdb intervals retry kv-versioned trace-parse ring-sim check-then-act tenant-limiter credit-scheduler gang-placement xid-parse reshard failure-detector dag-runner kv-blocks cb-scheduler radix-cache prefix-router spec-decode latency-sketch burn-rate grad-buckets spsc-ring" "$got"

out=$("$ridge" lab test intervals --impl "$lab/intervals/intervals.cc" 2>&1); rc=$?
check "reference impl exit" "0" "$rc"
check "reference impl passes" "PASSED" "$out"
err=$("$ridge" lab test intervals --impl "$lab/testdata/intervals_syntax_error.cc" 2>&1); rc=$?
check "syntax error exit" "1" "$rc"
check "syntax error message" "does not compile against lab/intervals/intervals.h. First errors:" "$err"
check "syntax error shows the compiler" "error: expected initializer before" "$err"
err=$("$ridge" lab test intervals --impl "$lab/testdata/intervals_missing_function.cc" 2>&1); rc=$?
check "interface break exit" "1" "$rc"
check "interface break message" "breaks the interface of lab/intervals/intervals.h" "$err"
check "interface break names total_us" "ridge::lab::total_us(" "$err"
check "interface break names the const& overload" "ridge::lab::all_idle(" "$err"

exit $fail
