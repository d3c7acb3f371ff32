#!/usr/bin/env bash
# bench/startup.sh BIN N [ROUNDS]: `BIN serve` on a bank of N questions (the real ones, then copies
# under new slugs, made once under /tmp/ridge-bank-N), ROUNDS times: the wall time from the
# start to the "listening" line, the CPU it used until then (utime + stime of every thread,
# /proc/PID/stat) and its resident memory. Run from the repository root (the binary reads data/).
# Interleave two binaries (before, after) round by round and give the load: wall moves with it.
set -euo pipefail
bin=$1 n=$2 rounds=${3:-3}
dir=/tmp/ridge-bank-$n
. bench/tools.sh
[ -d "$dir" ] || make_bank "$n" "$dir"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
hz=$(getconf CLK_TCK)
for _ in $(seq "$rounds"); do
  t0=$(date +%s%N)
  "$bin" serve --port 18131 --threads 2 --access-log off --content "$dir" --db "sqlite:$work/r.db" > "$work/log" 2>&1 &
  pid=$!
  until grep -q listening "$work/log" 2>/dev/null; do kill -0 $pid 2>/dev/null || { cat "$work/log" >&2; exit 1; }; sleep 0.01; done
  t1=$(date +%s%N)
  read -r ut st < <(awk '{print $14, $15}' "/proc/$pid/stat")
  rss=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status")
  echo "questions=$n wall_ms=$(( (t1 - t0) / 1000000 )) cpu_s=$(awk -v u="$ut" -v s="$st" -v hz="$hz" 'BEGIN{printf "%.2f", (u + s) / hz}') rss_mb=$((rss / 1024)) load=$(cut -d' ' -f1 /proc/loadavg)"
  kill $pid; wait $pid 2>/dev/null || true
  rm -f "$work"/r.db*
done
