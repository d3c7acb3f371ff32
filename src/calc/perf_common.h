// What the performance calculators share (step in calculators_perf.cc; serve and serve-rate in
// calculators_serve.cc): a parameter builder, the assumed collective efficiency and the
// registration of the serving calculators (called from register_perf_calculators, so the
// calculators keep their order in `ridge calc --list`).
#pragma once

#include <string>
#include <vector>

#include "calc/common.h"

namespace ridge::calc {

void register_serve_calculators(Registry& r);

namespace detail {

// A non-negative parameter (zero allowed) with a non-zero default.
inline ParamSpec zero_or_more(std::string name, Unit unit, std::string help, double max, const char* default_value) {
  ParamSpec spec = optional_zero(std::move(name), unit, std::move(help), max);
  spec.default_value = default_value;
  return spec;
}

// Collective bus bandwidth as a share of the link's one-direction rate: NCCL ring collectives
// on NVLink and InfiniBand reach roughly this much in nccl-tests (assumption, stated).
inline constexpr const char* kLinkEfficiency = "0.7";

// The `step` calculator's inputs, with the fitted constants as their defaults (step_params.cc).
std::vector<ParamSpec> step_params();

}  // namespace detail
}  // namespace ridge::calc
