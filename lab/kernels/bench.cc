#include "bench.h"

#include <cstdio>
#include <tuple>

#include "calc/units.h"
#include "kernels.h"

namespace ridge::kernels {
namespace {

// Device memory for n floats, released with its owner; starts as NaN.
class Buffer {
 public:
  Buffer(Device& d, std::size_t n) : d_(d), n_(n), p_(d.alloc(n)) {}
  Buffer(Device& d, const std::vector<float>& host) : Buffer(d, host.size()) { d_.upload(p_, host); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer() { d_.release(p_); }
  float* get() const { return p_; }
  std::vector<float> download() const { return d_.download(p_, n_); }
  void poison() { d_.fill_nan(p_, n_); }

 private:
  Device& d_;
  std::size_t n_;
  float* p_;
};

double time_median(Device& device, const std::function<void()>& launch, int warmup, int runs) {
  for (int i = 0; i < warmup; ++i) launch();
  device.synchronize();
  std::vector<double> seconds;
  for (int i = 0; i < runs; ++i) seconds.push_back(device.time_once(launch));
  return median(seconds);
}

std::string dims(int rows, int cols) { return "rows=" + std::to_string(rows) + " cols=" + std::to_string(cols); }

std::vector<long long> with(std::vector<long long> sizes, long long extra) {
  sizes.push_back(extra);
  return sizes;
}

Measured bench_vector_add(Device& d, const Plan& plan, int warmup, int runs) {
  Checks checks;
  for (long long n : with(plan.elementwise_checks, plan.elementwise)) {
    const std::size_t count = static_cast<std::size_t>(n);
    auto a = random_floats(count, 1, -1, 1), b = random_floats(count, 2, -1, 1);
    Buffer da(d, a), db(d, b), dc(d, count);
    d.vector_add(da.get(), db.get(), dc.get(), n);
    checks.add("n=" + std::to_string(n), check_close(dc.download(), vector_add(a, b), vector_add_tolerance()));
  }
  const long long n = plan.elementwise;
  const std::size_t count = static_cast<std::size_t>(n);
  Buffer da(d, random_floats(count, 3, -1, 1)), db(d, random_floats(count, 4, -1, 1)), dc(d, count);
  const double s = time_median(d, [&] { d.vector_add(da.get(), db.get(), dc.get(), n); }, warmup, runs);
  return {vector_add_workload(n), s, checks};
}

Measured bench_softmax(Device& d, const Plan& plan, int warmup, int runs) {
  Checks checks;
  auto sizes = plan.softmax_checks;
  sizes.emplace_back(plan.softmax_rows, plan.softmax_cols);
  for (auto [rows, cols] : sizes) {
    const std::size_t n = static_cast<std::size_t>(rows) * cols;
    auto x = random_floats(n, 5, -8, 8);
    Buffer dx(d, x), dy(d, n);
    d.softmax_rows(dx.get(), dy.get(), rows, cols);
    checks.add(dims(rows, cols), check_close(dy.download(), softmax_rows(x, rows, cols), softmax_tolerance(cols)));
  }
  const int rows = plan.softmax_rows, cols = plan.softmax_cols;
  const std::size_t n = static_cast<std::size_t>(rows) * cols;
  Buffer dx(d, random_floats(n, 6, -8, 8)), dy(d, n);
  const double s = time_median(d, [&] { d.softmax_rows(dx.get(), dy.get(), rows, cols); }, warmup, runs);
  return {softmax_workload(rows, cols), s, checks};
}

std::vector<Measured> bench_gemm(Device& d, const Plan& plan, int warmup, int runs) {
  using Launch = void (Device::*)(const float*, const float*, float*, int, int, int);
  const std::pair<const char*, Launch> kernels[] = {{"gemm_naive", &Device::gemm_naive},
                                                    {"gemm_tiled", &Device::gemm_tiled}};
  Checks checks[2];
  for (auto [m, n, k] : plan.gemm_checks) {
    auto a = random_floats(static_cast<std::size_t>(m) * k, 7, -1, 1);
    auto b = random_floats(static_cast<std::size_t>(k) * n, 8, -1, 1);
    const GemmReference ref = gemm(a, b, m, n, k);  // once for both kernels
    Buffer da(d, a), db(d, b), dc(d, static_cast<std::size_t>(m) * n);
    for (int i = 0; i < 2; ++i) {
      dc.poison();  // the second kernel must not pass on the first one's outputs
      (d.*kernels[i].second)(da.get(), db.get(), dc.get(), m, n, k);
      checks[i].add("m=" + std::to_string(m) + " n=" + std::to_string(n) + " k=" + std::to_string(k),
                    check_close(dc.download(), ref.c, gemm_tolerance(k), ref.magnitude));
    }
  }
  // The timed size: spot entries, the four corners first, then a spread of rows and columns.
  const int size = plan.gemm;
  const std::size_t elems = static_cast<std::size_t>(size) * size;
  auto a = random_floats(elems, 9, -1, 1), b = random_floats(elems, 10, -1, 1);
  std::vector<std::pair<int, int>> spots = {{0, 0}, {0, size - 1}, {size - 1, 0}, {size - 1, size - 1}};
  for (long long i = 0; static_cast<int>(spots.size()) < plan.gemm_spots; ++i) {
    spots.emplace_back(static_cast<int>(i * 7919 % size), static_cast<int>((i * 104729 + 13) % size));
  }
  std::vector<float> expected;
  std::vector<double> magnitude;
  for (auto [r, c] : spots) {
    const GemmEntry e = gemm_entry(a, b, size, size, r, c);
    expected.push_back(e.value);
    magnitude.push_back(e.magnitude);
  }
  Buffer da(d, a), db(d, b), dc(d, elems);
  std::vector<Measured> out;
  for (int i = 0; i < 2; ++i) {
    const Launch launch = kernels[i].second;
    dc.poison();
    (d.*launch)(da.get(), db.get(), dc.get(), size, size, size);
    const std::vector<float> c = dc.download();
    std::vector<float> got;
    for (auto [r, col] : spots) got.push_back(c[static_cast<std::size_t>(r) * size + col]);
    checks[i].add("m=n=k=" + std::to_string(size) + " (" + std::to_string(spots.size()) + " entries)",
                  check_close(got, expected, gemm_tolerance(size), magnitude));
    const double s = time_median(d, [&] { (d.*launch)(da.get(), db.get(), dc.get(), size, size, size); }, warmup, runs);
    out.push_back({gemm_workload(kernels[i].first, size, size, size), s, checks[i]});
  }
  return out;
}

std::vector<Measured> bench_chain(Device& d, const Plan& plan, int warmup, int runs) {
  const ChainParams p;
  Checks unfused_checks, fused_checks;
  for (long long n : with(plan.elementwise_checks, plan.elementwise)) {
    const std::size_t count = static_cast<std::size_t>(n);
    auto x = random_floats(count, 11, -3, 3), r = random_floats(count, 12, -1, 1);
    const std::vector<float> expected = elementwise_chain(x, r, p);
    Buffer dx(d, x), dr(d, r), dt(d, count), du(d, count), dy(d, count);
    d.chain_unfused(dx.get(), dr.get(), dt.get(), du.get(), dy.get(), n, p.scale, p.shift);
    unfused_checks.add("n=" + std::to_string(n), check_close(dy.download(), expected, chain_tolerance()));
    dy.poison();
    d.chain_fused(dx.get(), dr.get(), dy.get(), n, p.scale, p.shift);
    fused_checks.add("n=" + std::to_string(n), check_close(dy.download(), expected, chain_tolerance()));
  }
  const long long n = plan.elementwise;
  const std::size_t count = static_cast<std::size_t>(n);
  Buffer dx(d, random_floats(count, 13, -3, 3)), dr(d, random_floats(count, 14, -1, 1)), dt(d, count), du(d, count),
      dy(d, count);
  const double unfused = time_median(
      d, [&] { d.chain_unfused(dx.get(), dr.get(), dt.get(), du.get(), dy.get(), n, p.scale, p.shift); }, warmup, runs);
  const double fused = time_median(d, [&] { d.chain_fused(dx.get(), dr.get(), dy.get(), n, p.scale, p.shift); }, warmup, runs);
  return {{chain_workload(n, false), unfused, unfused_checks}, {chain_workload(n, true), fused, fused_checks}};
}

std::string q(double v, calc::Unit unit) { return calc::format_quantity(v, unit, 3); }

}  // namespace

Plan default_plan(bool quick) {
  Plan p;
  p.elementwise_checks = {1000003};
  p.softmax_checks = {{300, 1000}, {50, 7}, {2, 20011}};
  p.gemm_checks = {{64, 64, 64}, {33, 65, 17}, {1000, 1000, 1000}};
  if (quick) {
    p.elementwise = 1LL << 22;
    p.softmax_rows = p.softmax_cols = 1024;
    p.gemm = 512;
  } else {
    // Elementwise: 512 MB per array, 10× the largest L2 in the catalog. Softmax: 16,384 rows
    // of 8,192 (32 KB a row, so the re-reads hit L1). GEMM: 4,096³, 137 GFLOP.
    p.elementwise = 1LL << 27;
    p.softmax_rows = 16384;
    p.softmax_cols = 8192;
    p.gemm = 4096;
  }
  return p;
}

void Checks::add(const std::string& size, const CheckResult& r) {
  ok = ok && r.ok;
  details.push_back(size + ": " + r.message);
}

std::vector<Measured> run_benchmarks(Device& device, const Plan& plan, int warmup, int runs) {
  std::vector<Measured> out;
  out.push_back(bench_vector_add(device, plan, warmup, runs));
  out.push_back(bench_softmax(device, plan, warmup, runs));
  for (auto& m : bench_gemm(device, plan, warmup, runs)) out.push_back(std::move(m));
  for (auto& m : bench_chain(device, plan, warmup, runs)) out.push_back(std::move(m));
  return out;
}

calc::Result<std::vector<Row>> predict(const calc::Registry& registry, const calc::Catalog& catalog,
                                       const std::string& gpu_id, const std::vector<Measured>& measured) {
  std::vector<Row> rows;
  for (const auto& m : measured) {
    auto p = roofline_prediction(registry, catalog, gpu_id, m.work);
    if (!p) return p.errors();
    rows.push_back(summarize(m.work, m.seconds, *p));
  }
  return rows;
}

bool all_passed(const std::vector<Measured>& measured) {
  for (const auto& m : measured) {
    if (!m.checks.ok) return false;
  }
  return true;
}

nlohmann::json render_json(const DeviceInfo& info, const Settings& settings, const std::vector<Measured>& measured,
                           const std::vector<Row>& rows) {
  nlohmann::json kernels = nlohmann::json::array();
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    kernels.push_back({{"kernel", r.work.kernel},
                       {"size", r.work.size},
                       {"flops", r.work.flops},
                       {"bytes", r.work.bytes},
                       {"median_seconds", r.median_seconds},
                       {"achieved_flops", r.achieved_flops},
                       {"achieved_bandwidth", r.achieved_bandwidth},
                       {"bound", r.predicted.compute_bound ? "compute" : "memory"},
                       {"fraction_of_peak", r.fraction_of_peak},
                       {"roofline",
                        {{"attainable_flops", r.predicted.attainable_flops},
                         {"seconds", r.predicted.seconds},
                         {"peak_flops", r.predicted.peak_flops},
                         {"bandwidth", r.predicted.bandwidth}}},
                       {"check", {{"ok", measured[i].checks.ok}, {"details", measured[i].checks.details}}}});
  }
  return {{"tool", "kernel_bench"},
          {"date", settings.date},
          {"device",
           {{"name", info.name},
            {"compute_capability", info.compute_capability},
            {"sms", info.sms},
            {"cuda_driver", info.cuda_driver},
            {"cuda_runtime", info.cuda_runtime},
            {"driver_release", info.driver_release}}},
          {"catalog_gpu", settings.gpu_id},
          {"dtype", "fp32"},
          {"runs", settings.runs},
          {"warmup", settings.warmup},
          {"quick", settings.quick},
          {"kernels", kernels},
          {"all_checks_passed", all_passed(measured)}};
}

std::string render_text(const DeviceInfo& info, const Settings& settings, const std::vector<Measured>& measured,
                        const std::vector<Row>& rows) {
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line, "%s (cc %s, %d SMs), driver %s, CUDA %s; roofline of catalog entry %s in fp32; %s\n",
                info.name.c_str(), info.compute_capability.c_str(), info.sms, info.driver_release.c_str(),
                info.cuda_runtime.c_str(), settings.gpu_id.c_str(), settings.date.c_str());
  out += line;
  std::snprintf(line, sizeof line, "median of %d runs after %d warm-up runs, timed with CUDA events\n\n", settings.runs,
                settings.warmup);
  out += line;
  std::snprintf(line, sizeof line, "%-14s %-22s %10s %14s %7s %24s  %s\n", "kernel", "size", "median", "achieved",
                "% peak", "roofline: time, FLOP/s", "check");
  out += line;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    const bool compute = r.predicted.compute_bound;
    const std::string achieved =
        compute ? q(r.achieved_flops, calc::Unit::kFlopPerSecond) : q(r.achieved_bandwidth, calc::Unit::kBytesPerSecond);
    const std::string roof =
        q(r.predicted.seconds, calc::Unit::kSeconds) + ", " + q(r.predicted.attainable_flops, calc::Unit::kFlopPerSecond);
    std::snprintf(line, sizeof line, "%-14s %-22s %10s %14s %6.1f%% %24s  %s\n", r.work.kernel.c_str(),
                  r.work.size.c_str(), q(r.median_seconds, calc::Unit::kSeconds).c_str(), achieved.c_str(),
                  r.fraction_of_peak * 100, roof.c_str(), measured[i].checks.ok ? "pass" : "FAIL");
    out += line;
  }
  out += "\nchecks:\n";
  for (const auto& m : measured) {
    for (const auto& d : m.checks.details) out += "  " + m.work.kernel + "  " + d + "\n";
  }
  return out;
}

}  // namespace ridge::kernels
