// What the calculator fuzz targets read: the first line names a calculator, each further line
// is name=value (lines without '=' are skipped). Shared by fuzz_params and fuzz_calc_time.
#pragma once

#include <sstream>
#include <string>

#include "calc/registry.h"

namespace ridge::fuzz {

struct CalcInput {
  std::string calculator;
  ridge::calc::Given given;
};

inline CalcInput read_calc_input(const std::string& text) {
  CalcInput in;
  std::istringstream lines(text);
  std::string line;
  std::getline(lines, in.calculator);
  while (std::getline(lines, line)) {
    auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    in.given[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return in;
}

}  // namespace ridge::fuzz
