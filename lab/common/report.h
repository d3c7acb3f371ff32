// Report: the figures a lab `measure` program prints, once as text for a reader and once,
// with --json, as one JSON object for `ridge lab measure --all --json`. Both come from
// the same calls, so the text and the JSON cannot disagree.
//
// Not thread-safe: a measure program fills one Report from its main thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ridge::lab {

class Report {
 public:
  // `id` is the build's id (e.g. "hash-ring"); `title` one line saying what is measured.
  Report(std::string id, std::string title);

  // A heading in the text output; JSON keys are unaffected.
  void section(const std::string& heading);

  // A line of context (the setup, a caveat). Text: printed as is; JSON: appended to "notes".
  void note(const std::string& text);

  // One figure. `key` is a '/'-separated path into the JSON "figures" object
  // ("rates/1000/p99_added_us"); `label` and `unit` are for the text line only.
  // Doubles print with `decimals` digits after the point in text and in full in JSON.
  void add(const std::string& key, double value, const std::string& unit, const std::string& label,
           int decimals = 3);
  void add(const std::string& key, std::int64_t value, const std::string& unit, const std::string& label);
  void add_text(const std::string& key, const std::string& value, const std::string& label);

  std::string text() const;
  nlohmann::ordered_json json() const;

  // Parses the measure program's arguments: none (text) or --json. Prints to stdout.
  // Returns the process exit code: 0, or 2 with a message on stderr for any other argument.
  int print(int argc, char** argv) const;

 private:
  nlohmann::ordered_json& slot(const std::string& key);

  std::string id_;
  std::string title_;
  std::vector<std::string> lines_;
  nlohmann::ordered_json figures_ = nlohmann::ordered_json::object();
  nlohmann::ordered_json notes_ = nlohmann::ordered_json::array();
};

// The CMake build type this program was compiled with ("Release", "Debug", ...). Timing
// figures from anything but an optimized build are not worth quoting; Report says so.
const char* build_type();

}  // namespace ridge::lab
