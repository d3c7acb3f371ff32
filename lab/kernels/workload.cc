#include "workload.h"

#include <algorithm>
#include <cstdio>

namespace ridge::kernels {
namespace {

std::string exact(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

double value_of(const calc::Derivation& d, std::string_view key) {
  const calc::NamedResult* r = d.find(key);
  return r == nullptr ? 0 : r->value;
}

}  // namespace

Workload vector_add_workload(long long n) {
  const double e = static_cast<double>(n);
  return {"vector_add", "n=" + std::to_string(n), e, 12 * e};
}

Workload softmax_workload(int rows, int cols) {
  const double e = static_cast<double>(rows) * cols;
  return {"softmax_rows", "rows=" + std::to_string(rows) + " cols=" + std::to_string(cols), 5 * e, 8 * e};
}

Workload gemm_workload(std::string kernel, int m, int n, int k) {
  const double dm = m, dn = n, dk = k;
  return {std::move(kernel), "m=" + std::to_string(m) + " n=" + std::to_string(n) + " k=" + std::to_string(k),
          2 * dm * dn * dk, 4 * (dm * dk + dk * dn + dm * dn)};
}

Workload chain_workload(long long n, bool fused) {
  const double e = static_cast<double>(n);
  return {fused ? "chain_fused" : "chain_unfused", "n=" + std::to_string(n), 12 * e, (fused ? 12 : 28) * e};
}

calc::Result<Prediction> roofline_prediction(const calc::Registry& registry, const calc::Catalog& catalog,
                                             const std::string& gpu_id, const Workload& w) {
  auto d = registry.evaluate("roofline",
                             {{"gpu", gpu_id}, {"dtype", "fp32"}, {"flops", exact(w.flops)}, {"bytes", exact(w.bytes)}},
                             catalog);
  if (!d) return d.errors();
  Prediction p;
  p.peak_flops = value_of(*d, "peak_flops");
  p.bandwidth = value_of(*d, "bandwidth");
  p.attainable_flops = value_of(*d, "attainable_flops");
  p.seconds = value_of(*d, "seconds");
  p.compute_bound = value_of(*d, "compute_bound") != 0;
  return p;
}

Row summarize(const Workload& w, double median_seconds, const Prediction& p) {
  Row r;
  r.work = w;
  r.median_seconds = median_seconds;
  r.predicted = p;
  if (median_seconds > 0) {
    r.achieved_flops = w.flops / median_seconds;
    r.achieved_bandwidth = w.bytes / median_seconds;
  }
  if (p.compute_bound) {
    r.fraction_of_peak = p.peak_flops > 0 ? r.achieved_flops / p.peak_flops : 0;
  } else {
    r.fraction_of_peak = p.bandwidth > 0 ? r.achieved_bandwidth / p.bandwidth : 0;
  }
  return r;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

std::string catalog_id_for_device(std::string_view name) {
  auto has = [&](std::string_view s) { return name.find(s) != std::string_view::npos; };
  // Order matters: "GH200" contains "H200", "GB200" contains "B200", "H100 PCIe" contains "H100".
  if (has("GB300")) return "gb300";
  if (has("GB200")) return "gb200";
  if (has("B300")) return "b300";
  if (has("B200")) return "b200";
  if (has("GH200")) return "";  // Grace Hopper: not in the catalog
  if (has("H200")) return "h200";
  if (has("H800")) return "h800";
  if (has("H100") && (has("PCIe") || has("PCIE"))) return "h100-pcie";
  if (has("H100")) return "h100-sxm";
  if (has("A100") && has("80GB") && !has("PCIe") && !has("PCIE")) return "a100-80gb-sxm";
  if (has("L40S")) return "l40s";
  if (has("RTX PRO 6000")) return "rtx-pro-6000";
  return "";
}

}  // namespace ridge::kernels
