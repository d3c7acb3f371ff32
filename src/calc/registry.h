// The registry of calculators. Each declares its parameters once; every face (CLI flags,
// API query parameters, web forms, drills, content calc blocks) is generated from it.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "calc/catalog.h"
#include "calc/derivation.h"
#include "calc/params.h"
#include "calc/result.h"

namespace ridge::calc {

using CalculatorFn = Result<Derivation> (*)(const Inputs& in, const Catalog& catalog);

struct Calculator {
  std::string name;      // "fit"
  std::string summary;   // one line for --list
  std::vector<ParamSpec> params;
  std::vector<std::string> result_keys;  // the contract: what results may hold
  std::string example;   // "--model llama-3.1-70b --gpu h100-sxm --gpus 8 --context 32768"
  CalculatorFn fn = nullptr;
};

using Given = std::map<std::string, std::string, std::less<>>;

class Registry {
 public:
  void add(Calculator calculator);
  const Calculator* find(std::string_view name) const;
  const std::vector<Calculator>& all() const { return calculators_; }
  std::string name_list() const;

  // Parses `given` against the calculator's specs and runs it. Unknown calculator,
  // unknown or invalid parameters come back as errors, never as exceptions.
  Result<Derivation> evaluate(std::string_view name, const Given& given, const Catalog& catalog) const;

 private:
  std::vector<Calculator> calculators_;
};

// Every calculator ridge ships, in the order --list shows them.
Registry make_builtin_registry();

// Registration functions, one per source file of calculators.
void register_memory_calculators(Registry& r);
void register_compute_calculators(Registry& r);
void register_serving_calculators(Registry& r);
void register_cluster_calculators(Registry& r);
void register_gpu_calculators(Registry& r);
void register_lab_calculators(Registry& r);
void register_training_calculators(Registry& r);
void register_planning_calculators(Registry& r);
void register_perf_calculators(Registry& r);

}  // namespace ridge::calc
