#include "check.h"

#include <cmath>
#include <cstdio>
#include <limits>

#include "kernels.h"

namespace ridge::kernels {
namespace {

std::string format(const char* fmt, double a, double b = 0, double c = 0, double d = 0) {
  char buf[256];
  std::snprintf(buf, sizeof buf, fmt, a, b, c, d);
  return buf;
}

}  // namespace

CheckResult check_close(std::span<const float> actual, std::span<const float> expected, Tolerance tol,
                        std::span<const double> scale) {
  CheckResult r;
  if (actual.size() != expected.size() || (!scale.empty() && scale.size() != expected.size())) {
    r.message = format("size mismatch: %.0f results for %.0f expected (%.0f scales)", static_cast<double>(actual.size()),
                       static_cast<double>(expected.size()), static_cast<double>(scale.size()));
    return r;
  }
  r.checked = expected.size();
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const double e = expected[i];
    const double a = actual[i];
    double error, allowed, ratio;
    if (!std::isfinite(e) || !std::isfinite(a)) {
      // Only the same infinity matches; NaN matches nothing, not even NaN.
      const bool same = a == e;
      error = same ? 0 : std::numeric_limits<double>::infinity();
      allowed = 0;
      ratio = same ? 0 : std::numeric_limits<double>::infinity();
    } else {
      error = std::fabs(a - e);
      allowed = tol.abs + tol.rel * (scale.empty() ? std::fabs(e) : scale[i]);
      ratio = error == 0 ? 0 : allowed > 0 ? error / allowed : std::numeric_limits<double>::infinity();
    }
    if (error > r.max_abs_error) r.max_abs_error = error;
    if (ratio > r.worst_error_ratio) r.worst_error_ratio = ratio;
    if (!(error <= allowed)) {
      if (r.bad == 0) {
        r.first_bad = i;
        r.message = format("element %.0f: got %.9g, expected %.9g, allowed error %.3g", static_cast<double>(i), a, e, allowed);
      }
      ++r.bad;
    }
  }
  r.ok = r.bad == 0;
  if (r.ok) {
    r.message = format("ok: %.0f elements, max |error| %.3g, worst error %.3g of the allowed", static_cast<double>(r.checked),
                       r.max_abs_error, r.worst_error_ratio);
  } else {
    r.message = format("%.0f of %.0f elements wrong; first: ", static_cast<double>(r.bad), static_cast<double>(r.checked)) +
                r.message;
  }
  return r;
}

Tolerance vector_add_tolerance() { return {0, 0}; }

Tolerance softmax_tolerance(int cols) {
  const double u = 0x1.0p-24;
  const double per_thread = (cols + kSoftmaxThreads - 1) / kSoftmaxThreads;
  return {0, 2 * (per_thread + std::log2(kSoftmaxThreads) + 20) * u};
}

Tolerance gemm_tolerance(int k) {
  const double u = 0x1.0p-24;
  const double ku = (k + 1) * u;
  return {0, ku / (1 - ku)};
}

Tolerance chain_tolerance() { return {1e-5, 1e-5}; }

}  // namespace ridge::kernels
