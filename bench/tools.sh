# Sourced by the bench scripts: what a script needs is there before it starts, or it stops
# saying what is missing and the command that installs it (issue 33 item 11: serve.sh used to
# stop silently on a machine without ccache, its configure step's output sent to /dev/null).
#   need_tools SCRIPT TOOL:PACKAGE ...  installs the missing packages like scripts/deps.sh (as
#                                       root, with apt-get update first), then checks each tool;
#                                       BENCH_NO_INSTALL=1 only checks.
#   build_release SCRIPT                configures and builds build/release/ridge, with ccache as
#                                       the launcher when it is installed, output shown on failure.
#   make_bank N DIR                     a bank of N questions in DIR: content/ (run from the
#                                       repository root), then copies of its questions cycled under
#                                       new slugs (links between questions still resolve: the
#                                       originals keep theirs).

need_tools() {
  local script=$1 missing=() tool package pair
  shift
  for pair in "$@"; do
    tool=${pair%%:*}
    package=${pair#*:}
    command -v "$tool" >/dev/null 2>&1 || missing+=("$package")
  done
  if [ ${#missing[@]} -gt 0 ] && [ "${BENCH_NO_INSTALL:-0}" != 1 ] && [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "$script: installing ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >&2 && apt-get install -y -q --no-install-recommends "${missing[@]}" >&2 ||
      echo "$script: apt-get could not install ${missing[*]}" >&2
  fi
  local failed=0
  for pair in "$@"; do
    tool=${pair%%:*}
    package=${pair#*:}
    if ! command -v "$tool" >/dev/null 2>&1; then
      echo "$script: needs '$tool' (Debian package $package); install it with: apt-get install $package" >&2
      failed=1
    fi
  done
  [ $failed -eq 0 ] || exit 1
}

build_release() {
  local script=$1 launcher=() log
  if command -v ccache >/dev/null 2>&1; then
    launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  fi
  log=$(mktemp)
  if ! { cmake --preset release "${launcher[@]}" && nice -n 10 cmake --build --preset release --target ridge; } >"$log" 2>&1; then
    cat "$log" >&2
    rm -f "$log"
    echo "$script: building build/release/ridge failed (the output is above)" >&2
    exit 1
  fi
  rm -f "$log"
}

make_bank() {
  rm -rf "$2"; cp -r content "$2"
  /usr/bin/python3 - "$1" "$2" <<'PY'
import pathlib, shutil, sys
n, root = int(sys.argv[1]), pathlib.Path(sys.argv[2])
originals = sorted(p for p in (root / "questions").rglob("*.md") if p.name != "README.md")
for i in range(len(originals), n):
    src = originals[i % len(originals)]
    shutil.copyfile(src, src.with_name(f"{src.stem}-copy-{i}.md"))
PY
}
