#include "calc/registry.h"

#include <algorithm>

namespace ridge::calc {

void Registry::add(Calculator calculator) { calculators_.push_back(std::move(calculator)); }

const Calculator* Registry::find(std::string_view name) const {
  auto it = std::find_if(calculators_.begin(), calculators_.end(),
                         [&](const Calculator& c) { return c.name == name; });
  return it == calculators_.end() ? nullptr : &*it;
}

std::string Registry::name_list() const {
  std::string out;
  for (const auto& c : calculators_) out += (out.empty() ? "" : ", ") + c.name;
  return out;
}

Result<Derivation> Registry::evaluate(std::string_view name, const Given& given,
                                      const Catalog& catalog) const {
  const Calculator* c = find(name);
  if (c == nullptr) {
    return FieldError{"calculator", std::string(name), "is not a known calculator", name_list()};
  }
  auto inputs = parse_inputs(c->params, given, catalog);
  if (!inputs) return inputs.errors();
  return c->fn(*inputs, catalog);
}

Registry make_builtin_registry() {
  Registry r;
  register_memory_calculators(r);
  register_compute_calculators(r);
  register_serving_calculators(r);
  register_cluster_calculators(r);
  register_training_calculators(r);
  register_planning_calculators(r);
  register_perf_calculators(r);
  register_gpu_calculators(r);
  register_lab_calculators(r);
  return r;
}

}  // namespace ridge::calc
