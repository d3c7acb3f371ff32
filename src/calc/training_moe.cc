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
  return name == "hybridep" ? MoeDispatcher::kHybridEp : MoeDispatcher::kAllToAll;
}

double moe_shuffle_passes(MoeDispatcher dispatcher, double local_experts, double top_k, double ranks) {
  if (dispatcher == MoeDispatcher::kHybridEp) return 4 + 6 * ranks + 6 * top_k;
  return (local_experts > 1 ? 24 : 16) * top_k;
}

}  // namespace ridge::calc::detail
