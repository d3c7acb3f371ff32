#include "calc/params.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace ridge::calc {
namespace {

struct Suffix {
  const char* text;
  double scale;
};

constexpr Suffix kCountSuffixes[] = {{"", 1},       {"k", 1e3},  {"K", 1e3},   {"M", 1e6},
                                     {"B", 1e9},    {"G", 1e9},  {"T", 1e12},  {"Ki", 1024.0},
                                     {"Mi", 1048576.0}, {"Gi", 1073741824.0}};
constexpr Suffix kByteSuffixes[] = {
    {"", 1},     {"B", 1},      {"k", 1e3},   {"kB", 1e3},  {"K", 1e3},   {"KB", 1e3},
    {"M", 1e6},  {"MB", 1e6},   {"G", 1e9},   {"GB", 1e9},  {"T", 1e12},  {"TB", 1e12},
    {"P", 1e15}, {"PB", 1e15},  {"Ki", 1024.0}, {"KiB", 1024.0}, {"Mi", 1048576.0},
    {"MiB", 1048576.0}, {"Gi", 1073741824.0}, {"GiB", 1073741824.0},
    {"Ti", 1099511627776.0}, {"TiB", 1099511627776.0}};
constexpr Suffix kSiSuffixes[] = {{"", 1},    {"k", 1e3},   {"M", 1e6},   {"G", 1e9},
                                  {"T", 1e12}, {"P", 1e15}, {"E", 1e18}};
constexpr Suffix kTimeSuffixes[] = {{"", 1},     {"s", 1},      {"ms", 1e-3}, {"us", 1e-6},
                                    {"min", 60}, {"h", 3600},   {"d", 86400}, {"days", 86400}};
constexpr Suffix kRatioSuffixes[] = {{"", 1}, {"%", 0.01}};
constexpr Suffix kHourSuffixes[] = {{"", 1}, {"h", 1}, {"s", 1.0 / 3600}, {"min", 1.0 / 60}, {"d", 24}, {"days", 24}};
constexpr Suffix kDaySuffixes[] = {{"", 1}, {"d", 1}, {"days", 1}, {"h", 1.0 / 24}, {"s", 1.0 / 86400}};
constexpr Suffix kPlainSuffixes[] = {{"", 1}, {"k", 1e3}, {"M", 1e6}};

template <size_t N>
std::optional<double> lookup(const Suffix (&table)[N], std::string_view s) {
  for (const auto& x : table) {
    if (s == x.text) return x.scale;
  }
  return std::nullopt;
}

template <size_t N>
std::string list(const Suffix (&table)[N]) {
  std::string out;
  for (const auto& x : table) {
    if (x.text[0] == 0) continue;
    if (!out.empty()) out += ", ";
    out += x.text;
  }
  return out;
}

std::string strip_unit_word(std::string_view s, std::string_view word) {
  if (s.size() >= word.size() && s.substr(s.size() - word.size()) == word) {
    s.remove_suffix(word.size());
  }
  return std::string(s);
}

// The scale a suffix stands for in `unit`, or nullopt with `accepted` filled in.
std::optional<double> suffix_scale(Unit unit, bool count_type, std::string_view s,
                                   std::string& accepted) {
  // The unit's word as the engine prints it ("300 tokens", "12k tokens/s"): an answer copied in
  // that form reads as the number (Work it refused "300 tokens" as an unknown suffix).
  std::string without_word;
  if (unit == Unit::kTokens) {
    without_word = strip_unit_word(strip_unit_word(s, "tokens"), "token");
    s = without_word;
  } else if (unit == Unit::kTokensPerSecond) {
    without_word = strip_unit_word(strip_unit_word(s, "tokens/s"), "tok/s");
    s = without_word;
  }
  const std::string word = unit == Unit::kTokens ? " (the word tokens may follow)"
                           : unit == Unit::kTokensPerSecond ? " (tokens/s may follow)" : "";
  if (count_type) {
    accepted = "a whole number, optionally with k (1e3), M, B or G (1e9), T, Ki (1024), Mi, Gi" + word;
    return lookup(kCountSuffixes, s);
  }
  if (unit == Unit::kTokens || unit == Unit::kTokensPerSecond) {
    accepted = "a number, optionally with k (1e3), M, B (1e9) or T" + word;
    return lookup(kCountSuffixes, s);
  }
  switch (unit) {
    case Unit::kBytes:
    case Unit::kBytesPerToken:
      accepted = "bytes, optionally with " + list(kByteSuffixes);
      return lookup(kByteSuffixes, s);
    case Unit::kBytesPerSecond: {
      accepted = "bytes per second, such as 3.35e12, 3.35TB/s or 400GB/s";
      return lookup(kByteSuffixes, strip_unit_word(s, "/s"));
    }
    case Unit::kFlopPerSecond: {
      accepted = "FLOP/s, such as 989e12, 989T or 989TFLOPS";
      std::string t = strip_unit_word(strip_unit_word(s, "FLOP/s"), "FLOPS");
      return lookup(kSiSuffixes, t);
    }
    case Unit::kFlop: {
      accepted = "FLOP, such as 3.8e25";
      return lookup(kSiSuffixes, strip_unit_word(s, "FLOP"));
    }
    case Unit::kSeconds:
      accepted = "seconds, optionally with " + list(kTimeSuffixes);
      return lookup(kTimeSuffixes, s);
    case Unit::kHours:
      accepted = "hours";
      return lookup(kHourSuffixes, s);
    case Unit::kDays:
      accepted = "days";
      return lookup(kDaySuffixes, s);
    case Unit::kWatts:
      accepted = "watts, such as 700, 10.2kW or 20MW";
      return lookup(kSiSuffixes, strip_unit_word(s, "W"));
    case Unit::kRatio:
      accepted = "a fraction (0.4) or a percentage (40%)";
      return lookup(kRatioSuffixes, s);
    default:
      accepted = "a number";
      return lookup(kPlainSuffixes, s);
  }
}

}  // namespace

std::string type_name(ParamType type) {
  switch (type) {
    case ParamType::kNumber: return "number";
    case ParamType::kCount: return "count";
    case ParamType::kChoice: return "choice";
    case ParamType::kModel: return "model";
    case ParamType::kConfig: return "path";
    case ParamType::kGpu: return "gpu";
    case ParamType::kDtype: return "dtype";
    case ParamType::kText: return "text";
  }
  return "?";
}

std::string normalize_param_name(std::string_view name) {
  while (!name.empty() && name.front() == '-') name.remove_prefix(1);
  std::string out(name);
  std::replace(out.begin(), out.end(), '_', '-');
  return out;
}

std::string accepted_range(const ParamSpec& spec, const Catalog& catalog) {
  switch (spec.type) {
    case ParamType::kChoice: {
      std::string out;
      for (const auto& c : spec.choices) out += (out.empty() ? "" : ", ") + c;
      return out;
    }
    case ParamType::kModel: return catalog.model_list();
    case ParamType::kGpu: return catalog.hardware.id_list();
    case ParamType::kDtype: return dtype_list();
    case ParamType::kConfig: return "a path to a config.json";
    case ParamType::kText: return "text";
    case ParamType::kNumber:
    case ParamType::kCount: break;
  }
  auto show = [&](double v) {
    return spec.unit == Unit::kRatio ? format_significant(v, 6)
                                     : format_quantity(v, spec.unit == Unit::kNone ? Unit::kNone : spec.unit, 6);
  };
  std::string lo = spec.min_exclusive ? "greater than " + show(spec.min) : "from " + show(spec.min);
  if (spec.max >= 1e30) return spec.min_exclusive ? lo : "at least " + show(spec.min);
  return lo + (spec.min_exclusive ? " and at most " : " to ") + show(spec.max);
}

Result<double> parse_number(const ParamSpec& spec, std::string_view text) {
  std::string cleaned;
  for (char c : text) {
    if (c == ',' || c == '_' || c == ' ' || (c == '$' && cleaned.empty())) continue;
    cleaned += c;
  }
  const bool count_type = spec.type == ParamType::kCount;
  std::string accepted;
  suffix_scale(spec.unit, count_type, "", accepted);
  if (cleaned.empty()) {
    return FieldError{spec.name, std::string(text), "is empty", accepted};
  }
  double value = 0;
  const char* begin = cleaned.data();
  const char* end = begin + cleaned.size();
  auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec == std::errc::result_out_of_range) {
    return FieldError{spec.name, std::string(text), "is too large a number", accepted};
  }
  if (ec != std::errc() || ptr == begin) {
    return FieldError{spec.name, std::string(text), "is not a number", accepted};
  }
  std::string_view suffix(ptr, static_cast<size_t>(end - ptr));
  auto scale = suffix_scale(spec.unit, count_type, suffix, accepted);
  if (!scale) {
    return FieldError{spec.name, std::string(text),
                      "has an unknown unit suffix '" + std::string(suffix) + "'", accepted};
  }
  value *= *scale;
  if (!std::isfinite(value)) {
    return FieldError{spec.name, std::string(text), "is not a finite number", accepted};
  }
  if (count_type) {
    double rounded = std::round(value);
    if (std::fabs(value - rounded) > 1e-9 * std::max(1.0, std::fabs(value))) {
      return FieldError{spec.name, std::string(text), "is not a whole number", accepted};
    }
    value = rounded;
  }
  return value;
}

bool Inputs::has(std::string_view name) const {
  return numbers_.count(name) || dtypes_.count(name) || texts_.count(name);
}

double Inputs::number(std::string_view name) const {
  auto it = numbers_.find(name);
  return it == numbers_.end() ? 0.0 : it->second;
}

Dtype Inputs::dtype(std::string_view name) const {
  auto it = dtypes_.find(name);
  return it == dtypes_.end() ? Dtype::kBf16 : it->second;
}

const std::string& Inputs::text(std::string_view name) const {
  static const std::string kEmpty;
  auto it = texts_.find(name);
  return it == texts_.end() ? kEmpty : it->second;
}

Result<Inputs> parse_inputs(const std::vector<ParamSpec>& specs,
                            const std::map<std::string, std::string, std::less<>>& given,
                            const Catalog& catalog) {
  Errors errors;
  Inputs in;
  std::map<std::string, std::string, std::less<>> values;
  // Unknown names are reported with the names and values clipped, and at most a few of
  // them, so a request full of junk gets a short answer rather than one that grows with it.
  constexpr size_t kMaxUnknown = 5;
  auto clip = [](const std::string& t) { return t.size() <= 80 ? t : t.substr(0, 77) + "..."; };
  size_t unknown = 0;
  for (const auto& [name, value] : given) {
    std::string key = normalize_param_name(name);
    auto spec = std::find_if(specs.begin(), specs.end(), [&](const ParamSpec& s) { return s.name == key; });
    if (spec == specs.end()) {
      if (++unknown <= kMaxUnknown) {
        std::string known;
        for (const auto& s : specs) known += (known.empty() ? "" : ", ") + s.name;
        errors.push_back({clip(key), clip(value), "is not a parameter of this calculator", known});
      }
      continue;
    }
    values[key] = value;
  }
  if (unknown > kMaxUnknown) {
    errors.push_back({"", "", "and " + std::to_string(unknown - kMaxUnknown) + " more unknown parameters", ""});
  }
  for (const auto& spec : specs) {
    auto it = values.find(spec.name);
    std::string value;
    if (it != values.end()) {
      value = it->second;
    } else if (!spec.default_value.empty()) {
      value = spec.default_value;
    } else {
      if (spec.required) {
        errors.push_back({spec.name, "", "is required", accepted_range(spec, catalog)});
      }
      continue;
    }
    in.raw_[spec.name] = value;
    switch (spec.type) {
      case ParamType::kNumber:
      case ParamType::kCount: {
        auto parsed = parse_number(spec, value);
        if (!parsed) {
          errors.insert(errors.end(), parsed.errors().begin(), parsed.errors().end());
          break;
        }
        double v = *parsed;
        bool low = spec.min_exclusive ? v <= spec.min : v < spec.min;
        if (low || v > spec.max) {
          errors.push_back({spec.name, value, "is out of range", accepted_range(spec, catalog)});
          break;
        }
        in.numbers_[spec.name] = v;
        break;
      }
      case ParamType::kText:
        if (value.size() > 200) {
          errors.push_back({spec.name, value.substr(0, 40) + "...", "is longer than 200 characters", "a short text"});
        } else {
          in.texts_[spec.name] = value;
        }
        break;
      case ParamType::kChoice:
        if (std::find(spec.choices.begin(), spec.choices.end(), value) == spec.choices.end()) {
          errors.push_back({spec.name, value, "is not one of the choices", accepted_range(spec, catalog)});
        } else {
          in.texts_[spec.name] = value;
        }
        break;
      case ParamType::kDtype:
        if (auto d = parse_dtype(value)) {
          in.dtypes_[spec.name] = *d;
        } else {
          errors.push_back({spec.name, value, "is not a known dtype", dtype_list()});
        }
        break;
      case ParamType::kGpu:
        if (const Accelerator* a = catalog.hardware.find(value)) {
          in.gpu_ = a;
          in.texts_[spec.name] = value;
        } else {
          errors.push_back({spec.name, value, "is not a known GPU", catalog.hardware.id_list()});
        }
        break;
      case ParamType::kModel:
        if (const ModelArch* m = catalog.find_model(value)) {
          in.model_ = m;
          in.texts_[spec.name] = value;
        } else {
          errors.push_back({spec.name, value, "is not a known model (or use --config PATH)",
                            catalog.model_list()});
        }
        break;
      case ParamType::kConfig: {
        if (!catalog.read_config) {
          errors.push_back({spec.name, value, "cannot be read here: this face reads no files",
                            "--model with a catalog id"});
          break;
        }
        auto text = catalog.read_config(value);
        if (!text) {
          errors.insert(errors.end(), text.errors().begin(), text.errors().end());
          break;
        }
        auto arch = parse_model_config(*text, value);
        if (!arch) {
          for (auto e : arch.errors()) {
            e.message = "in " + value + ": " + e.field + (e.value.empty() ? "" : " = " + e.value) + " " + e.message;
            e.field = spec.name;
            e.value = value;
            errors.push_back(std::move(e));
          }
          break;
        }
        in.config_ = std::move(arch).value();
        in.texts_[spec.name] = value;
        break;
      }
    }
  }
  if (!errors.empty()) {
    for (auto& e : errors) e.value = clip(e.value);  // quote at most 80 characters of a value
    return errors;
  }
  return in;
}

}  // namespace ridge::calc
