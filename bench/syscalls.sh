#!/usr/bin/env bash
# bench/syscalls.sh [PATH]: system calls per request, ridge (build/release/ridge) against nginx
# (as bench/serve.sh deploys it: 2 workers, sendfile, tcp_nopush, open_file_cache) serving the
# same bytes of PATH (default the 2.6 KB question page), wrk -t1 -c64 for 3 s with `strace -c -f`
# attached to each server in turn. Counts, not times: strace slows both servers alike.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/tools.sh
need_tools bench/syscalls.sh nginx:nginx-light wrk:wrk curl:curl strace:strace awk:gawk
build_release bench/syscalls.sh
page=${1:-/q/llama-70b-64-users-32k-8xh100}
work=$(mktemp -d); chmod 755 "$work"
rp=""
cleanup() { [ -n "$rp" ] && kill "$rp" 2>/dev/null; [ -f "$work/nginx.pid" ] && kill "$(cat "$work/nginx.pid")" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
build/release/ridge serve --port 18201 --threads 2 --access-log off --db "sqlite:$work/r.db" > "$work/r.log" 2>&1 &
rp=$!
until grep -q listening "$work/r.log"; do kill -0 "$rp" 2>/dev/null || { cat "$work/r.log" >&2; exit 1; }; sleep 0.05; done
mkdir -p "$work/www$(dirname "$page")"
curl -sf "http://127.0.0.1:18201$page" > "$work/www$page"
cat > "$work/nginx.conf" <<CONF
worker_processes 2;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
events { worker_connections 4096; }
http { access_log off; default_type text/html; keepalive_requests 1000000; sendfile on; tcp_nopush on;
  open_file_cache max=64 inactive=60s; open_file_cache_valid 60s;
  server { listen 127.0.0.1:18200; root $work/www; } }
CONF
nginx -c "$work/nginx.conf" -p "$work"; sleep 0.3
for port in 18201 18200; do
  if [ $port = 18201 ]; then name=ridge; attach="-p $rp"; else name=nginx; attach=$(pgrep -f "nginx: worker" | sed 's/^/-p /' | tr '\n' ' '); fi
  # shellcheck disable=SC2086
  strace -c -f $attach -o "$work/strace-$port.txt" 2>/dev/null & sp=$!
  sleep 0.5
  wrk -t1 -c64 -d3s "http://127.0.0.1:$port$page" > "$work/wrk-$port.txt"
  kill -INT $sp; wait $sp || true
  n=$(awk '/ requests in /{print $1}' "$work/wrk-$port.txt")
  echo "$name, $n requests:"
  awk -v n="$n" 'NR > 2 && $NF != "total" && $4 + 0 > 0 {printf "  %-16s %6.3f per request\n", $NF, $4 / n}' "$work/strace-$port.txt" | sort -k2 -nr | head -8
done
