#!/usr/bin/env bash
# Where ridge's time goes on one path under load: the release build serves, wrk (-t2 -c64)
# drives TARGET for SECONDS while `perf record` samples the server, and the top symbols
# (self time, all threads) are printed. Usage: bench/profile.sh TARGET [SECONDS, default 5]
# e.g. bench/profile.sh '/api/calc/fit?model=llama-3.1-70b&gpu=h100-sxm&gpus=8&context=32768&sequences=64'
set -euo pipefail
cd "$(dirname "$0")/.."
target=$1
duration=${2:-5}
for p in wrk linux-perf; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || {
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$p" >/dev/null; }
done
cmake --preset release -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache >/dev/null
nice -n 10 cmake --build --preset release --target ridge >/dev/null
work=$(mktemp -d)
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
port=18120
build/release/ridge serve --port "$port" --threads 2 --db "sqlite:$work/ridge.db" > "$work/serve.log" 2>&1 &
pid=$!
until grep -q listening "$work/serve.log" 2>/dev/null; do sleep 0.05; done
curl -sf -o /dev/null "http://127.0.0.1:$port$target"  # the first answer (a cache miss) is not profiled
perf record -q -F 999 -p "$pid" -o "$work/perf.data" -- sleep "$duration" >/dev/null 2>&1 &
perf_pid=$!
wrk -t2 -c64 -d"${duration}s" "http://127.0.0.1:$port$target" | grep -E "Requests/sec|Latency"
wait "$perf_pid" || true
perf report -i "$work/perf.data" --no-children --sort symbol --stdio 2>/dev/null |
  grep -E '^ +[0-9]' | head -"${TOP:-15}"
