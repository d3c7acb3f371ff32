#!/usr/bin/env bash
# `ridge validate --fit` against the constants the code holds (issue 31, perf5): the fit prints
# each fitted constant as NAME VALUE; with every printed value passed back as --set NAME=VALUE the
# whole ledger (`validate --json`, every row's prediction) must be what it is with the code's own
# constants. A grid that drifts from the rows the constants were fitted on, or a constant changed
# in the code without a refit, fails here (the per-layer cost printed 60 us while the code held
# 70 us before the serving grid was pinned to the static-batch rows).
set -u
ridge="$1"
data="$2"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! "$ridge" --data "$data" validate --fit >"$tmp/fit" 2>"$tmp/err"; then
  echo "FAIL: ridge validate --fit:"; cat "$tmp/err"; exit 1
fi
# The fitted names, in the order --fit prints them; each must be found with a value.
names="gemm-efficiency-max gemm-half-intensity moe-host-per-expert moe-host-per-launch bandwidth-efficiency prefill-efficiency
layer-overhead moe-layer-overhead attention-dp-serial expert-bandwidth-efficiency expert-bandwidth-efficiency-4bit handoff-latency"
sets=()
for n in $names; do
  v=$(grep -o -- "$n [^ ,]*" "$tmp/fit" | head -1 | cut -d' ' -f2)
  if [[ -z "$v" ]]; then echo "FAIL: validate --fit printed no value for $n:"; cat "$tmp/fit"; exit 1; fi
  sets+=(--set "$n=$v")
done
"$ridge" --data "$data" validate --json >"$tmp/code.json" 2>"$tmp/err" || { echo "FAIL: validate --json"; cat "$tmp/err"; exit 1; }
"$ridge" --data "$data" validate --json "${sets[@]}" >"$tmp/fit.json" 2>"$tmp/err" ||
  { echo "FAIL: validate --json ${sets[*]}"; cat "$tmp/err"; exit 1; }
if ! diff -q "$tmp/code.json" "$tmp/fit.json" >/dev/null; then
  echo "FAIL: the constants validate --fit prints are not the ones the code holds:"
  cat "$tmp/fit"
  diff <(tr ',' '\n' <"$tmp/code.json") <(tr ',' '\n' <"$tmp/fit.json") | head -20
  exit 1
fi
echo "PASS: validate --fit prints the constants the code holds (${sets[*]})"
