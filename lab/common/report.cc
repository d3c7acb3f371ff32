#include "common/report.h"

#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>

#ifndef RIDGE_LAB_BUILD_TYPE
#define RIDGE_LAB_BUILD_TYPE "unknown"
#endif

namespace ridge::lab {

namespace {

// 1234567 -> "1,234,567": figures are read by people first.
std::string group_thousands(std::int64_t v) {
  std::string digits = std::to_string(v < 0 ? -v : v);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return v < 0 ? "-" + out : out;
}

std::string line(const std::string& label, const std::string& value, const std::string& unit) {
  return "  " + label + ": " + value + (unit.empty() ? "" : " " + unit);
}

}  // namespace

const char* build_type() { return RIDGE_LAB_BUILD_TYPE; }

Report::Report(std::string id, std::string title) : id_(std::move(id)), title_(std::move(title)) {}

void Report::section(const std::string& heading) { lines_.push_back("\n" + heading); }

void Report::note(const std::string& text) {
  lines_.push_back("  " + text);
  notes_.push_back(text);
}

nlohmann::ordered_json& Report::slot(const std::string& key) {
  nlohmann::ordered_json* node = &figures_;
  std::size_t start = 0;
  while (true) {
    const std::size_t slash = key.find('/', start);
    const std::string part = key.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
    node = &(*node)[part];
    if (slash == std::string::npos) return *node;
    start = slash + 1;
  }
}

void Report::add(const std::string& key, double value, const std::string& unit, const std::string& label,
                 int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  const bool whole = decimals == 0 && std::abs(value) < 9e18;
  lines_.push_back(line(label, whole ? group_thousands(std::llround(value)) : std::string(buf), unit));
  slot(key) = value;
}

void Report::add(const std::string& key, std::int64_t value, const std::string& unit, const std::string& label) {
  lines_.push_back(line(label, group_thousands(value), unit));
  slot(key) = value;
}

void Report::add_text(const std::string& key, const std::string& value, const std::string& label) {
  lines_.push_back(line(label, value, ""));
  slot(key) = value;
}

std::string Report::text() const {
  std::ostringstream out;
  out << id_ << ": " << title_ << "\n";
  out << "  build type: " << build_type() << "\n";
  for (const auto& l : lines_) out << l << "\n";
  return out.str();
}

nlohmann::ordered_json Report::json() const {
  nlohmann::ordered_json j;
  j["id"] = id_;
  j["title"] = title_;
  j["build_type"] = build_type();
  j["figures"] = figures_;
  j["notes"] = notes_;
  return j;
}

int Report::print(int argc, char** argv) const {
  bool as_json = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--json") {
      as_json = true;
    } else {
      std::cerr << argv[0] << ": unknown argument '" << arg << "'; accepted: --json\n";
      return 2;
    }
  }
  if (as_json) {
    std::cout << json().dump() << "\n";
  } else {
    std::cout << text();
  }
  return 0;
}

}  // namespace ridge::lab
