// Units of the quantities the engine works with, and how each is written for people.
// Values are always held in base units (B, FLOP, FLOP/s, B/s, s, USD, count; ratios as
// fractions). Formatting picks a decimal prefix (GB = 1e9 B) unless binary is asked for.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ridge::calc {

enum class Unit {
  kBytes,
  kFlop,
  kFlopPerSecond,
  kBytesPerSecond,
  kSeconds,
  kHours,
  kDays,
  kUsd,
  kUsdPerHour,
  kTokens,
  kTokensPerSecond,
  kCount,
  kRatio,     // a fraction: 0.4 is written 40%
  kFlopPerByte,
  kBytesPerToken,
  kWatts,
  kBool,      // 0 or 1
  kNone,
};

// The unit's symbol as it appears in JSON ("B", "FLOP/s", "s", "ratio").
std::string_view unit_symbol(Unit unit);

// Formats a value for a person: "141 GB", "327,680 B", "2.5 days", "40%", "$1.23".
// `significant` is the number of significant digits for prefixed values.
std::string format_quantity(double value, Unit unit, int significant = 3);

// Formats with an explicit target unit and decimals, as asked by a reference such as
// {{kv.kv_bytes_per_sequence:GB:1}}. `target` is a symbol like "GB", "GiB", "TB/s",
// "TFLOPS", "ms", "h", "%", "int" (exact integer with separators) or "raw".
// Returns nullopt when the target does not apply to the unit (GB for a time).
std::optional<std::string> format_as(double value, Unit unit, std::string_view target,
                                     int decimals);

// Thousands separators on an integer: 327680 -> "327,680".
std::string group_thousands(long double value);

// A count and its noun, agreeing: (1, "layer") -> "1 layer", (36, "layer") -> "36 layers";
// `plural` when the noun does not take an s ("1 sequence"/"2 sequences" take one; pass
// "kinds of layer" for "kind of layer").
std::string count_of(long double count, std::string_view singular, std::string_view plural = {});

// A number with up to `significant` significant digits, no trailing zeros: 10.7, 141, 0.295.
// Magnitudes from 1e15 (or with force_sci) are written 3.8e25.
std::string format_significant(double value, int significant, bool force_sci = false);

// A number with fixed decimals and thousands separators: (1234.5, 1) -> "1,234.5".
std::string format_fixed(double value, int decimals);

}  // namespace ridge::calc
