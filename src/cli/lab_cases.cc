#include "cli/lab_cases.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

namespace ridge::cli {

namespace {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;  // requests and replies shown in the order they were written

struct Case {
  std::string name;
  std::string catches;
  std::vector<json> input;
  std::vector<json> expected;
  double tolerance = 0;
};

// Reads cases.jsonl; on a malformed line, `error` names the line and the field.
std::vector<Case> load_cases(const fs::path& file, std::string& error) {
  std::vector<Case> cases;
  std::ifstream in(file);
  if (!in) {
    error = "cannot read " + file.string();
    return {};
  }
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.empty()) continue;
    const std::string where = file.string() + ":" + std::to_string(n) + ": ";
    const json j = json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
      error = where + "not a JSON object";
      return {};
    }
    Case c;
    if (!j.contains("name") || !j["name"].is_string() || !j.contains("catches") || !j["catches"].is_string()) {
      error = where + "needs string fields name and catches";
      return {};
    }
    if (!j.contains("input") || !j["input"].is_array() || !j.contains("expected") || !j["expected"].is_array() ||
        j["input"].size() != j["expected"].size()) {
      error = where + "needs arrays input and expected of the same length (one reply per request)";
      return {};
    }
    c.name = j["name"];
    c.catches = j["catches"];
    c.input.assign(j["input"].begin(), j["input"].end());
    c.expected.assign(j["expected"].begin(), j["expected"].end());
    if (j.contains("tolerance")) {
      if (!j["tolerance"].is_number() || j["tolerance"].get<double>() < 0) {
        error = where + "tolerance must be a number >= 0";
        return {};
      }
      c.tolerance = j["tolerance"];
    }
    cases.push_back(std::move(c));
  }
  if (cases.empty()) error = file.string() + " holds no cases";
  return cases;
}

// Equal as JSON values; numbers within `tolerance` when it is above zero (else exactly,
// with 3 and 3.0 equal). Objects need the same keys: a reply with an extra field differs.
bool same(const json& want, const json& got, double tolerance) {
  if (want.is_number() && got.is_number()) {
    if (tolerance > 0) return std::fabs(want.get<double>() - got.get<double>()) <= tolerance;
    return want == got;
  }
  if (want.is_object() && got.is_object()) {
    if (want.size() != got.size()) return false;
    for (auto it = want.begin(); it != want.end(); ++it) {
      const auto g = got.find(it.key());
      if (g == got.end() || !same(*it, *g, tolerance)) return false;
    }
    return true;
  }
  if (want.is_array() && got.is_array()) {
    if (want.size() != got.size()) return false;
    for (std::size_t i = 0; i < want.size(); ++i) {
      if (!same(want[i], got[i], tolerance)) return false;
    }
    return true;
  }
  return want == got;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty()) lines.push_back(line);
  }
  return lines;
}

std::string clip(const std::string& s, std::size_t max = 400) {
  return s.size() <= max ? s : s.substr(0, max) + "... (" + std::to_string(s.size() - max) + " more bytes)";
}

std::string last_lines(const std::string& text, std::size_t count, const std::string& indent) {
  const auto lines = lines_of(text);
  std::string out;
  const std::size_t from = lines.size() > count ? lines.size() - count : 0;
  for (std::size_t i = from; i < lines.size(); ++i) out += (i == from ? "" : indent) + clip(lines[i], 200) + "\n";
  return out;
}

std::string seconds(int ms) {
  if (ms % 1000 == 0) return std::to_string(ms / 1000) + " s";
  std::ostringstream o;
  o << ms / 1000.0 << " s";
  return o.str();
}

std::string mib(std::uint64_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

// How the program runs inside the sandbox.
struct Launch {
  std::vector<std::string> argv;
  std::vector<SandboxBind> binds;
};

// Compiles a Go file inside the sandbox (offline: no module proxy, no cgo, a fresh cache in
// the private /tmp). Returns false, with the compiler's first lines in `error`, if it fails.
bool compile_go(const fs::path& source, const fs::path& out_dir, const CaseOptions& options, std::string& error) {
  SandboxRun run;
  run.argv = {"/usr/bin/go", "build", "-o", "/out/impl", "/sandbox/src/main.go"};
  run.binds = {{fs::absolute(source).string(), "/sandbox/src/main.go", false}, {out_dir.string(), "/out", true}};
  run.env = {{"GOCACHE", "/tmp/go-cache"}, {"GOPATH", "/tmp/go"}, {"GO111MODULE", "off"}, {"GOPROXY", "off"},
             {"CGO_ENABLED", "0"}, {"GOFLAGS", ""}, {"GOTOOLCHAIN", "local"}};
  run.limits.timeout_ms = std::max(options.limits.timeout_ms, 120'000);
  run.limits.data_bytes = std::max<std::uint64_t>(options.limits.data_bytes, 2ULL << 30);
  run.limits.file_bytes = std::max<std::uint64_t>(options.limits.file_bytes, 256ULL << 20);
  if (access("/usr/bin/go", X_OK) != 0) {
    error = "the Go compiler /usr/bin/go is not there; install Debian's golang-go (scripts/deps.sh does)";
    return false;
  }
  const SandboxResult r = run_sandboxed(run);
  if (!r.started) {
    error = r.error;
    return false;
  }
  if (r.timed_out) {
    error = "go build did not finish within " + std::to_string(run.limits.timeout_ms / 1000) + " s";
    return false;
  }
  if (r.exit_code != 0 || !fs::exists(out_dir / "impl")) {
    std::string text = r.err + r.out;
    for (std::size_t p; (p = text.find("/sandbox/src/main.go")) != std::string::npos;) {
      text.replace(p, std::strlen("/sandbox/src/main.go"), source.string());
    }
    error = source.string() + " does not compile (go build, Go only: the standard library, package main). First lines:\n    " +
            last_lines(text, 20, "    ");
    return false;
  }
  return true;
}

std::string signal_name(int sig) {
  const char* s = strsignal(sig);
  return "signal " + std::to_string(sig) + (s != nullptr ? std::string(" (") + s + ")" : "");
}

// Why the process itself failed, or empty when it exited 0 in time.
std::string process_problem(const SandboxResult& r, const CaseOptions& options) {
  const std::string& e = r.err;
  const bool memory = e.find("MemoryError") != std::string::npos || e.find("out of memory") != std::string::npos ||
                      e.find("bad_alloc") != std::string::npos || e.find("Cannot allocate memory") != std::string::npos ||
                      e.find("cannot allocate memory") != std::string::npos;
  std::string why;
  if (r.timed_out) {
    why = "killed at the time limit of " + seconds(options.limits.timeout_ms) + " per case (--timeout SECONDS changes it)";
  } else if (r.output_overflow) {
    why = "killed: wrote more than 4 MiB to stdout";
  } else if (r.signal != 0) {
    why = "killed by " + signal_name(r.signal);
  } else if (r.exit_code != 0) {
    why = "exited with status " + std::to_string(r.exit_code);
  }
  if (!why.empty() && memory) {
    why += "; it ran out of memory: the sandbox allows " + mib(options.limits.data_bytes) +
           " of data per process (--memory MIB changes it)";
  }
  return why;
}

}  // namespace

int run_cases(const std::string& id, const fs::path& cases_file, const fs::path& program, const std::string& label,
              const CaseOptions& options, std::ostream& out, std::ostream& err) {
  std::string error;
  std::vector<Case> cases = load_cases(cases_file, error);
  if (!error.empty()) {
    err << "ridge lab: the cases of '" << id << "' are broken (is the source tree intact?): " << error << "\n";
    return 1;
  }
  if (!options.only_case.empty()) {
    std::vector<Case> chosen;
    std::string names;
    for (auto& c : cases) {
      names += (names.empty() ? "" : ", ") + c.name;
      if (c.name == options.only_case) chosen.push_back(std::move(c));
    }
    if (chosen.empty()) {
      err << "ridge lab test: --case '" << options.only_case << "' is not a case of '" << id << "'; accepted: " << names
          << "\n";
      return 2;
    }
    cases = std::move(chosen);
  }
  // The sandbox shows /usr: cases kept under it would be readable by the program.
  if (const std::string where = fs::weakly_canonical(cases_file).string(); where.rfind("/usr/", 0) == 0) {
    err << "ridge lab: the cases are at " << where << ", under /usr, which the sandbox shows to the program; "
        << "run ridge from a source tree outside /usr (RIDGE_SOURCE_DIR)\n";
    return 1;
  }
  if (const std::string why = sandbox_unavailable(); !why.empty()) {
    err << "ridge lab: " << why << "\n";
    return 1;
  }

  TempDir tmp;
  if (tmp.path().empty()) {
    err << "ridge lab: cannot create a temporary directory\n";
    return 1;
  }
  Launch launch;
  const std::string ext = program.extension().string();
  const std::string host = fs::absolute(program).string();
  if (ext == ".py") {
    launch.argv = {"/usr/bin/python3", "-I", "-B", "/sandbox/impl.py"};
    launch.binds = {{host, "/sandbox/impl.py", false}};
  } else if (ext == ".go") {
    out << "ridge lab: compiling " << program.string() << " with go build (in the sandbox)\n";
    if (!compile_go(program, tmp.path(), options, error)) {
      err << "ridge lab: " << error << "\n";
      return 1;
    }
    launch.argv = {"/sandbox/impl"};
    launch.binds = {{(tmp.path() / "impl").string(), "/sandbox/impl", false}};
  } else {
    launch.argv = {"/sandbox/impl"};
    launch.binds = {{host, "/sandbox/impl", false}};
  }

  out << "ridge lab: " << id << ": " << cases.size() << " case(s) against " << label << ", each in a fresh sandbox (no "
      << "network, " << seconds(options.limits.timeout_ms) << ", " << mib(options.limits.data_bytes) << " of data)\n";
  std::vector<std::string> failed;
  for (const Case& c : cases) {
    SandboxRun run;
    run.argv = launch.argv;
    run.binds = launch.binds;
    run.limits = options.limits;
    for (const auto& request : c.input) run.stdin_text += request.dump() + "\n";
    const SandboxResult r = run_sandboxed(run);
    if (!r.started) {
      err << "ridge lab: " << r.error << "\n";
      return 1;
    }
    const auto lines = lines_of(r.out);
    std::size_t mismatch = c.expected.size();
    std::string got;
    for (std::size_t i = 0; i < c.expected.size(); ++i) {
      if (i >= lines.size()) {
        mismatch = i;
        got = "(no reply)";
        break;
      }
      const json g = json::parse(lines[i], nullptr, false);
      if (g.is_discarded()) {
        mismatch = i;
        got = clip(lines[i]) + "   (not JSON)";
        break;
      }
      if (!same(c.expected[i], g, c.tolerance)) {
        mismatch = i;
        got = clip(g.dump());
        break;
      }
    }
    bool extra = false;
    if (mismatch == c.expected.size() && lines.size() > c.expected.size()) {
      extra = true;
      got = clip(lines[c.expected.size()]);
    }
    const std::string problem = process_problem(r, options);
    if (mismatch == c.expected.size() && !extra && problem.empty()) {
      out << "  ok    " << c.name << "\n";
      continue;
    }
    failed.push_back(c.name);
    const std::string pad = "                  ";
    out << "  FAIL  " << c.name << "\n";
    out << "        catches:  " << c.catches << "\n";
    for (std::size_t i = 0; i < c.input.size(); ++i) {
      if (i == 12) {
        out << pad << "... (" << c.input.size() - 12 << " more requests)\n";
        break;
      }
      out << (i == 0 ? "        input:    " : pad) << clip(c.input[i].dump()) << "\n";
    }
    if (extra) {
      out << "        after the " << c.expected.size() << " expected replies, an extra line: " << got << "\n";
    } else if (mismatch < c.expected.size()) {
      out << "        reply " << mismatch + 1 << " of " << c.expected.size() << " (to " << clip(c.input[mismatch].dump(), 120)
          << ")\n";
      out << "        expected: " << clip(c.expected[mismatch].dump()) << "\n";
      out << "        got:      " << got << "\n";
    }
    if (c.tolerance > 0) out << "        (numbers compared within " << c.tolerance << ")\n";
    if (!problem.empty()) out << "        program:  " << problem << "\n";
    if (!r.err.empty()) out << "        stderr:   " << last_lines(r.err, 8, pad);
  }
  out << "ridge lab: " << id << ": " << cases.size() - failed.size() << " of " << cases.size() << " cases passed against "
      << label;
  if (!failed.empty()) {
    out << "; failed:";
    for (const auto& f : failed) out << " " << f;
  }
  out << "\n";
  return failed.empty() ? 0 : 1;
}

}  // namespace ridge::cli
