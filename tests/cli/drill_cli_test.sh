#!/usr/bin/env bash
# `ridge drill` as a user runs it: an answer it cannot read is not counted as wrong; it says
# what is accepted and asks again. The engine's own answer, typed back, is right.
set -u
ridge="$1"
fail=0
check() {  # check NAME EXPECTED-SUBSTRING OUTPUT
  if [[ "$3" != *"$2"* ]]; then echo "FAIL: $1: expected '$2' in:"; echo "$3"; fail=1; else echo "ok: $1"; fi
}
refute() {  # refute NAME UNEXPECTED-SUBSTRING OUTPUT
  if [[ "$3" == *"$2"* ]]; then echo "FAIL: $1: did not expect '$2' in:"; echo "$3"; fail=1; else echo "ok: $1"; fi
}

# The engine's answer to this drill, from a first run answered with a plain number.
first=$(printf '1\n' | "$ridge" drill --topic napkin-math --seed 3 --count 1 2>&1)
engine=$(printf '%s' "$first" | sed -n 's/.*the engine says \(.*\) (you: .*/\1/p' | head -1)
[[ -n "$engine" ]] || { echo "FAIL: no 'the engine says' in: $first"; exit 1; }
echo "engine answer: $engine"

out=$(printf 'lots\n%s\n' "$engine" | "$ridge" drill --topic napkin-math --seed 3 --count 1 2>&1)
check "unreadable answer named" "Could not read 'lots'" "$out"
check "says what is accepted" "is not a number; accepted: " "$out"
check "asks again" "Try again" "$out"
check "the second answer is graded" "Correct" "$out"
check "the unreadable one is not counted" "1 of 1 right" "$out"
refute "no internals leak" "double" "$out"

# Input that ends after an unreadable answer scores nothing answered, not a wrong answer.
out=$(printf 'lots\n' | "$ridge" drill --topic napkin-math --seed 3 --count 2 2>&1)
check "no answer, nothing counted" "0 of 0 right" "$out"

# Issue 33 item 2: the seed a topic's drill prints reproduces the same drill without --topic.
with_topic=$(printf '1\n' | "$ridge" drill --topic kernels --seed 5 --count 1 2>&1)
printed=$(printf '%s' "$with_topic" | sed -n 's/.*; seed \([0-9]*\))$/\1/p' | head -1)
[[ -n "$printed" ]] || { echo "FAIL: no printed seed in: $with_topic"; exit 1; }
alone=$(printf '1\n' | "$ridge" drill --seed "$printed" --count 1 2>&1)
if [[ "$with_topic" == "$alone" ]]; then echo "ok: seed $printed alone repeats the kernels drill"
else echo "FAIL: seed $printed alone gave another drill:"; echo "$with_topic"; echo "---"; echo "$alone"; fail=1; fi

exit $fail
