#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the tests: `pg_fixture.sh start DIR` initializes a cluster
# in DIR on a free port (as the postgres system user when run as root), starts it, creates the
# database ridge_test and writes its URL to DIR/url. `pg_fixture.sh stop DIR` stops it and
# removes DIR. ctest runs these as a fixture around the tests that need PostgreSQL.
set -euo pipefail
cmd=$1 dir=$2
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -x "$bin/initdb" ] || { echo "pg_fixture: PostgreSQL server binaries not found (scripts/deps.sh installs postgresql)" >&2; exit 1; }
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
case "$cmd" in
  start)
    rm -rf "$dir"; mkdir -p "$dir"
    [ "$(id -u)" = 0 ] && chown postgres:postgres "$dir"
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
    as_pg "$bin/initdb" -D "$dir/data" -A trust -U postgres --no-sync >/dev/null
    as_pg "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=on" start >/dev/null
    as_pg "$bin/createdb" -h 127.0.0.1 -p "$port" -U postgres ridge_test
    echo "postgresql://postgres@127.0.0.1:$port/ridge_test" > "$dir/url"
    [ "$(id -u)" = 0 ] && chmod a+r "$dir/url"
    echo "pg_fixture: $(cat "$dir/url")"
    ;;
  stop)
    [ -d "$dir/data" ] && as_pg "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
    rm -rf "$dir"
    ;;
  *) echo "usage: pg_fixture.sh start|stop DIR" >&2; exit 2 ;;
esac
