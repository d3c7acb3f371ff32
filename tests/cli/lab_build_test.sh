#!/usr/bin/env bash
# Issue 33 item 11: `make run` builds only ridge, and `ridge lab test ID` then said "build it
# with: cmake --build <build dir> --target ..." (a placeholder). Now ridge builds the program
# in its own build folder, printing the command; outside a build folder it names the command.
set -u
ridge="$1"
fail=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
check() {  # check NAME EXPECTED-SUBSTRING OUTPUT
  if [[ "$3" != *"$2"* ]]; then echo "FAIL: $1: expected '$2' in:"; echo "$3"; fail=1; else echo "ok: $1"; fi
}
# A copy of ridge outside any build folder: the exact command, with a real folder name.
mkdir -p "$work/bin"
cp "$ridge" "$work/bin/ridge"
out=$("$work/bin/ridge" lab test intervals 2>&1); status=$?
[[ $status -eq 1 ]] || { echo "FAIL: exit $status, expected 1"; fail=1; }
check "names the command" "build it with: cmake --build build/release --target lab_intervals_test" "$out"
# In a folder that looks like a build folder (a CMakeCache.txt) that cannot build: ridge tries,
# says what it runs, then names the command with that folder.
mkdir -p "$work/build"
touch "$work/build/CMakeCache.txt"
cp "$ridge" "$work/build/ridge"
out=$("$work/build/ridge" lab test intervals 2>&1); status=$?
[[ $status -eq 1 ]] || { echo "FAIL: exit $status, expected 1"; fail=1; }
check "builds first" "ridge lab: building the test program of 'intervals': cmake --build $work/build --target lab_intervals_test" "$out"
check "then names the command" "build it with: cmake --build $work/build --target lab_intervals_test" "$out"
exit $fail
