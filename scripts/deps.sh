#!/usr/bin/env bash
# Installs the Debian 12 packages ridge needs to build and test, when they are missing.
# Run as root (CI and `make` do). Idempotent: a machine that has everything does nothing.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config   # compiler, build system
  libtomlplusplus-dev     # data/hardware.toml, question front matter
  nlohmann-json3-dev      # config.json reader, JSON output
  libmd4c-dev libmd4c-html0-dev  # Markdown to HTML for answers
  libgtest-dev libgmock-dev      # unit tests
  libbenchmark-dev        # bench/
  python3                 # snippet runner for ```python run blocks
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
