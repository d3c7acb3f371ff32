// Runs the snippets of a question: C++ with g++, Python with python3, CUDA compiled with
// nvcc when it is installed. Results are cached by a hash of the snippet, its expected
// output and the toolchain, so a second check of an unchanged bank runs nothing.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "bank/question.h"

namespace ridge::bank {

struct SnippetOutcome {
  enum Status { kPassed, kFailed, kSkipped } status = kPassed;
  bool cached = false;
  std::string message;  // why it failed or was skipped
};

class SnippetRunner {
 public:
  // `cache_dir` is created when missing.
  explicit SnippetRunner(std::filesystem::path cache_dir);

  SnippetOutcome run(const Snippet& snippet);

 private:
  std::filesystem::path cache_dir_;
  bool have_nvcc_;
  std::string toolchain_;  // part of the cache key
};

// Exact comparison after trimming trailing spaces on each line and trailing blank lines.
bool outputs_match(std::string_view expected, std::string_view actual);

}  // namespace ridge::bank
