// The standard normal quantile function (inverse CDF): the x with P(Z <= x) = p.
#pragma once

#include <optional>

namespace ridge::lab {

// Acklam's rational approximation (relative error 1.15e-9) refined by one Halley step
// on std::erfc, which brings it to about double precision. std::nullopt unless 0 < p < 1.
std::optional<double> normal_quantile(double p);

}  // namespace ridge::lab
