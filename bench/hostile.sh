#!/usr/bin/env bash
# Issue 28's repros as a benchmark: the release build on loopback (SQLite), 100 concurrent
# hostile clients of each kind for SECONDS each (bench/hostile.mjs), /api/me's latency for a
# signed-in user meanwhile. Fails when /api/me's p95 reaches 100 ms under any kind.
# Usage: bench/hostile.sh [SECONDS per kind, default 20]; ONLY=REGEX keeps matching kinds.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-20}
command -v node >/dev/null || { echo "bench/hostile.sh needs node (scripts/deps.sh installs it)" >&2; exit 1; }
command -v curl >/dev/null || { echo "bench/hostile.sh needs curl" >&2; exit 1; }
cmake --preset release >/dev/null
nice -n 10 cmake --build --preset release --target ridge >/dev/null
work=$(mktemp -d)
port=18150
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
if curl -s -o /dev/null "http://127.0.0.1:$port/"; then echo "port $port is in use: stop what listens there first" >&2; exit 1; fi
build/release/ridge serve --port "$port" --threads 2 --access-log off --trusted-proxy 127.0.0.1/32 \
  --db "sqlite:$work/ridge.db" --mail-dir "$work/mail" > "$work/ridge.log" 2>&1 &
pid=$!
until grep -q listening "$work/ridge.log" 2>/dev/null; do
  kill -0 "$pid" 2>/dev/null || { cat "$work/ridge.log" >&2; exit 1; }
  sleep 0.05
done
echo "$(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load before: $(cut -d' ' -f1-3 /proc/loadavg)"
node bench/hostile.mjs "http://127.0.0.1:$port" "$seconds"
