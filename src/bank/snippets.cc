#include "bank/snippets.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace ridge::bank {
namespace fs = std::filesystem;

namespace {

std::string shell_output(const std::string& command) {
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
  pclose(pipe);
  return out;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

uint64_t fnv1a(std::string_view data, uint64_t h = 1469598103934665603ull) {
  for (unsigned char c : data) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

std::string normalize(std::string_view text) {
  std::string out;
  std::istringstream lines{std::string(text)};
  std::string line;
  while (std::getline(lines, line)) {
    while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r')) line.pop_back();
    out += line + "\n";
  }
  while (out.size() >= 2 && out[out.size() - 1] == '\n' && out[out.size() - 2] == '\n') out.pop_back();
  if (out == "\n") out.clear();
  return out;
}

std::string first_lines(const std::string& s, int n) {
  std::string out;
  std::istringstream lines(s);
  std::string line;
  for (int i = 0; i < n && std::getline(lines, line); ++i) out += "\n    " + line;
  return out;
}

}  // namespace

bool outputs_match(std::string_view expected, std::string_view actual) {
  return normalize(expected) == normalize(actual);
}

SnippetRunner::SnippetRunner(fs::path cache_dir) : cache_dir_(std::move(cache_dir)) {
  std::error_code ec;
  fs::create_directories(cache_dir_, ec);
  have_nvcc_ = std::system("command -v nvcc >/dev/null 2>&1") == 0;
  toolchain_ = shell_output("g++ --version 2>/dev/null | head -1; python3 --version 2>&1");
}

SnippetOutcome SnippetRunner::run(const Snippet& s) {
  if (s.language == "cuda" && !have_nvcc_) {
    return {SnippetOutcome::kSkipped, false, "nvcc is not installed: CUDA snippet not compiled"};
  }
  if (s.mode == "run" && !s.expected_output) {
    return {SnippetOutcome::kFailed, false, "a run snippet needs an ```output block right after it"};
  }
  uint64_t key = fnv1a(s.language + "\x1f" + s.mode + "\x1f" + s.code + "\x1f" + s.expected_output.value_or("") +
                       "\x1f" + toolchain_);
  char name[32];
  std::snprintf(name, sizeof name, "%016llx", static_cast<unsigned long long>(key));
  fs::path marker = cache_dir_ / name;
  std::error_code ec;
  if (fs::exists(marker, ec)) return {SnippetOutcome::kPassed, true, ""};

  char tmpl[] = "/tmp/ridge-snippet-XXXXXX";
  if (mkdtemp(tmpl) == nullptr) return {SnippetOutcome::kFailed, false, "cannot create a temporary directory"};
  fs::path dir(tmpl);
  std::string q = '\'' + dir.string() + '\'';
  SnippetOutcome outcome;
  std::string actual;
  if (s.language == "cpp") {
    std::ofstream(dir / "main.cc") << s.code;
    if (std::system(("g++ -std=c++20 -O1 -pthread -o " + q + "/prog " + q + "/main.cc > " + q + "/build.log 2>&1").c_str()) != 0) {
      outcome = {SnippetOutcome::kFailed, false, "does not compile with g++ -std=c++20:" + first_lines(slurp(dir / "build.log"), 8)};
    } else {
      int rc = std::system(("cd " + q + " && timeout 20 ./prog > out.txt 2> err.txt").c_str());
      actual = slurp(dir / "out.txt");
      if (rc != 0) outcome = {SnippetOutcome::kFailed, false, "exits with status " + std::to_string(WEXITSTATUS(rc)) + first_lines(slurp(dir / "err.txt"), 5)};
    }
  } else if (s.language == "python") {
    std::ofstream(dir / "main.py") << s.code;
    int rc = std::system(("cd " + q + " && timeout 20 python3 main.py > out.txt 2> err.txt").c_str());
    actual = slurp(dir / "out.txt");
    if (rc != 0) outcome = {SnippetOutcome::kFailed, false, "exits with status " + std::to_string(WEXITSTATUS(rc)) + first_lines(slurp(dir / "err.txt"), 8)};
  } else {  // cuda compile
    std::ofstream(dir / "main.cu") << s.code;
    if (std::system(("nvcc -std=c++17 -arch=sm_90 -c -o " + q + "/main.o " + q + "/main.cu > " + q + "/build.log 2>&1").c_str()) != 0) {
      outcome = {SnippetOutcome::kFailed, false, "does not compile with nvcc:" + first_lines(slurp(dir / "build.log"), 8)};
    }
  }
  if (outcome.status == SnippetOutcome::kPassed && s.mode == "run" && !outputs_match(*s.expected_output, actual)) {
    outcome = {SnippetOutcome::kFailed, false, "output differs from the ```output block; it printed:" + first_lines(actual, 12)};
  }
  fs::remove_all(dir, ec);
  if (outcome.status == SnippetOutcome::kPassed) std::ofstream(marker) << "passed\n";
  return outcome;
}

}  // namespace ridge::bank
