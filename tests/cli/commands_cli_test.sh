#!/usr/bin/env bash
# The fixed commands' flags (CLI11), through the real binary: for each command, --help lists
# its flags with their defaults (exit 0), and a bad flag and a bad value are refused with exit
# status 2 and a message naming the flag, the value and what is accepted. None of these runs
# reaches a store, a listener or the network: every refusal happens at parse time.
set -u
ridge="$1"
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
check() {  # check NAME EXPECTED-SUBSTRING OUTPUT
  if [[ "$3" != *"$2"* ]]; then echo "FAIL: $1: expected '$2' in:"; echo "$3"; fail=1; else echo "ok: $1"; fi
}
# run ARGS...: sets out (stdout and stderr) and rc; stdin is empty, so nothing waits for input.
run() { out=$("$ridge" "$@" </dev/null 2>&1); rc=$?; }
# help NAME EXPECTED ARGS...: ARGS --help exits 0 and prints EXPECTED (a flag with its default).
help() {
  local name="$1" expected="$2"; shift 2
  run "$@" --help; check "$name --help exit" "0" "$rc"; check "$name --help lists $expected" "$expected" "$out"
}
# refused NAME EXPECTED ARGS...: ARGS exit 2 with EXPECTED in the message.
refused() {
  local name="$1" expected="$2"; shift 2
  run "$@"; check "$name exit" "2" "$rc"; check "$name message" "$expected" "$out"
}

# --- ridge itself ---
help "ridge" "serve" ; run --help; check "ridge --help lists lab" "lab" "$out"
check "ridge --help lists --data" "--data" "$out"
run help; check "ridge help exit" "0" "$rc"
refused "no command" "ridge: a command is required; accepted: calc, check, show, serve, lab" 
refused "unknown command" "ridge: 'nope' is not a command; accepted: calc, check" nope
refused "bad --data" "--data '$tmp/none' is not a directory; accepted: an existing directory" --data "$tmp/none" validate

# --- serve ---
help "serve" "--port INT:0..65535=8080" serve
run serve --help
check "serve --help lists --threads and its default" "--threads INT:0..256=0" "$out"
check "serve --help lists --log-format's choices" "--log-format TEXT:{text, json}=text" "$out"
check "serve --help names the environment" "Env:RIDGE_PORT" "$out"
check "serve --help lists --db's default" "sqlite:ridge.db" "$out"
refused "serve bad flag" "ridge serve: '--prot' is not expected; accepted: --help, --port, --bind" serve --prot 80
refused "serve port not a number" "ridge serve: --port 'abc' is not a whole number; accepted: 0 to 65535" serve --port abc
refused "serve port out of range" "--port '65536' is out of range; accepted: 0 to 65535" serve --port 65536
out=$(RIDGE_PORT=-1 "$ridge" serve </dev/null 2>&1); rc=$?
check "serve port from the environment exit" "2" "$rc"
check "serve port from the environment message" "--port '-1' is out of range; accepted: 0 to 65535" "$out"
refused "serve threads" "--threads '-1' is out of range; accepted: 0 to 256" serve --threads -1
refused "serve io" "--io 'both' is not an I/O model; accepted: per-thread, shared" serve --io both
refused "serve log format" "--log-format 'xml' is not a log format; accepted: text, json" serve --log-format xml
refused "serve access log" "--access-log 'maybe' is not on or off; accepted: on, off" serve --access-log maybe
refused "serve content" "--content '$tmp/none' is not a directory; accepted: an existing directory" serve --content "$tmp/none"
refused "serve db" "--db 'mysql://x' is not a database URL; accepted: sqlite:PATH, postgresql://" serve --db mysql://x
refused "serve trusted proxy" "--trusted-proxy '10.0.0.0/99' is not an address block; accepted: CIDR" \
  serve --trusted-proxy 127.0.0.1/32,10.0.0.0/99
refused "serve metrics bind" "--metrics-bind 'localhost:9090' is not an address and port; accepted: ADDR:PORT" \
  serve --metrics-bind localhost:9090
refused "serve value missing" "--port" serve --port

# --- lab ---
help "lab" "list" lab
help "lab test" "--timeout FLOAT:(0, 600]=0" lab test
help "lab measure" "--all" lab measure
refused "lab no verb" "ridge lab: a command is required; accepted: list, test, measure" lab
refused "lab unknown verb" "ridge lab: 'tset' is not a command; accepted: list, test, measure" lab tset
refused "lab test bad flag" "ridge lab test: '--imp=x.cc' is not expected; accepted: --help, --impl" lab test intervals --imp=x.cc
refused "lab test bad id" "ID 'nope' is not a lab build; accepted: rate-limiter, batcher" lab test nope
refused "lab test bad timeout" "--timeout '0' is not accepted; give a number above 0 and at most 600" lab test intervals --timeout 0
refused "lab test bad memory" "--memory '8' is not accepted; give at least 16 (MiB)" lab test intervals --memory 8
refused "lab test a stray word" "GTEST_FLAGS 'extra' is not expected; accepted: --impl" lab test intervals extra
refused "lab measure bad flag" "ridge lab measure: '--jsn' is not expected; accepted: --help, --all, --json" lab measure --jsn

# --- user ---
help "user" "add" user
help "user add" "--db TEXT:URL=sqlite:ridge.db" user add
refused "user no verb" "ridge user: a command is required; accepted: add, list, remove" user
refused "user bad flag" "ridge user list: '--all' is not expected" user list --all
refused "user add bad email" "EMAIL 'nobody' is not an email address" user add nobody --db "sqlite:$tmp/u.db"
refused "user add no email" "EMAIL is required" user add --db "sqlite:$tmp/u.db"
refused "user bad db" "--db 'sqlite:' is not a database URL; accepted: sqlite:PATH" user list --db sqlite:
[[ ! -e "$tmp/u.db" ]] && echo "ok: refusals open no database" || { echo "FAIL: a refusal opened $tmp/u.db"; fail=1; }

# --- grant, revoke ---
help "grant" "--months INT:1..120=6" grant
help "revoke" "EMAIL" revoke
refused "grant bad flag" "ridge grant: '--month' is not expected; accepted: --help, --months, --db" grant a@example.com --month 2
refused "grant months" "--months '0' is out of range; accepted: 1 to 120" grant a@example.com --months 0
refused "grant months not a number" "--months 'six' is not a whole number; accepted: 1 to 120" grant a@example.com --months six
refused "revoke takes no months" "ridge revoke: '--months' is not expected; accepted: --help, --db" revoke a@example.com --months 2

# --- check, show ---
help "check" "--run-snippets" check
help "show" "SLUG" show
refused "check bad flag" "ridge check: '--run-snippet' is not expected; accepted: --help, --run-snippets" check --run-snippet
refused "check bad dir" "DIR '$tmp/none' is not a directory; accepted: an existing directory" check "$tmp/none"
refused "show no slug" "SLUG is required" show
refused "show bad content" "--content '$tmp/none' is not a directory" show some-slug --content "$tmp/none"

# --- drill ---
help "drill" "--count INT:1..10000=1" drill
refused "drill bad flag" "ridge drill: '--topics' is not expected; accepted: --help, --topic, --seed, --count" drill --topics x
refused "drill bad topic" "--topic 'nope' has no drills; accepted: napkin-math" drill --topic nope
refused "drill bad seed" "--seed 'x' is not a whole number; accepted: 0 to" drill --seed x
refused "drill bad count" "--count '0' is out of range; accepted: 1 to 10000" drill --count 0

# --- validate ---
help "validate" "--max-training-mean FLOAT:(0, 1000]=0" validate
refused "validate bad flag" "ridge validate: '--chek' is not expected; accepted: --help, --json, --check" validate --chek
refused "validate bad threshold" "--max-serving-mean 'lots' is not accepted; give a number above 0 and at most 1000" \
  validate --max-serving-mean lots
refused "validate bad setting" "--set 'gemm' is not a setting; accepted: NAME=VALUE" validate --set gemm
run --data "$(dirname "$0")/../../data" validate --markdown; check "validate markdown exit" "0" "$rc"
check "validate markdown regime table" "| regime | held-out | all | gate |" "$out"
check "validate markdown regimes" "| serving decode aggregated under load | " "$out"
check "validate markdown runs by regime" $'serving decode aggregated under load:\n\n| run | half | predicted | measured | error | source |' "$out"
# The gates of the runs file: one above what the model reaches fails --check (exit 1) and is
# printed with its reason; a looser gate without a reason is refused (exit 2, naming the gate).
cp -r "$(dirname "$0")/../../data" "$tmp/data"
printf '\n[[gate]]\ngroup = "training"\nregime = "dense fp8"\nhalf = "held-out"\nmax_mean = 0.001\nissue_bound = false\nwhy = "a test gate"\n' \
  >> "$tmp/data/published-runs.toml"
run --data "$tmp/data" validate --check; check "validate failing gate exit" "1" "$rc"
check "validate failing gate printed" "FAIL; not yet within the issue's bound (a test gate)" "$out"
printf '\n[[gate]]\ngroup = "training"\nregime = "dense fp8"\nmax_mean = 5\n' >> "$tmp/data/published-runs.toml"
refused "validate gate without a reason" "gate: 'training dense fp8' needs" --data "$tmp/data" validate --check

# --- mail ---
help "mail" "weekly" mail
help "mail weekly" "--now INT:1..253402300799=0" mail weekly
refused "mail no verb" "ridge mail: a command is required; accepted: weekly, send" mail
refused "mail bad flag" "ridge mail send: '--dry-run' is not expected; accepted: --help, --db, --mail-dir" mail send --dry-run
refused "mail bad now" "--now 'yesterday' is not a whole number; accepted: 1 to" mail weekly --now yesterday

# --- calc keeps its own flags and messages ---
run calc fit --help; check "calc fit --help is the calculator's" "Ki is 1,024" "$out"
run calc fit --gpus; check "calc's own refusal exit" "2" "$rc"
refused "calc a calculator named like a command" "" calc serve --nope 1
check "calc serve is the calculator, not the command" "calc" "$out"

exit $fail
