// What the grader's files share (not for use outside src/design/grader*.cc): number formats
// for derivations and the readers of a design's fields and a derivation's results. The grader
// is in four files: the serving and training evaluations (grader_serving.cc,
// grader_training.cc), the verdict and its suggestion (grader.cc), and the JSON read and
// written (grader_json.cc).
#pragma once

#include <cmath>
#include <map>
#include <sstream>
#include <string>

#include "calc/registry.h"

namespace ridge::design::grader_detail {

using calc::Given;

inline std::string fmt(double v) {
  std::ostringstream os;
  const double a = std::fabs(v);
  os.setf(std::ios::fixed);
  os.precision(a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : a >= 0.01 ? 3 : 5);
  os << v;
  return os.str();
}

// A count as written: "4", not "4.00".
inline std::string cnt(double v) { return std::to_string(static_cast<long long>(std::llround(v))); }

inline double num(const std::map<std::string, std::string, std::less<>>& m, const std::string& key, double fallback = 0) {
  auto it = m.find(key);
  if (it == m.end()) return fallback;
  try {
    return std::stod(it->second);
  } catch (...) {
    return fallback;
  }
}

inline std::string text(const std::map<std::string, std::string, std::less<>>& m, const std::string& key) {
  auto it = m.find(key);
  return it == m.end() ? std::string() : it->second;
}

inline double result(const calc::Derivation& d, const char* key) {
  const calc::NamedResult* r = d.find(key);
  return r ? r->value : 0;
}

inline std::string first_error(const calc::Errors& e) { return e.empty() ? "" : e.front().to_string(); }

}  // namespace ridge::design::grader_detail
