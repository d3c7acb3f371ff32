#!/usr/bin/env bash
# Installs the Debian 12 packages ridge needs to build and test, when they are missing.
# Run as root (CI and `make` do). Idempotent: a machine that has everything does nothing.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config   # compiler, build system
  libtomlplusplus-dev     # data/hardware.toml, question front matter
  nlohmann-json3-dev      # config.json reader, JSON output
  libmd4c-dev libmd4c-html0-dev  # Markdown to HTML for answers
  libkainjow-mustache-dev # page templates: header-only Mustache, escapes by default, logic-less (web/templates)
  libgtest-dev libgmock-dev      # unit tests
  libbenchmark-dev        # bench/
  libboost1.81-dev        # Boost.Beast and Asio: the HTTP server
  libsqlite3-dev          # search index (FTS5) and the embedded store
  libpq-dev               # the PostgreSQL store (libpq)
  postgresql              # a throwaway server the store tests start (tests/pg_fixture.sh)
  libsodium-dev           # argon2id passwords, random session tokens, HMAC-SHA256 of webhooks and mail links
  libspdlog-dev           # the access and error logs (async, text or JSON lines to stderr)
  libcli11-dev            # the fixed commands' flags (serve, lab, user, check, drill, ...): validators, --help with defaults
  prometheus-cpp-dev      # /metrics in the Prometheus text format (registry, counters, histograms)
  libcurl4-openssl-dev    # Stripe's REST API (Checkout Sessions) and SMTP with STARTTLS for mail
  zlib1g-dev              # gzip'd copies of cached pages, sent with Content-Encoding: gzip (web/gzip.cc)
  python3-aiosmtpd        # the real SMTP server the mail tests start (/usr/bin/python3 -m aiosmtpd)
  nginx                   # the proxy in front of three servers in tests/e2e/scaleout.test.js (README's configuration)
  python3                 # snippet runner for ```python run blocks
  chromium                # browser tests (driven by playwright-core)
  bubblewrap              # the sandbox of `ridge lab test --impl`: no network, no repository, time and memory limits
  golang-go               # compiles Go implementations for `ridge lab test ID --impl FILE.go` (and the Go references)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "deps: installing ${missing[*]}"
  if [ "$(id -u)" -ne 0 ]; then
    echo "deps: need root to install: ${missing[*]}" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# Node.js runs the browser tests; the machine image has it, a bare Debian gets Debian's.
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "deps: installing nodejs npm"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends nodejs npm
fi
# playwright-core, pinned by tests/e2e/package-lock.json; it uses Debian's chromium, never downloads a browser.
e2e="$(dirname "$0")/../tests/e2e"
if [ ! -d "$e2e/node_modules/playwright-core" ] || [ "$e2e/package-lock.json" -nt "$e2e/node_modules/.package-lock.json" ]; then
  echo "deps: npm ci in tests/e2e"
  (cd "$e2e" && npm ci --no-audit --no-fund)
fi
