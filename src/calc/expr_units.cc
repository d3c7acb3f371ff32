// Units of the expr engine as dimensions over bytes, FLOP, seconds, USD, tokens and watts:
// the spellings a literal may carry, the units a result may be named, and how an engine
// result's unit maps to dimensions.
#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "calc/expr_internal.h"

namespace ridge::calc::expr_detail {

std::string dim_name(const Dim& d) {
  static constexpr std::array<const char*, kDims> kNames = {"B", "FLOP", "s", "USD", "token", "W"};
  std::string top, bottom;
  for (int i = 0; i < kDims; ++i) {
    if (d[i] == 0) continue;
    std::string& side = d[i] > 0 ? top : bottom;
    if (!side.empty()) side += "·";
    side += kNames[i];
    int e = std::abs(d[i]);
    if (e > 1) side += '^' + std::to_string(e);
  }
  if (top.empty() && bottom.empty()) return "a plain number";
  if (top.empty()) top = '1';
  return bottom.empty() ? top : top + "/" + bottom;
}

const std::vector<UnitAtom>& unit_atoms() {
  static const std::vector<UnitAtom> kAtoms = [] {
    std::vector<UnitAtom> a = {
        {"B", 1, dim(1, 0, 0, 0, 0, 0)},         {"kB", 1e3, dim(1, 0, 0, 0, 0, 0)},
        {"KB", 1e3, dim(1, 0, 0, 0, 0, 0)},      {"MB", 1e6, dim(1, 0, 0, 0, 0, 0)},
        {"GB", 1e9, dim(1, 0, 0, 0, 0, 0)},      {"TB", 1e12, dim(1, 0, 0, 0, 0, 0)},
        {"PB", 1e15, dim(1, 0, 0, 0, 0, 0)},     {"EB", 1e18, dim(1, 0, 0, 0, 0, 0)},
        {"KiB", 1024.0, dim(1, 0, 0, 0, 0, 0)},  {"MiB", 1048576.0, dim(1, 0, 0, 0, 0, 0)},
        {"GiB", 1073741824.0, dim(1, 0, 0, 0, 0, 0)}, {"TiB", 1099511627776.0, dim(1, 0, 0, 0, 0, 0)},
        {"bit", 0.125, dim(1, 0, 0, 0, 0, 0)},   {"Mbit", 1.25e5, dim(1, 0, 0, 0, 0, 0)},
        {"Gbit", 1.25e8, dim(1, 0, 0, 0, 0, 0)}, {"Tbit", 1.25e11, dim(1, 0, 0, 0, 0, 0)},
        {"Gbps", 1.25e8, dim(1, 0, -1, 0, 0, 0)}, {"Tbps", 1.25e11, dim(1, 0, -1, 0, 0, 0)},
        {"FLOP", 1, dim(0, 1, 0, 0, 0, 0)},      {"GFLOP", 1e9, dim(0, 1, 0, 0, 0, 0)},
        {"TFLOP", 1e12, dim(0, 1, 0, 0, 0, 0)},  {"PFLOP", 1e15, dim(0, 1, 0, 0, 0, 0)},
        {"EFLOP", 1e18, dim(0, 1, 0, 0, 0, 0)},  {"FLOPS", 1, dim(0, 1, -1, 0, 0, 0)},
        {"GFLOPS", 1e9, dim(0, 1, -1, 0, 0, 0)}, {"TFLOPS", 1e12, dim(0, 1, -1, 0, 0, 0)},
        {"PFLOPS", 1e15, dim(0, 1, -1, 0, 0, 0)}, {"EFLOPS", 1e18, dim(0, 1, -1, 0, 0, 0)},
        {"ns", 1e-9, dim(0, 0, 1, 0, 0, 0)},     {"us", 1e-6, dim(0, 0, 1, 0, 0, 0)},
        {"µs", 1e-6, dim(0, 0, 1, 0, 0, 0)},     {"ms", 1e-3, dim(0, 0, 1, 0, 0, 0)},
        {"s", 1, dim(0, 0, 1, 0, 0, 0)},         {"min", 60, dim(0, 0, 1, 0, 0, 0)},
        {"h", 3600, dim(0, 0, 1, 0, 0, 0)},      {"day", 86400, dim(0, 0, 1, 0, 0, 0)},
        {"days", 86400, dim(0, 0, 1, 0, 0, 0)},  {"week", 604800, dim(0, 0, 1, 0, 0, 0)},
        {"weeks", 604800, dim(0, 0, 1, 0, 0, 0)}, {"month", 2629800, dim(0, 0, 1, 0, 0, 0)},
        {"months", 2629800, dim(0, 0, 1, 0, 0, 0)}, {"year", 31557600, dim(0, 0, 1, 0, 0, 0)},
        {"years", 31557600, dim(0, 0, 1, 0, 0, 0)}, {"USD", 1, dim(0, 0, 0, 1, 0, 0)},
        {"W", 1, dim(0, 0, 0, 0, 0, 1)},         {"kW", 1e3, dim(0, 0, 0, 0, 0, 1)},
        {"MW", 1e6, dim(0, 0, 0, 0, 0, 1)},      {"GW", 1e9, dim(0, 0, 0, 0, 0, 1)},
        {"Wh", 3600, dim(0, 0, 1, 0, 0, 1)},     {"kWh", 3.6e6, dim(0, 0, 1, 0, 0, 1)},
        {"MWh", 3.6e9, dim(0, 0, 1, 0, 0, 1)},   {"GWh", 3.6e12, dim(0, 0, 1, 0, 0, 1)},
        {"J", 1, dim(0, 0, 1, 0, 0, 1)},         {"kJ", 1e3, dim(0, 0, 1, 0, 0, 1)},
        {"token", 1, dim(0, 0, 0, 0, 1, 0)},     {"tokens", 1, dim(0, 0, 0, 0, 1, 0)},
    };
    std::sort(a.begin(), a.end(), [](const UnitAtom& x, const UnitAtom& y) { return x.text.size() > y.text.size(); });
    return a;
  }();
  return kAtoms;
}

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

const std::vector<NamedUnit>& named_units() {
  static const std::vector<NamedUnit> kNamed = {
      {"B", Unit::kBytes, dim(1, 0, 0, 0, 0, 0), 1},
      {"FLOP", Unit::kFlop, dim(0, 1, 0, 0, 0, 0), 1},
      {"FLOP/s", Unit::kFlopPerSecond, dim(0, 1, -1, 0, 0, 0), 1},
      {"B/s", Unit::kBytesPerSecond, dim(1, 0, -1, 0, 0, 0), 1},
      {"s", Unit::kSeconds, dim(0, 0, 1, 0, 0, 0), 1},
      {"h", Unit::kHours, dim(0, 0, 1, 0, 0, 0), 1.0 / 3600},
      {"days", Unit::kDays, dim(0, 0, 1, 0, 0, 0), 1.0 / 86400},
      {"USD", Unit::kUsd, dim(0, 0, 0, 1, 0, 0), 1},
      {"USD/h", Unit::kUsdPerHour, dim(0, 0, -1, 1, 0, 0), 3600},
      {"tokens", Unit::kTokens, dim(0, 0, 0, 0, 1, 0), 1},
      {"tokens/s", Unit::kTokensPerSecond, dim(0, 0, -1, 0, 1, 0), 1},
      {"FLOP/B", Unit::kFlopPerByte, dim(-1, 1, 0, 0, 0, 0), 1},
      {"B/token", Unit::kBytesPerToken, dim(1, 0, 0, 0, -1, 0), 1},
      {"W", Unit::kWatts, dim(0, 0, 0, 0, 0, 1), 1},
      {"count", Unit::kCount, kScalar, 1},
      {"/s", Unit::kCount, dim(0, 0, -1, 0, 0, 0), 1},  // a rate (requests/s), shown as a plain number
      {"%", Unit::kRatio, kScalar, 1},
  };
  return kNamed;
}

std::string as_list() {
  std::string out;
  for (const auto& n : named_units()) out += (out.empty() ? "" : ", ") + std::string(n.as);
  return out;
}

Val to_val(const Quantity& q) {
  switch (q.unit) {
    case Unit::kBytes: return {q.value, dim(1, 0, 0, 0, 0, 0)};
    case Unit::kFlop: return {q.value, dim(0, 1, 0, 0, 0, 0)};
    case Unit::kFlopPerSecond: return {q.value, dim(0, 1, -1, 0, 0, 0)};
    case Unit::kBytesPerSecond: return {q.value, dim(1, 0, -1, 0, 0, 0)};
    case Unit::kSeconds: return {q.value, dim(0, 0, 1, 0, 0, 0)};
    case Unit::kHours: return {q.value * 3600, dim(0, 0, 1, 0, 0, 0)};
    case Unit::kDays: return {q.value * 86400, dim(0, 0, 1, 0, 0, 0)};
    case Unit::kUsd: return {q.value, dim(0, 0, 0, 1, 0, 0)};
    case Unit::kUsdPerHour: return {q.value / 3600, dim(0, 0, -1, 1, 0, 0)};
    case Unit::kTokens: return {q.value, dim(0, 0, 0, 0, 1, 0)};
    case Unit::kTokensPerSecond: return {q.value, dim(0, 0, -1, 0, 1, 0)};
    case Unit::kFlopPerByte: return {q.value, dim(-1, 1, 0, 0, 0, 0)};
    case Unit::kBytesPerToken: return {q.value, dim(1, 0, 0, 0, -1, 0)};
    case Unit::kWatts: return {q.value, dim(0, 0, 0, 0, 0, 1)};
    case Unit::kCount:
    case Unit::kRatio:
    case Unit::kBool:
    case Unit::kNone: return {q.value, kScalar};
  }
  return {q.value, kScalar};
}

}  // namespace ridge::calc::expr_detail
