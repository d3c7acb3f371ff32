#include "calc/training_moe.h"

#include <cmath>

#include "calc/common.h"

namespace ridge::calc::detail {

double moe_ranks_per_token(double experts, double top_k, double ep) {
  if (ep <= 1) return 1;
  const double others = experts - experts / ep;
  if (top_k > others) return ep;  // k exceeds the other ranks' experts: every rank is hit
  // C(n, k) through lgamma, so the cost does not grow with a config's expert count.
  auto log_choose = [](double n, double k) { return std::lgamma(n + 1) - std::lgamma(k + 1) - std::lgamma(n - k + 1); };
  return ep * (1 - std::exp(log_choose(others, top_k) - log_choose(experts, top_k)));
}

double moe_ranks_step(Derivation& d, double experts, double top_k, double ep) {
  return d.step("EP ranks per token (one copy each)", "ep × (1 − C(E − E/ep, k) ÷ C(E, k))",
                num(ep) + " × (1 − C(" + num(experts - experts / ep) + ", " + num(top_k) + ") ÷ C(" + num(experts) +
                    ", " + num(top_k) + "))",
                moe_ranks_per_token(experts, top_k, ep), Unit::kNone);
}

MoeDispatcher moe_dispatcher(const std::string& name) {
  if (name == "hybridep") return MoeDispatcher::kHybridEp;
  if (name == "deepep") return MoeDispatcher::kDeepEp;
  return MoeDispatcher::kAllToAll;
}

double moe_shuffle_passes(MoeDispatcher dispatcher, double local_experts, double top_k, double ranks) {
  // HybridEP and DeepEP: one copy per destination rank, permuted into expert slots after it lands.
  if (dispatcher != MoeDispatcher::kAllToAll) return 4 + 6 * ranks + 6 * top_k;
  return (local_experts > 1 ? 24 : 16) * top_k;
}

double moe_launches_per_expert(bool fp8, const std::string& fp8_recipe, bool expert_bias) {
  constexpr double kGemms = 6;  // fc1 and fc2: forward, data gradient, weight gradient
  constexpr double kCastTensors = 4;  // fc1 and fc2 inputs, fc2 and fc1 output gradients
  const double bias = expert_bias ? 8 : 0;  // fc2's bias added in PyTorch, two main_grad adds
  if (!fp8 || fp8_recipe == "delayed") return kGemms + bias;
  if (fp8_recipe == "current") return kGemms + 4 * kCastTensors + bias;
  return kGemms + kCastTensors + bias;  // mxfp8, block: one quantize kernel per tensor
}

double moe_host_step(Derivation& d, double moe_layers, double local_experts, double per_expert, double per_launch,
                     double launches_per_expert) {
  const std::string label = "MoE host time per micro-batch (launch-bound after each sync)";
  if (per_launch > 0) {
    return d.step(label, "MoE layers on the stage × local experts (E ÷ ep) × launches per expert × CPU time per launch",
                  num(moe_layers) + " × " + num(local_experts) + " × " + num(launches_per_expert) + " × " +
                      q(per_launch, Unit::kSeconds),
                  moe_layers * local_experts * launches_per_expert * per_launch, Unit::kSeconds);
  }
  return d.step(label, "MoE layers on the stage × local experts (E ÷ ep) × host time per expert",
                num(moe_layers) + " × " + num(local_experts) + " × " + q(per_expert, Unit::kSeconds),
                moe_layers * local_experts * per_expert, Unit::kSeconds);
}

}  // namespace ridge::calc::detail
