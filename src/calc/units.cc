#include "calc/units.h"

#include <array>
#include <cmath>
#include <cstdio>
#include <string>

namespace ridge::calc {
namespace {

struct Prefix {
  double scale;
  const char* symbol;
};

constexpr std::array<Prefix, 6> kDecimal = {{{1e18, "E"}, {1e15, "P"}, {1e12, "T"},
                                            {1e9, "G"}, {1e6, "M"}, {1e3, "k"}}};
// Counts and token totals use the convention of the field: 70B parameters, 15T tokens.
constexpr std::array<Prefix, 4> kCountPrefix = {{{1e12, "T"}, {1e9, "B"}, {1e6, "M"}, {1e3, "k"}}};

std::string with_prefix(double value, const char* base, int significant,
                        const Prefix* begin, const Prefix* end, double exact_below) {
  if (std::fabs(value) < exact_below && value == std::floor(value)) {
    return group_thousands(value) + " " + base;
  }
  for (const Prefix* p = begin; p != end; ++p) {
    if (std::fabs(value) >= p->scale) {
      return format_significant(value / p->scale, significant) + " " + p->symbol + base;
    }
  }
  return format_significant(value, significant) + " " + base;
}

std::string decimal(double value, const char* base, int significant, double exact_below = 1e3) {
  return with_prefix(value, base, significant, kDecimal.data(), kDecimal.data() + kDecimal.size(),
                     exact_below);
}

std::string count_like(double value, const char* suffix, int significant) {
  std::string tail = suffix[0] ? std::string(" ") + suffix : std::string();
  if (std::fabs(value) < 1e9 && value == std::floor(value)) return group_thousands(value) + tail;
  for (const auto& p : kCountPrefix) {
    if (std::fabs(value) >= p.scale) {
      return format_significant(value / p.scale, significant) + p.symbol + tail;
    }
  }
  return format_significant(value, significant) + tail;
}

std::string seconds(double s, int significant) {
  double a = std::fabs(s);
  if (a == 0) return "0 s";
  if (a < 1e-6) return format_significant(s * 1e9, significant) + " ns";
  if (a < 1e-3) return format_significant(s * 1e6, significant) + " us";
  if (a < 1) return format_significant(s * 1e3, significant) + " ms";
  if (a < 120) return format_significant(s, significant) + " s";
  if (a < 7200) return format_significant(s / 60, significant) + " min";
  if (a < 172800) return format_significant(s / 3600, significant) + " h";
  return format_significant(s / 86400, significant) + " days";
}

// '$' as a char, not "$": GCC 12 at -O3 reports a false -Wrestrict on "literal" + std::string&&
// (GCC PR 105651, fixed in 13); a char prefix takes another path and prints none.
std::string usd(double v, int significant) {
  double a = std::fabs(v);
  if (a >= 1e9) return '$' + format_significant(v / 1e9, significant) + "B";
  if (a >= 1e6) return '$' + format_significant(v / 1e6, significant) + "M";
  if (a >= 1000) return '$' + group_thousands(std::round(v));
  if (a >= 1) return '$' + format_fixed(v, 2);
  return '$' + format_significant(v, significant);
}

struct Target {
  const char* name;
  Unit unit;
  double scale;
  const char* suffix;
};

// Explicit targets for references in content: {{id.key:GB:1}}.
constexpr std::array<Target, 47> kTargets = {{
    {"B", Unit::kBytes, 1, " B"},         {"kB", Unit::kBytes, 1e3, " kB"},
    {"KB", Unit::kBytes, 1e3, " KB"},     {"MB", Unit::kBytes, 1e6, " MB"},
    {"GB", Unit::kBytes, 1e9, " GB"},     {"TB", Unit::kBytes, 1e12, " TB"},
    {"PB", Unit::kBytes, 1e15, " PB"},    {"KiB", Unit::kBytes, 1024.0, " KiB"},
    {"MiB", Unit::kBytes, 1048576.0, " MiB"}, {"GiB", Unit::kBytes, 1073741824.0, " GiB"},
    {"TiB", Unit::kBytes, 1099511627776.0, " TiB"},
    {"GB/s", Unit::kBytesPerSecond, 1e9, " GB/s"}, {"TB/s", Unit::kBytesPerSecond, 1e12, " TB/s"},
    {"TFLOPS", Unit::kFlopPerSecond, 1e12, " TFLOPS"},
    {"PFLOPS", Unit::kFlopPerSecond, 1e15, " PFLOPS"},
    {"GFLOPS", Unit::kFlopPerSecond, 1e9, " GFLOPS"},
    {"us", Unit::kSeconds, 1e-6, " us"},  {"ms", Unit::kSeconds, 1e-3, " ms"},
    {"s", Unit::kSeconds, 1, " s"},       {"min", Unit::kSeconds, 60, " min"},
    {"h", Unit::kSeconds, 3600, " h"},    {"days", Unit::kSeconds, 86400, " days"},
    {"%", Unit::kRatio, 0.01, "%"},       {"M", Unit::kCount, 1e6, "M"},
    {"B", Unit::kCount, 1e9, "B"},        {"T", Unit::kCount, 1e12, "T"},
    {"M", Unit::kTokens, 1e6, "M"},       {"B", Unit::kTokens, 1e9, "B"},
    {"T", Unit::kTokens, 1e12, "T"},      {"kB", Unit::kBytesPerToken, 1e3, " kB"},
    {"KB", Unit::kBytesPerToken, 1e3, " KB"}, {"MB", Unit::kBytesPerToken, 1e6, " MB"},
    {"B", Unit::kBytesPerToken, 1, " B"},
    {"min", Unit::kHours, 1.0 / 60, " min"}, {"h", Unit::kHours, 1, " h"}, {"days", Unit::kHours, 24, " days"},
    {"days", Unit::kDays, 1, " days"},    {"h", Unit::kDays, 1.0 / 24, " h"},
    {"%", Unit::kNone, 0.01, "%"},        {"%", Unit::kCount, 0.01, "%"},        {"kW", Unit::kWatts, 1e3, " kW"},
    {"MW", Unit::kWatts, 1e6, " MW"},     {"W", Unit::kWatts, 1, " W"},
    {"MB/s", Unit::kBytesPerSecond, 1e6, " MB/s"}, {"kB/s", Unit::kBytesPerSecond, 1e3, " kB/s"},
    {"k", Unit::kTokensPerSecond, 1e3, "k tokens/s"}, {"M", Unit::kTokensPerSecond, 1e6, "M tokens/s"},
}};

}  // namespace

std::string_view unit_symbol(Unit unit) {
  switch (unit) {
    case Unit::kBytes: return "B";
    case Unit::kFlop: return "FLOP";
    case Unit::kFlopPerSecond: return "FLOP/s";
    case Unit::kBytesPerSecond: return "B/s";
    case Unit::kSeconds: return "s";
    case Unit::kHours: return "h";
    case Unit::kDays: return "day";
    case Unit::kUsd: return "USD";
    case Unit::kUsdPerHour: return "USD/h";
    case Unit::kTokens: return "tokens";
    case Unit::kTokensPerSecond: return "tokens/s";
    case Unit::kCount: return "count";
    case Unit::kRatio: return "ratio";
    case Unit::kFlopPerByte: return "FLOP/B";
    case Unit::kBytesPerToken: return "B/token";
    case Unit::kWatts: return "W";
    case Unit::kBool: return "bool";
    case Unit::kNone: return "";
  }
  return "";
}

std::string count_of(long double count, std::string_view singular, std::string_view plural) {
  std::string noun(count == 1 ? singular : plural.empty() ? singular : plural);
  if (count != 1 && plural.empty()) noun += "s";
  return group_thousands(count) + " " + noun;
}

std::string group_thousands(long double value) {
  bool negative = value < 0;
  long double rounded = std::fabs(std::round(value));
  char digits[64];
  std::snprintf(digits, sizeof digits, "%.0Lf", rounded);
  std::string in(digits), out;
  int n = static_cast<int>(in.size());
  for (int i = 0; i < n; ++i) {
    out += in[i];
    if ((n - i - 1) % 3 == 0 && i != n - 1) out += ',';
  }
  return negative ? "-" + out : out;
}

std::string format_significant(double value, int significant, bool force_sci) {
  if (value == 0) return "0";
  if (!std::isfinite(value)) return std::isnan(value) ? "NaN" : (value > 0 ? "inf" : "-inf");
  int magnitude = static_cast<int>(std::floor(std::log10(std::fabs(value))));
  int decimals = std::max(0, significant - 1 - magnitude);
  if (force_sci || magnitude >= 15 || magnitude < -6) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*e", std::max(0, significant - 1), value);
    std::string s(buf);
    // 3.80e+25 -> 3.8e25
    auto e = s.find('e');
    std::string mant = s.substr(0, e), exp = s.substr(e + 1);
    if (mant.find('.') != std::string::npos) {
      while (mant.back() == '0') mant.pop_back();
      if (mant.back() == '.') mant.pop_back();
    }
    int ev = std::stoi(exp);
    return mant + "e" + std::to_string(ev);
  }
  if (magnitude >= 3) return group_thousands(std::round(value));
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  std::string s(buf);
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

std::string format_fixed(double value, int decimals) {
  if (!std::isfinite(value)) return format_significant(value, 3);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, std::fabs(value));
  std::string s(buf);
  auto dot = s.find('.');
  std::string whole = s.substr(0, dot);
  std::string frac = dot == std::string::npos ? "" : s.substr(dot);
  std::string grouped = group_thousands(std::stold(whole));
  return (value < 0 && std::stod(s) != 0 ? "-" : "") + grouped + frac;
}

std::string format_quantity(double value, Unit unit, int significant) {
  switch (unit) {
    case Unit::kBytes: return decimal(value, "B", significant, 1e6);
    case Unit::kBytesPerToken: return decimal(value, "B", significant, 1e6) + "/token";
    case Unit::kFlop: return format_significant(value, significant) + " FLOP";
    case Unit::kFlopPerSecond: return decimal(value, "FLOP/s", significant);
    case Unit::kBytesPerSecond: return decimal(value, "B/s", significant);
    case Unit::kSeconds: return seconds(value, significant);
    case Unit::kHours:
      return (std::fabs(value) >= 1000 ? group_thousands(std::round(value))
                                       : format_significant(value, significant)) + " h";
    case Unit::kDays: return format_significant(value, significant) + " days";
    case Unit::kUsd: return usd(value, significant);
    case Unit::kUsdPerHour: return usd(value, significant) + "/h";
    case Unit::kTokens: return count_like(value, "tokens", significant);
    case Unit::kTokensPerSecond: return format_significant(value, significant) + " tokens/s";
    case Unit::kCount: return count_like(value, "", significant);
    case Unit::kRatio: return format_significant(value * 100, significant) + "%";
    case Unit::kFlopPerByte: return format_significant(value, significant) + " FLOP/B";
    case Unit::kWatts: return decimal(value, "W", significant);
    case Unit::kBool: return value != 0 ? "yes" : "no";
    case Unit::kNone: return format_significant(value, significant);
  }
  return format_significant(value, significant);
}

std::optional<std::string> format_as(double value, Unit unit, std::string_view target,
                                     int decimals) {
  if (target.empty()) return format_quantity(value, unit, decimals > 0 ? decimals : 3);
  if (target == "raw") return format_significant(value, 15);
  if (target == "int") return group_thousands(value);
  if (target == "sci") return format_significant(value == 0 ? 0 : value, (decimals < 0 ? 2 : decimals) + 1, /*force_sci=*/true);
  if (target == "fixed") return format_fixed(value, decimals < 0 ? 0 : decimals);
  for (const auto& t : kTargets) {
    if (target == t.name && t.unit == unit) {
      double scaled = value / t.scale;
      return format_fixed(scaled, decimals < 0 ? 0 : decimals) + t.suffix;
    }
  }
  return std::nullopt;
}

}  // namespace ridge::calc
