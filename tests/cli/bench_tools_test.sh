#!/usr/bin/env bash
# Issue 33 item 11: bench/serve.sh stopped silently when a tool it needs was missing (without
# ccache its configure step failed into /dev/null). With a PATH that lacks wrk and nginx, and
# installing forbidden, it must stop with status 1 naming each tool and its install command.
set -u
root="$(cd "$(dirname "$0")/../.." && pwd)"
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
for tool in bash dirname id cat mktemp rm; do ln -s "$(command -v "$tool")" "$bin/$tool"; done
fail=0
for script in serve.sh reviews.sh; do
  out=$(cd "$root" && PATH="$bin" BENCH_NO_INSTALL=1 "$bin/bash" "bench/$script" 1 2>&1)
  status=$?
  if [[ $status -ne 1 ]]; then echo "FAIL: $script exited $status, expected 1:"; echo "$out"; fail=1; fi
  if [[ "$out" != *"bench/$script: needs 'wrk' (Debian package wrk); install it with: apt-get install wrk"* ]]; then
    echo "FAIL: $script did not name wrk:"; echo "$out"; fail=1
  else
    echo "ok: $script names the missing wrk"
  fi
done
exit $fail
