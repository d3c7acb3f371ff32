#!/usr/bin/env bash
# Serving benchmark, every figure a ratio to a reference measured in the same run, with wrk
# at 64 connections on loopback (wrk, nginx and ridge share the machine's cores):
#   - pages of three sizes (a 2.6 KB question page, a 24.5 KB question page and the 97 KB
#     calculator index), with wrk -t1 and -t2, against nginx serving their bytes as files;
#   - the calculator API (/api/calc/fit?...) against nginx serving the same JSON bytes;
#   - search (/search?q=kv+cache) against nginx serving the same page;
#   - the access log's cost: the 24.5 KB page with ridge's access log on (its default, to a
#     file) against nginx's `access_log ... buffer=64k`, and each log's cost to its own server
#     (requests/s with the log on ÷ with it off);
#   each three interleaved rounds (nginx, ridge, nginx, ridge, ...), the median of each;
#   - review writes on SQLite and PostgreSQL against pgbench (bench/reviews.sh);
#   - start-up time and resident memory with the bank and with generated banks of 5,000 and
#     10,000 questions (copies of the real ones under new slugs); question pages are rendered
#     on first request, so start-up leaves them out.
# Every run is bounded by -d. Usage: bench/serve.sh [SECONDS per run, default 5]
# ROUNDS=N changes the number of rounds; SKIP_REVIEWS=1 and SKIP_STARTUP=1 leave parts out;
# ONLY=REGEX keeps the cases whose name matches ("question page": the page cases alone).
set -eEuo pipefail  # -E: the ERR trap below also names a failure inside a function
cd "$(dirname "$0")/.."
duration=${1:-5}
rounds=${ROUNDS:-3}
# shellcheck source=bench/tools.sh
. bench/tools.sh
trap 'echo "bench/serve.sh: stopped at line $LINENO: $BASH_COMMAND (exit $?)" >&2' ERR
need_tools bench/serve.sh cmake:cmake ninja:ninja-build g++:g++ nginx:nginx-light wrk:wrk curl:curl awk:gawk python3:python3
[ "${SKIP_REVIEWS:-0}" = 1 ] || need_tools bench/serve.sh pgbench:postgresql-client psql:postgresql-client
build_release bench/serve.sh
ridge=build/release/ridge
work=$(mktemp -d)
chmod 755 "$work"  # nginx workers (nobody) read the pages inside it
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
page=/q/llama-70b-64-users-32k-8xh100
page24=/q/data-loader-for-text-training
page63=/calc
calc='/api/calc/fit?model=llama-3.1-70b&gpu=h100-sxm&gpus=8&context=32768&sequences=64'
search='/search?q=kv+cache'

for port in 18100 18101 18102 18103; do
  if curl -s -o /dev/null "http://127.0.0.1:$port/"; then echo "port $port is in use: stop what listens there first" >&2; exit 1; fi
done

start_ridge() {  # start_ridge PORT CONTENT [ACCESS_LOG]: waits until it listens; sets started_ms and last_pid
  local t0 t1
  t0=$(date +%s%N)
  "$ridge" serve --port "$1" --threads 2 --access-log "${3:-off}" --content "$2" --db "sqlite:$work/ridge-$1.db" > "$work/ridge-$1.log" 2>&1 &
  last_pid=$!
  pids+=("$last_pid")
  until grep -q listening "$work/ridge-$1.log" 2>/dev/null; do
    kill -0 "$last_pid" 2>/dev/null || { cat "$work/ridge-$1.log" >&2; exit 1; }
    sleep 0.01
  done
  t1=$(date +%s%N)
  started_ms=$(( (t1 - t0) / 1000000 ))
}

load_before=$(uptime)
start_ridge 18101 content
ridge_pid=$last_pid
# The same server with its access log on (text lines to stderr, which goes to ridge-18103.log).
start_ridge 18103 content on
ridge_log_pid=$last_pid
# nginx serves, at the same paths, the bytes ridge sends (its static handler ignores the query).
mkdir -p "$work/www/q" "$work/www/api/calc"
for p in "$page" "$page24"; do curl -sf "http://127.0.0.1:18101$p" > "$work/www$p"; done
curl -sf "http://127.0.0.1:18101$page63" > "$work/www/calc.html"
curl -sf "http://127.0.0.1:18101$calc" > "$work/www/api/calc/fit"
curl -sf "http://127.0.0.1:18101$search" > "$work/www/search"
cat > "$work/nginx.conf" <<CONF
worker_processes 2;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
events { worker_connections 4096; }
http {
  access_log off;
  default_type text/html;
  keepalive_requests 1000000;
  # nginx as one would deploy it for static files: sendfile, the file's descriptor and size
  # cached (no open/fstat/close per request), headers and the file's start in one packet.
  sendfile on;
  tcp_nopush on;
  open_file_cache max=64 inactive=60s;
  open_file_cache_valid 60s;
  server {
    listen 127.0.0.1:18100;
    root $work/www;
    location /api/ { default_type application/json; }
    location = /calc { try_files /calc.html =404; }
  }
  server {
    listen 127.0.0.1:18102;
    access_log $work/nginx-access.log combined buffer=64k;
    root $work/www;
    location = /calc { try_files /calc.html =404; }
  }
}
CONF
nginx -c "$work/nginx.conf" -p "$work"
# Until the master has written its pid and forked its workers (pids_of reads them): under load
# 0.3 s was not always enough, and the first measurement then stopped the script.
for _ in $(seq 100); do
  [ -s "$work/nginx.pid" ] && [ "$(pgrep -c -P "$(cat "$work/nginx.pid")")" -ge 2 ] && break
  sleep 0.05
done
[ "$(pgrep -c -P "$(cat "$work/nginx.pid")")" -ge 2 ] || { echo "bench/serve.sh: nginx's workers did not start in 5 s" >&2; exit 1; }
pids+=("$(cat "$work/nginx.pid")")

one() {  # one PORT THREADS TARGET -> "rps p50_us p99_us cpu_us_per_request"
  local before after
  before=$(cpu_ticks "$(pids_of "$1")")
  wrk -t"$2" -c64 -d"${duration}s" --latency "http://127.0.0.1:$1$3" > "$work/wrk-out"
  after=$(cpu_ticks "$(pids_of "$1")")
  awk -v ticks=$((after - before)) -v hz="$(getconf CLK_TCK)" '
    function us(v) { if (v ~ /us$/) return v + 0; if (v ~ /ms$/) return v * 1000; if (v ~ /s$/) return v * 1000000; return v }
    /Requests\/sec/ { rps = $2 } $1 == "50%" { p50 = us($2) } $1 == "99%" { p99 = us($2) } /Non-2xx/ { bad = $NF }
    / requests in / { n = $1 }
    END { if (bad > 0) print "non-2xx answers: " bad > "/dev/stderr"; printf "%d %d %d %.1f\n", rps, p50, p99, n ? ticks * 1000000 / hz / n : 0 }' "$work/wrk-out"
}
# The server's own CPU time per request (user + system, every thread or worker of it) is the
# figure that a loaded machine disturbs least: requests per second move with whatever else runs
# on the two cores (the client included), the CPU a request costs the server much less.
pids_of() {  # pids_of PORT -> the processes serving it
  case "$1" in
    18101) echo "$ridge_pid" ;;
    18103) echo "$ridge_log_pid" ;;
    *) pgrep -P "$(cat "$work/nginx.pid")" | tr '\n' ' ' ;;
  esac
}
cpu_ticks() {  # cpu_ticks "PID..." -> utime + stime, in clock ticks, summed
  local total=0 p
  for p in $1; do total=$((total + $(awk '{ print $14 + $15 }' "/proc/$p/stat"))); done
  echo "$total"
}
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

# name|wrk threads|target|nginx port|ridge port (18100/18101: no access log; 18102/18103: logged)
cases=()
for c in "question page 2.6 KB|1|$page|18100|18101" "question page 2.6 KB|2|$page|18100|18101" \
         "question page 24.5 KB|1|$page24|18100|18101" "question page 24.5 KB|2|$page24|18100|18101" \
         "calculator index 97 KB|1|$page63|18100|18101" "calculator index 97 KB|2|$page63|18100|18101" \
         "calculator API|2|$calc|18100|18101" "search|2|$search|18100|18101" \
         "question page 24.5 KB, access logs on|2|$page24|18102|18103"; do
  [[ "${c%%|*}" =~ ${ONLY:-.} ]] && cases+=("$c")
done
[ ${#cases[@]} -gt 0 ] || { echo "ONLY='$ONLY' matches no case" >&2; exit 2; }
echo "wrk -c64 -d${duration}s, $rounds interleaved rounds, median; ridge --threads 2, nginx 2 workers; $(nproc) cores; $(date -u '+%Y-%m-%d %H:%M') UTC"
echo "bytes: pages $(wc -c < "$work/www$page"), $(wc -c < "$work/www$page24") and $(wc -c < "$work/www/calc.html"), calculator JSON $(wc -c < "$work/www/api/calc/fit"), search page $(wc -c < "$work/www/search")"
for r in $(seq "$rounds"); do
  for i in "${!cases[@]}"; do
    IFS='|' read -r _ threads target ref ours <<<"${cases[$i]}"
    for port in "$ref" "$ours"; do
      # one's stderr (wrk's, and the ERR trap's line) is kept apart and shown: a failure here
      # stopped the script without a word before.
      if ! one "$port" "$threads" "$target" >> "$work/results-$i-$port" 2> "$work/wrk-err"; then
        echo "bench/serve.sh: port $port, wrk -t$threads $target failed: $(cat "$work/wrk-err") $(cat "$work/wrk-out" 2>/dev/null)" >&2
        exit 1
      fi
      if [ -s "$work/wrk-err" ]; then echo "port $port, wrk -t$threads $target: $(cat "$work/wrk-err")" >&2; fi
    done
  done
done
echo
declare -A rps_of=() cpu_of=()
echo "| path | wrk threads | nginx requests/s | ridge requests/s | ratio | nginx p50 / p99 | ridge p50 / p99 | CPU per request, nginx / ridge | nginx's ÷ ridge's |"
echo "|---|---|---|---|---|---|---|---|---|"
for i in "${!cases[@]}"; do
  IFS='|' read -r name threads target ref ours <<<"${cases[$i]}"
  declare -A rps=() p50=() p99=() cpu=()
  for port in "$ref" "$ours"; do
    rps[$port]=$(cut -d' ' -f1 "$work/results-$i-$port" | median)
    p50[$port]=$(cut -d' ' -f2 "$work/results-$i-$port" | median)
    p99[$port]=$(cut -d' ' -f3 "$work/results-$i-$port" | median)
    cpu[$port]=$(cut -d' ' -f4 "$work/results-$i-$port" | median)
    rps_of["$name|$threads|$port"]=${rps[$port]}
    cpu_of["$name|$threads|$port"]=${cpu[$port]}
  done
  printf '| %s (`%s`) | %s | %s | %s | %s | %s / %s us | %s / %s us | %s / %s us | %s |\n' "$name" "$target" "$threads" "${rps[$ref]}" "${rps[$ours]}" \
    "$(ratio "${rps[$ours]}" "${rps[$ref]}")" "${p50[$ref]}" "${p99[$ref]}" "${p50[$ours]}" "${p99[$ours]}" \
    "${cpu[$ref]}" "${cpu[$ours]}" "$(ratio "${cpu[$ref]}" "${cpu[$ours]}")"
done
# Each access log's cost to its own server: the 24.5 KB page at wrk -t2, logged ÷ not logged.
plain="question page 24.5 KB|2" logged="question page 24.5 KB, access logs on|2"
if [ -n "${rps_of[$plain|18101]:-}" ] && [ -n "${rps_of[$logged|18103]:-}" ]; then
  echo
  echo "access log's cost (24.5 KB page, wrk -t2, requests/s logged ÷ not logged): nginx (buffer=64k)" \
    "$(ratio "${rps_of[$logged|18102]}" "${rps_of[$plain|18100]}"), ridge $(ratio "${rps_of[$logged|18103]}" "${rps_of[$plain|18101]}")"
  echo "access log's cost in CPU per request (logged ÷ not logged): nginx $(ratio "${cpu_of[$logged|18102]}" "${cpu_of[$plain|18100]}"), ridge $(ratio "${cpu_of[$logged|18103]}" "${cpu_of[$plain|18101]}")"
  echo "lines logged: nginx $(wc -l < "$work/nginx-access.log" 2>/dev/null || echo 0) (its buffer may still hold some), ridge $(grep -c ' /q/' "$work/ridge-18103.log" || true)"
fi
echo
echo "ridge resident memory after these runs: $(awk '/VmRSS/ {print $2, $3}' "/proc/$ridge_pid/status")"
nginx -c "$work/nginx.conf" -p "$work" -s stop || true
kill "$ridge_pid" "$ridge_log_pid" 2>/dev/null || true

if [ -z "${SKIP_REVIEWS:-}" ]; then
  echo
  bench/reviews.sh "$duration"
fi

if [ -z "${SKIP_STARTUP:-}" ]; then
  # Banks of N questions (bench/tools.sh's make_bank: the real ones, then copies).
  echo
  echo "start-up (load the catalogs and the bank, render the pages but the questions', listen) and resident memory when listening:"
  echo
  echo "| questions | start-up | resident memory | per question |"
  echo "|---|---|---|---|"
  for n in 0 5000 10000; do
    dir=content
    if [ "$n" -gt 0 ]; then dir=$work/bank-$n; make_bank "$n" "$dir"; fi
    start_ridge 18101 "$dir"
    rss_kb=$(awk '/VmRSS/ {print $2}' "/proc/$last_pid/status")
    count=$(grep -o '[0-9]* questions' "$work/ridge-18101.log" | cut -d' ' -f1)
    printf '| %s | %s ms | %s MB | %s ms, %s KB |\n' "$count" "$started_ms" "$(awk -v k="$rss_kb" 'BEGIN { printf "%.1f", k / 1024 }')" \
      "$(awk -v t="$started_ms" -v n="$count" 'BEGIN { printf "%.3f", t / n }')" "$(awk -v k="$rss_kb" -v n="$count" 'BEGIN { printf "%.1f", k / n }')"
    kill "$last_pid"; wait "$last_pid" 2>/dev/null || true
    rm -f "$work"/ridge-18101.db*
  done
fi
echo
echo "load before: $load_before"
echo "load after:  $(uptime)"
