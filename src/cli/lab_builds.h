// The reference builds of `ridge lab`: what each one is (its contract headers, the sources
// --impl replaces, its tests), where CMake put its binaries and the source tree its headers,
// and how a command line runs one of them.
#pragma once

#include <filesystem>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace ridge::cli::labs {

// One reference build. The file lists mirror lab/CMakeLists.txt: `headers` are the
// contract, `sources` the implementation that --impl replaces, `tests` the test sources.
struct LabBuild {
  std::string_view id;
  std::string_view summary;
  std::vector<std::string_view> headers;
  std::vector<std::string_view> sources;
  std::vector<std::string_view> tests;
};

// Every build, in the order `ridge lab list` prints them (mirrors lab/CMakeLists.txt).
const std::vector<LabBuild>& lab_builds();
// "rate-limiter, batcher, ..." for an error's accepted list.
std::string accepted_ids();
// nullptr when no build has that id.
const LabBuild* find_build(std::string_view id);

// A command line with every argument quoted for /bin/sh.
std::string shell_quote(const std::string& s);
std::string command_line(const std::vector<std::string>& argv);
// Runs argv through the shell. With `stream` set, output goes there as it arrives;
// `captured` receives it too. Returns the exit status (127 if it could not start).
int run_process(const std::vector<std::string>& argv, bool merge_stderr, std::ostream* stream, std::string* captured);

// Where CMake put the built binaries: ${CMAKE_BINARY_DIR}/lab/<id>/, next to this
// executable (${CMAKE_BINARY_DIR}/ridge). RIDGE_LAB_BIN overrides the lab/ directory.
std::filesystem::path lab_bin_dir();
// The source tree's lab/ (headers and tests). RIDGE_SOURCE_DIR in the environment
// overrides the tree this binary was built from.
std::filesystem::path lab_source_dir();
// lab/<id>/<id>-<kind> under lab_bin_dir(): kind "test", "measure" or "proto".
std::filesystem::path built_binary(const LabBuild& b, std::string_view kind);
// lab/<id>/cases.jsonl: present for the builds that speak the language-neutral protocol.
std::filesystem::path cases_file(const LabBuild& b);
bool has_cases(const LabBuild& b);
// The ids of the builds that have cases, for an error's accepted list.
std::string protocol_ids();

}  // namespace ridge::cli::labs
