// The sandbox every `ridge lab test --impl` program runs in (and the Go compiler too):
// bubblewrap with every namespace unshared (no network), only /usr (and the /bin, /lib,
// /lib64 links into it) visible and read-only, a private /tmp, a minimal /proc and /dev,
// no capabilities, uid 65534, and the files the caller binds. Around it: a wall-clock
// limit (the whole process tree is killed at it) and setrlimit limits on data memory,
// file size and core dumps, set before bwrap is exec'd and inherited by everything inside.
#pragma once

#include <stdlib.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace ridge::cli {

struct SandboxLimits {
  int timeout_ms = 10'000;
  std::uint64_t data_bytes = 512ULL << 20;  // RLIMIT_DATA: heap and private writable mappings
  std::uint64_t file_bytes = 64ULL << 20;   // RLIMIT_FSIZE, and the size of the private /tmp
};

struct SandboxBind {
  std::string host;     // an absolute path on this machine
  std::string inside;   // where the program sees it
  bool writable = false;
};

struct SandboxRun {
  std::vector<std::string> argv;               // run inside; argv[0] an absolute path
  std::vector<SandboxBind> binds;
  std::vector<std::pair<std::string, std::string>> env;  // the only environment (plus PATH, HOME, LANG)
  std::string stdin_text;
  SandboxLimits limits;
};

struct SandboxResult {
  bool started = false;      // false: bwrap could not be run (see error)
  std::string error;         // why it did not start
  bool timed_out = false;    // killed at limits.timeout_ms
  bool output_overflow = false;  // stdout passed its cap and the program was killed
  int exit_code = -1;        // when it exited
  int signal = 0;            // when a signal ended it
  std::string out;           // stdout
  std::string err;           // stderr (its last 64 KiB)
  std::int64_t wall_ms = 0;
};

// A directory under $TMPDIR (ridge-lab-XXXXXX), removed with everything in it on
// destruction; path() is empty if it could not be created.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "ridge-lab-XXXXXX").string();
    if (mkdtemp(tmpl.data()) != nullptr) path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// The bwrap binary: $RIDGE_BWRAP, else /usr/bin/bwrap.
std::string bwrap_path();

// Runs `run` in the sandbox and collects its output.
SandboxResult run_sandboxed(const SandboxRun& run);

// Empty when the sandbox starts here; otherwise a message saying why not and what to do.
std::string sandbox_unavailable();

}  // namespace ridge::cli
