#!/usr/bin/env bash
# Review submissions per second and latency, 64 concurrent users, on SQLite and on
# PostgreSQL (a throwaway cluster from tests/pg_fixture.sh). Each of the 64 wrk connections
# posts /api/reviews as one of 64 signed-up users with its own session and CSRF token.
# The reference, in the same run on the same cluster: pgbench's tpcb-like script with 64
# clients (scale 64, so no two clients queue on one branch row), fsync on like ridge's.
# Usage: bench/reviews.sh [SECONDS per run, default 10]
set -euo pipefail
cd "$(dirname "$0")/.."
duration=${1:-10}
# shellcheck source=bench/tools.sh
. bench/tools.sh
trap 'echo "bench/reviews.sh: stopped at line $LINENO: $BASH_COMMAND (exit $?)" >&2' ERR
need_tools bench/reviews.sh cmake:cmake ninja:ninja-build g++:g++ wrk:wrk curl:curl pgbench:postgresql-client psql:postgresql-client python3:python3
build_release bench/reviews.sh
ridge=build/release/ridge
work=$(mktemp -d)
chmod 755 "$work"  # the postgres user must reach the cluster inside it
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; tests/pg_fixture.sh stop "$work/pg" >/dev/null 2>&1 || true; rm -rf "$work"; }
trap cleanup EXIT

run() {  # run NAME DB-URL
  local port=18190
  "$ridge" serve --port "$port" --threads 2 --access-log off --db "$2" > "$work/serve.log" 2>&1 &
  pid=$!
  until grep -q listening "$work/serve.log" 2>/dev/null; do sleep 0.05; done
  local url="http://127.0.0.1:$port"
  local slugs
  slugs=$(curl -s "$url/api/questions" | python3 -c 'import json,sys; print(" ".join(q["slug"] for q in json.load(sys.stdin)["questions"]))')
  python3 - "$url" "$work/users.lua" $slugs <<'PY'
import concurrent.futures, http.client, json, sys, urllib.parse
url, out, slugs = sys.argv[1], sys.argv[2], sys.argv[3:]
host = urllib.parse.urlparse(url)
def signup(i):
    # Each user signs up from its own loopback address: sign-ups are rate limited per address.
    conn = http.client.HTTPConnection(host.hostname, host.port, timeout=120, source_address=("127.0.0.%d" % (i + 2), 0))
    body = json.dumps({"email": f"bench{i}@example.com", "password": "correct horse battery"})
    conn.request("POST", "/api/signup", body, {"Content-Type": "application/json"})
    r = conn.getresponse()
    if r.status != 201:
        sys.exit(f"signup {i}: {r.status} {r.read()}")
    cookie = r.getheader("Set-Cookie").split(";")[0]
    csrf = json.loads(r.read())["csrf_token"]
    return '{"%s", "%s"}' % (cookie, csrf)
with concurrent.futures.ThreadPoolExecutor(8) as pool:
    lines = list(pool.map(signup, range(64)))
with open(out, "w") as f:
    f.write("users = {" + ", ".join(lines) + "}\n")
    f.write("slugs = {" + ", ".join('"%s"' % s for s in slugs) + "}\n")
PY
  cat > "$work/post.lua" <<LUA
dofile("$work/users.lua")
local n = 0
request = function()
  n = n + 1
  local u = users[(n % #users) + 1]
  local slug = slugs[(n % #slugs) + 1]
  local grade = (n % 4) + 1
  return wrk.format("POST", "/api/reviews", {["Content-Type"] = "application/json", ["Cookie"] = u[1], ["X-CSRF-Token"] = u[2]},
                    '{"slug":"' .. slug .. '","grade":' .. grade .. '}')
end
response = function(status, headers, body)
  if status ~= 200 then io.stderr:write("status " .. status .. "\\n") end
end
LUA
  local out
  out=$(wrk -t2 -c64 -d"${duration}s" --latency -s "$work/post.lua" "$url" 2>"$work/wrk-errors")
  [ -s "$work/wrk-errors" ] && { echo "$1: $(sort "$work/wrk-errors" | uniq -c | head -3)" >&2; }
  rows+=("$1|$(awk '/Requests\/sec/ {print $2}' <<<"$out")|$(awk '$1=="50%" {print $2}' <<<"$out")|$(awk '$1=="99%" {print $2}' <<<"$out")")
  kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""
}
rows=()

run "ridge on SQLite (WAL, synchronous=FULL)" "sqlite:$work/ridge.db"
tests/pg_fixture.sh start "$work/pg" >/dev/null
pg_url=$(cat "$work/pg/url")
run "ridge on PostgreSQL 15 (fsync on)" "$pg_url"

# The reference: pgbench in a database of its own on the same cluster.
bench_url=${pg_url%/*}/pgbench
psql -q "$pg_url" -c "CREATE DATABASE pgbench" >/dev/null
pgbench -q -i -s 64 -I dtGvp "$bench_url" >/dev/null 2>&1
mkdir -p "$work/pgb"
pgbench -c 64 -j 2 -T "$duration" -l --log-prefix="$work/pgb/log" "$bench_url" > "$work/pgbench.out" 2>&1
tps=$(awk '/^tps/ {print int($3)}' "$work/pgbench.out" | tail -1)
# Per-transaction latencies (microseconds, the third column): the same percentiles as wrk's.
read -r p50 p99 < <(cat "$work"/pgb/log* | awk '{print $3}' | sort -n | awk '{ v[NR] = $1 } END { printf "%.2fms %.2fms\n", v[int(NR * 0.5)] / 1000, v[int(NR * 0.99)] / 1000 }')

echo "POST /api/reviews, 64 users on 64 connections, wrk -t2 -d${duration}s; pgbench -c64 -j2 -T${duration} (tpcb-like, scale 64) on the same cluster; $(nproc) cores, $(date -u +%Y-%m-%d)"
echo
echo "| what | per second | p50 | p99 | vs pgbench |"
echo "|---|---|---|---|---|"
printf '| pgbench tpcb-like, PostgreSQL 15 (fsync on) | %s | %s | %s | 1.00 |\n' "$tps" "$p50" "$p99"
for row in "${rows[@]}"; do
  IFS='|' read -r name rps r50 r99 <<<"$row"
  printf '| %s | %s | %s | %s | %s |\n' "$name" "$rps" "$r50" "$r99" "$(awk -v a="$rps" -v b="$tps" 'BEGIN { printf "%.2f", a / b }')"
done
