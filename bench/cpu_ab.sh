#!/usr/bin/env bash
# bench/cpu_ab.sh A_BIN B_BIN PATH [ROUNDS] [WRK_THREADS]: two ridge builds (each on the real bank, SQLite in a
# temporary directory) serving PATH, wrk -c64 -d5s against each in turn for ROUNDS rounds; prints
# requests and the server's CPU time per request (utime + stime of the process, from /proc).
set -eu
. "$(dirname "$0")/tools.sh"
need_tools bench/cpu_ab.sh wrk:wrk awk:gawk
a=$1 b=$2 path=$3 rounds=${4:-3} t=${5:-1}
work=$(mktemp -d)
"$a" serve --port 18191 --threads 2 --access-log off --db sqlite:$work/a.db > $work/a.log 2>&1 & pa=$!
"$b" serve --port 18192 --threads 2 --access-log off --db sqlite:$work/b.db > $work/b.log 2>&1 & pb=$!
trap 'kill $pa $pb; rm -rf $work' EXIT
until grep -q listening $work/a.log && grep -q listening $work/b.log; do sleep 0.1; done
ticks() { awk '{print $14+$15}' /proc/$1/stat; }
for r in $(seq $rounds); do
  for s in a:18191:$pa b:18192:$pb; do
    IFS=: read n port pid <<<"$s"
    t0=$(ticks $pid)
    n_req=$(wrk -t$t -c64 -d5s http://127.0.0.1:$port$path | awk '/requests in/ {print $1}')
    t1=$(ticks $pid)
    awk -v n=$n -v q=$n_req -v d=$((t1-t0)) -v hz="$(getconf CLK_TCK)" 'BEGIN{printf "%s %d req %.1f us/req\n", n, q, d*1000000/hz/q}'
  done
done
