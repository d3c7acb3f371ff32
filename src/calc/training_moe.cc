#include "calc/training_moe.h"

#include <cmath>

namespace ridge::calc::detail {

double moe_ranks_per_token(double experts, double top_k, double ep) {
  if (ep <= 1) return 1;
  const double others = experts - experts / ep;
  if (top_k > others) return ep;  // k exceeds the other ranks' experts: every rank is hit
  // C(n, k) through lgamma, so the cost does not grow with a config's expert count.
  auto log_choose = [](double n, double k) { return std::lgamma(n + 1) - std::lgamma(k + 1) - std::lgamma(n - k + 1); };
  return ep * (1 - std::exp(log_choose(others, top_k) - log_choose(experts, top_k)));
}

double moe_shuffle_passes(bool flex, double local_experts, double top_k) {
  if (flex) return 4 * (top_k + 1);
  return (local_experts > 1 ? 24 : 16) * top_k;
}

}  // namespace ridge::calc::detail
