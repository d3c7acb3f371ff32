#!/usr/bin/env bash
# Serving benchmark: nginx serving the bytes of one question page (saved as a static file)
# against `ridge serve` serving the same page, in the same run, with wrk at 64 and 256
# connections; then ridge's two I/O models against each other; then start-up time and
# resident memory with the whole bank loaded. Loopback only; every run is bounded by -d.
# Usage: bench/serve.sh [SECONDS per run, default 10]
set -euo pipefail
cd "$(dirname "$0")/.."
duration=${1:-10}
for p in nginx-light wrk; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || {
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$p" >/dev/null; }
done
cmake --preset release >/dev/null
cmake --build --preset release --target ridge >/dev/null
ridge=build/release/ridge
work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
page=/q/llama-70b-64-users-32k-8xh100

for port in 18100 18101 18102; do
  if curl -s -o /dev/null "http://127.0.0.1:$port/"; then echo "port $port is in use: stop what listens there first" >&2; exit 1; fi
done

start_ridge() {  # start_ridge PORT IO: waits until it listens; sets started_ms and last_pid
  local t0 t1
  t0=$(date +%s%N)
  "$ridge" serve --port "$1" --io "$2" --threads 2 --db "sqlite:$work/ridge-$1.db" > "$work/ridge-$1.log" 2>&1 &
  last_pid=$!
  pids+=("$last_pid")
  until grep -q listening "$work/ridge-$1.log" 2>/dev/null; do sleep 0.01; done
  t1=$(date +%s%N)
  started_ms=$(( (t1 - t0) / 1000000 ))
}

start_ridge 18101 per-thread
ridge_ms=$started_ms
ridge_pid=$last_pid
start_ridge 18102 shared
mkdir -p "$work/www/q"
curl -s "http://127.0.0.1:18101$page" > "$work/www/q/llama-70b-64-users-32k-8xh100"
bytes=$(wc -c < "$work/www/q/llama-70b-64-users-32k-8xh100")
cat > "$work/nginx.conf" <<CONF
worker_processes 2;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
events { worker_connections 4096; }
http {
  access_log off;
  default_type text/html;
  keepalive_requests 1000000;
  server { listen 127.0.0.1:18100; root $work/www; }
}
CONF
nginx -c "$work/nginx.conf" -p "$work"
pids+=($(cat "$work/nginx.pid" 2>/dev/null || echo 0))
sleep 0.3

rounds=${ROUNDS:-3}
one() {  # one PORT CONNECTIONS -> "rps p50_us p99_us"
  wrk -t2 -c"$2" -d"${duration}s" --latency "http://127.0.0.1:$1$page" | awk '
    function us(v) { if (v ~ /us$/) return v + 0; if (v ~ /ms$/) return v * 1000; if (v ~ /s$/) return v * 1000000; return v }
    /Requests\/sec/ { rps = $2 } $1 == "50%" { p50 = us($2) } $1 == "99%" { p99 = us($2) }
    END { printf "%d %d %d\n", rps, p50, p99 }'
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

echo "page: $page ($bytes bytes); wrk -t2 -d${duration}s, $rounds interleaved rounds, median; $(nproc) cores; $(date -u +%Y-%m-%d)"
echo
echo "| server | connections | requests/s | p50 | p99 | requests/s vs nginx | p99 vs nginx |"
echo "|---|---|---|---|---|---|---|"
for c in 64 256; do
  for r in $(seq "$rounds"); do
    for port in 18100 18101 18102; do one "$port" "$c" >> "$work/results-$port-$c"; done
  done
  for port in 18100 18101 18102; do
    rps=$(cut -d' ' -f1 "$work/results-$port-$c" | median)
    p50=$(cut -d' ' -f2 "$work/results-$port-$c" | median)
    p99=$(cut -d' ' -f3 "$work/results-$port-$c" | median)
    if [ "$port" = 18100 ]; then base_rps=$rps; base_p99=$p99; name="nginx, 2 workers";
    elif [ "$port" = 18101 ]; then name="ridge, per-thread io_context"; else name="ridge, shared io_context"; fi
    printf '| %s | %s | %s | %s us | %s us | %s | %s |\n' "$name" "$c" "$rps" "$p50" "$p99" \
      "$(awk -v a="$rps" -v b="$base_rps" 'BEGIN { printf "%.2f", a / b }')" \
      "$(awk -v a="$p99" -v b="$base_p99" 'BEGIN { printf "%.2f", a / b }')"
  done
done
echo
rss=$(awk '/VmRSS/ {print $2, $3}' "/proc/$ridge_pid/status")
echo "ridge start-up (load catalogs and $(grep -o '[0-9]* questions' "$work/ridge-18101.log"), render pages, listen): ${ridge_ms} ms; resident memory after the runs: $rss"
nginx -c "$work/nginx.conf" -p "$work" -s stop || true
