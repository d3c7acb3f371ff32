#!/usr/bin/env bash
# Review submissions per second and latency, 64 concurrent users, on SQLite and on
# PostgreSQL (a throwaway cluster from tests/pg_fixture.sh). Each of the 64 wrk connections
# posts /api/reviews as one of 64 signed-up users with its own session and CSRF token.
# Usage: bench/reviews.sh [SECONDS per run, default 10]
set -euo pipefail
cd "$(dirname "$0")/.."
duration=${1:-10}
dpkg-query -W -f='${Status}' wrk 2>/dev/null | grep -q 'install ok installed' || DEBIAN_FRONTEND=noninteractive apt-get install -y -q wrk >/dev/null
cmake --preset release >/dev/null
cmake --build --preset release --target ridge >/dev/null
ridge=build/release/ridge
work=$(mktemp -d)
chmod 755 "$work"  # the postgres user must reach the cluster inside it
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; tests/pg_fixture.sh stop "$work/pg" >/dev/null 2>&1 || true; rm -rf "$work"; }
trap cleanup EXIT

run() {  # run NAME DB-URL
  local port=18190
  "$ridge" serve --port "$port" --threads 2 --db "$2" > "$work/serve.log" 2>&1 &
  pid=$!
  until grep -q listening "$work/serve.log" 2>/dev/null; do sleep 0.05; done
  local url="http://127.0.0.1:$port"
  local slugs
  slugs=$(curl -s "$url/api/questions" | python3 -c 'import json,sys; print(" ".join(q["slug"] for q in json.load(sys.stdin)["questions"]))')
  python3 - "$url" "$work/users.lua" $slugs <<'PY'
import http.client, json, sys, urllib.parse
url, out, slugs = sys.argv[1], sys.argv[2], sys.argv[3:]
host = urllib.parse.urlparse(url)
lines = []
for i in range(64):
    # Each user signs up from its own loopback address: sign-ups are rate limited per address.
    conn = http.client.HTTPConnection(host.hostname, host.port, source_address=("127.0.0.%d" % (i + 2), 0))
    body = json.dumps({"email": f"bench{i}@example.com", "password": "correct horse battery"})
    conn.request("POST", "/api/signup", body, {"Content-Type": "application/json"})
    r = conn.getresponse()
    if r.status != 201:
        sys.exit(f"signup {i}: {r.status} {r.read()}")
    cookie = r.getheader("Set-Cookie").split(";")[0]
    csrf = json.loads(r.read())["csrf_token"]
    lines.append('{"%s", "%s"}' % (cookie, csrf))
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
  out=$(wrk -t2 -c64 -d"${duration}s" --latency -s "$work/post.lua" "$url")
  printf '| %s | %s | %s | %s |\n' "$1" "$(awk '/Requests\/sec/ {print $2}' <<<"$out")" \
    "$(awk '$1=="50%" {print $2}' <<<"$out")" "$(awk '$1=="99%" {print $2}' <<<"$out")"
  kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""
}

echo "POST /api/reviews, 64 users on 64 connections, wrk -t2 -d${duration}s, $(nproc) cores, $(date -u +%Y-%m-%d)"
echo
echo "| store | reviews/s | p50 | p99 |"
echo "|---|---|---|---|"
run "SQLite (WAL, synchronous=FULL)" "sqlite:$work/ridge.db"
tests/pg_fixture.sh start "$work/pg" >/dev/null
run "PostgreSQL 15 (fsync on, pool of 4)" "$(cat "$work/pg/url")"
