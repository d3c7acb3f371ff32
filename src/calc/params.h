// Parameter specs and their parsing. A calculator declares its parameters once; the CLI
// flags, the API query parameters, the web forms and the drills are generated from them.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "calc/catalog.h"
#include "calc/dtype.h"
#include "calc/result.h"
#include "calc/units.h"

namespace ridge::calc {

enum class ParamType {
  kNumber,   // a real value in `unit`; accepts prefixes such as 80GB, 3.35TB/s, 40%
  kCount,    // a whole count; accepts 70e9, 70B, 15T, 32k (k = 1,000), 32Ki (= 32,768)
  kChoice,   // one of `choices`
  kModel,    // an id from data/models
  kConfig,   // a path to a config.json
  kGpu,      // an id from data/hardware.toml
  kDtype,    // fp32, bf16, fp8, ...
  kText,     // free text the calculator validates itself (a figure's path)
};

struct ParamSpec {
  std::string name;  // with dashes, as on the command line: "weights-dtype"
  ParamType type = ParamType::kNumber;
  Unit unit = Unit::kNone;
  std::string default_value;  // empty: no default
  bool required = false;      // required on its own (one-of groups are checked by the calculator)
  double min = 0;             // accepted range, inclusive unless min_exclusive
  double max = 1e30;
  bool min_exclusive = false;
  std::vector<std::string> choices;
  std::string help;
  std::string example;        // a value for forms and drills
};

// "1 to 10,000,000 tokens" / "greater than 0 and at most 1" / "bf16, fp8"
std::string accepted_range(const ParamSpec& spec, const Catalog& catalog);
std::string type_name(ParamType type);

// The parsed, typed inputs of one evaluation.
class Inputs {
 public:
  bool has(std::string_view name) const;
  double number(std::string_view name) const;  // 0 when absent
  Dtype dtype(std::string_view name) const;    // bf16 when absent
  const std::string& text(std::string_view name) const;
  const Accelerator* gpu() const { return gpu_; }
  const ModelArch* model() const { return model_ ? model_ : (config_ ? &*config_ : nullptr); }
  const std::map<std::string, std::string, std::less<>>& raw() const { return raw_; }

 private:
  friend Result<Inputs> parse_inputs(const std::vector<ParamSpec>&,
                                     const std::map<std::string, std::string, std::less<>>&,
                                     const Catalog&);
  std::map<std::string, double, std::less<>> numbers_;
  std::map<std::string, Dtype, std::less<>> dtypes_;
  std::map<std::string, std::string, std::less<>> texts_;
  std::map<std::string, std::string, std::less<>> raw_;
  const Accelerator* gpu_ = nullptr;
  const ModelArch* model_ = nullptr;
  std::optional<ModelArch> config_;
};

// Normalizes a parameter name: strips leading dashes, turns '_' into '-'.
std::string normalize_param_name(std::string_view name);

// Parses one value of `spec` (without range checks on choices/ids).
Result<double> parse_number(const ParamSpec& spec, std::string_view text);

// Parses every given value against the specs, applies defaults, checks ranges. All errors
// are collected, not just the first. Unknown names are errors that list the known ones.
Result<Inputs> parse_inputs(const std::vector<ParamSpec>& specs,
                            const std::map<std::string, std::string, std::less<>>& given,
                            const Catalog& catalog);

}  // namespace ridge::calc
