#!/usr/bin/env bash
# Runs the engine and bank benchmarks of the working tree against those of an earlier commit,
# in the same run on the same machine: bench/compare.sh [BASE_REF] (default HEAD~1).
# Both are built with the release preset; Google Benchmark's compare.py is not needed, the
# two JSON reports are printed side by side.
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:-HEAD~1}
work=$(mktemp -d)
trap 'git worktree remove --force "$work/base" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
git worktree add --detach "$work/base" "$base" >/dev/null
for tree in "$work/base" "$PWD"; do
  (cd "$tree" && cmake --preset release >/dev/null && cmake --build --preset release --target calc_bench bank_bench >/dev/null)
done
for target in calc_bench bank_bench; do
  [ -x "$work/base/build/release/$target" ] || { echo "$target: not in $base"; continue; }
  "$work/base/build/release/$target" --benchmark_min_time=0.2 --benchmark_format=json > "$work/base-$target.json"
  "build/release/$target" --benchmark_min_time=0.2 --benchmark_format=json > "$work/new-$target.json"
  python3 - "$work/base-$target.json" "$work/new-$target.json" "$base" <<'PY'
import json, sys
base = {b["name"]: b for b in json.load(open(sys.argv[1]))["benchmarks"]}
new = {b["name"]: b for b in json.load(open(sys.argv[2]))["benchmarks"]}
print(f"{'benchmark':44} {sys.argv[3][:12]:>14} {'working tree':>14} {'ratio':>7}")
for name, b in new.items():
    if name in base:
        o, n = base[name]["real_time"], b["real_time"]
        print(f"{name:44} {o:11.2f} {b['time_unit']:2} {n:11.2f} {b['time_unit']:2} {n / o:7.2f}")
PY
done
