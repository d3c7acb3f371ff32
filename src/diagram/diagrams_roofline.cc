// The roofline diagram: each chip's roof from its peak and bandwidth, and kernels placed by
// their arithmetic intensity.
#include "diagram/diagrams_internal.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "diagram/svg.h"

namespace ridge::diagram::detail {

// ---- roofline ----
Result<Rendered> roofline(Given params, const calc::Registry& registry, const calc::Catalog& catalog, const Options& o) {
  std::string gpus = take(params, "gpu", "h100-sxm");
  std::string dtype = take(params, "dtype", "bf16");
  std::string kernels = take(params, "kernels");
  if (!params.empty()) {
    return FieldError{params.begin()->first, params.begin()->second, "is not a roofline diagram parameter",
                      "gpu (comma-separated, up to 4), dtype, kernels (name@intensity,...), from"};
  }
  struct Chip {
    std::string id;
    double peak, bw, ridge;
  };
  std::vector<Chip> chips;
  std::stringstream list(gpus);
  std::string id;
  Errors errors;
  while (std::getline(list, id, ',')) {
    auto d = registry.evaluate("roofline", {{"gpu", id}, {"dtype", dtype}}, catalog);
    if (!d) {
      errors.insert(errors.end(), d.errors().begin(), d.errors().end());
      continue;
    }
    chips.push_back({id, result(*d, "peak_flops"), result(*d, "bandwidth"), result(*d, "ridge_flops_per_byte")});
  }
  if (!errors.empty()) return errors;
  if (chips.empty() || chips.size() > 4) return FieldError{"gpu", gpus, "needs one to four chips", "a comma-separated list of ids"};
  struct Point {
    std::string name;
    double intensity;
  };
  std::vector<Point> points;
  std::stringstream ks(kernels);
  std::string k;
  while (std::getline(ks, k, ',')) {
    if (k.empty()) continue;
    size_t at = k.find('@');
    char* end = nullptr;
    double v = at == std::string::npos ? 0 : std::strtod(k.c_str() + at + 1, &end);
    if (at == std::string::npos || end == k.c_str() + at + 1 || *end != 0 || !(v > 0) || !std::isfinite(v)) {
      return FieldError{"kernels", k, "is not name@intensity", "such as softmax@1.25,gemm@340"};
    }
    points.push_back({k.substr(0, at), v});
  }
  // Axes: intensity 0.1 to 10^4 FLOP/B, FLOP/s from a decade under the lowest knee.
  const double W = 640, H = 400, L = 70, R = 20, T = 30, B = 50;
  double ymax = 0, ymin = 1e30;
  for (const auto& c : chips) {
    ymax = std::max(ymax, c.peak);
    ymin = std::min(ymin, c.bw * 0.1);
  }
  double lx0 = -1, lx1 = 4, ly1 = std::ceil(std::log10(ymax * 1.5)), ly0 = std::floor(std::log10(ymin));
  auto X = [&](double v) { return L + (std::log10(v) - lx0) / (lx1 - lx0) * (W - L - R); };
  auto Y = [&](double v) { return H - B - (std::log10(v) - ly0) / (ly1 - ly0) * (H - T - B); };
  Svg svg(W, H);
  for (int e = static_cast<int>(lx0); e <= lx1; ++e) {
    double x = X(std::pow(10, e));
    svg.line(x, T, x, H - B, "d-grid");
    svg.text(x, H - B + 16, calc::format_significant(std::pow(10, e), 3), "d-small", "middle");
  }
  for (int e = static_cast<int>(ly0); e <= ly1; ++e) {
    double y = Y(std::pow(10, e));
    svg.line(L, y, W - R, y, "d-grid");
    svg.text(L - 6, y + 4, calc::format_quantity(std::pow(10, e), calc::Unit::kFlopPerSecond, 2), "d-small", "end");
  }
  svg.line(L, H - B, W - R, H - B, "d-axis");
  svg.line(L, T, L, H - B, "d-axis");
  svg.text((L + W - R) / 2, H - 12, "arithmetic intensity (FLOP per byte, log)", "d-text", "middle");
  std::string desc = "Roofline in " + dtype + ": ";
  for (size_t i = 0; i < chips.size(); ++i) {
    const Chip& c = chips[i];
    std::string cls = "d-s" + std::to_string(i + 1);
    double x0 = std::pow(10, lx0), x1 = std::pow(10, lx1);
    std::string pts = fmt(X(x0)) + "," + fmt(Y(std::max(x0 * c.bw, std::pow(10, ly0)))) + " " + fmt(X(c.ridge)) + "," +
                      fmt(Y(c.peak)) + " " + fmt(X(x1)) + "," + fmt(Y(c.peak));
    svg.polyline(pts, cls);
    svg.circle(X(c.ridge), Y(c.peak), 4, "d-f" + std::to_string(i + 1));
    // Legend, top left, one line per chip.
    double ly = T + 14 + 16.0 * static_cast<double>(i);
    svg.line(L + 10, ly - 4, L + 30, ly - 4, cls);
    svg.text(L + 36, ly, c.id + ": peak " + q(c.peak, calc::Unit::kFlopPerSecond) + ", ridge " +
                             calc::format_significant(c.ridge, 3) + " FLOP/B", "d-text");
    desc += c.id + " peaks at " + q(c.peak, calc::Unit::kFlopPerSecond) + " with " + q(c.bw, calc::Unit::kBytesPerSecond) +
            " of memory bandwidth, ridge point " + calc::format_significant(c.ridge, 3) + " FLOP/B; ";
  }
  for (const auto& p : points) {
    const Chip& c = chips.front();
    double y = std::min(c.peak, p.intensity * c.bw);
    svg.circle(X(p.intensity), Y(y), 5, "d-mark");
    svg.text(X(p.intensity), Y(y) + 18, p.name, "d-small", "middle");
    desc += p.name + " at " + calc::format_significant(p.intensity, 3) + " FLOP/B is " +
            (p.intensity >= c.ridge ? "compute-bound" : "memory-bound") + " on " + c.id + "; ";
  }
  std::string title = "Roofline: " + gpus + " (" + dtype + ")";
  return Rendered{"roofline", title, desc, svg.finish("roofline", o.id, title, desc, o.standalone)};
}

}  // namespace ridge::diagram::detail
