// kernel_bench's harness: for each kernel, check the device's result against the CPU
// reference at the plan's sizes, then time it (warm-up runs, then the median of the timed
// runs), and render the measurements beside the engine's roofline. The device sits behind an
// interface: kernel_bench.cc drives CUDA through it, and bench_test.cc drives a CPU stand-in,
// so everything but the CUDA calls is tested where there is no GPU.
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "check.h"
#include "reference.h"
#include "workload.h"

namespace ridge::kernels {

// What kernel_bench runs on. Pointers are device memory from alloc(). Kernel methods enqueue
// (a CUDA device throws on a launch error); download() waits for them.
class Device {
 public:
  virtual ~Device() = default;
  // n floats, every one NaN, so an element a kernel never writes fails its check.
  virtual float* alloc(std::size_t n) = 0;
  virtual void release(float* p) = 0;
  virtual void upload(float* dst, const std::vector<float>& src) = 0;
  virtual std::vector<float> download(const float* src, std::size_t n) = 0;
  virtual void fill_nan(float* p, std::size_t n) = 0;

  virtual void vector_add(const float* a, const float* b, float* c, long long n) = 0;
  virtual void softmax_rows(const float* x, float* y, int rows, int cols) = 0;
  virtual void gemm_naive(const float* a, const float* b, float* c, int m, int n, int k) = 0;
  virtual void gemm_tiled(const float* a, const float* b, float* c, int m, int n, int k) = 0;
  virtual void chain_unfused(const float* x, const float* r, float* t, float* u, float* y, long long n, float scale,
                             float shift) = 0;
  virtual void chain_fused(const float* x, const float* r, float* y, long long n, float scale, float shift) = 0;

  // The seconds one call of `launch` takes on the device (CUDA events around it).
  virtual double time_once(const std::function<void()>& launch) = 0;
  virtual void synchronize() = 0;
};

// The sizes to check and to time. Every check size is compared whole against the CPU
// reference; the timed elementwise and softmax sizes are checked whole too, the timed GEMM
// at `gemm_spots` entries (its whole CPU reference would take minutes).
struct Plan {
  std::vector<long long> elementwise_checks;
  long long elementwise = 0;  // vector add and the chain
  std::vector<std::pair<int, int>> softmax_checks;  // rows, cols
  int softmax_rows = 0, softmax_cols = 0;
  std::vector<std::array<int, 3>> gemm_checks;  // m, n, k
  int gemm = 0;                                 // m = n = k
  int gemm_spots = 1024;
};
// The full plan (the table in RESULTS.md) or --quick (ctest kernels.run). Both check the same
// odd sizes: 1,000,003 elements (no multiple of 256), softmax rows of 1,000, 7 and 20,011
// columns, GEMMs of 64³, 33 × 65 × 17 and 1,000³ (32 × 32 output tiles, 32 k-tiles, partial
// tiles on every edge).
Plan default_plan(bool quick);

struct Checks {
  bool ok = true;
  std::vector<std::string> details;  // "n=1000003: ok: ..." per size
  void add(const std::string& size, const CheckResult& r);
};

struct Measured {
  Workload work;
  double seconds = 0;  // median of the timed runs
  Checks checks;
};

// Runs every kernel: vector_add, softmax_rows, gemm_naive, gemm_tiled, chain_unfused,
// chain_fused, in that order.
std::vector<Measured> run_benchmarks(Device& device, const Plan& plan, int warmup, int runs);

struct DeviceInfo {
  std::string name;                // "NVIDIA H200"
  std::string compute_capability;  // "9.0"
  int sms = 0;
  std::string cuda_driver;     // "13.0", the driver's CUDA API version
  std::string cuda_runtime;    // "13.0"
  std::string driver_release;  // "580.95.05" from nvidia-smi, or "unknown"
};

struct Settings {
  std::string gpu_id;  // the catalog entry the roofline uses
  std::string date;    // YYYY-MM-DD
  int runs = 0, warmup = 0;
  bool quick = false;
};

// The measurements beside the roofline, or the roofline's errors (an unknown --gpu).
calc::Result<std::vector<Row>> predict(const calc::Registry& registry, const calc::Catalog& catalog,
                                       const std::string& gpu_id, const std::vector<Measured>& measured);

bool all_passed(const std::vector<Measured>& measured);

// {"tool", "date", "device": {...}, "catalog_gpu", "dtype", "runs", "warmup", "quick",
//  "kernels": [{"kernel", "size", "flops", "bytes", "median_seconds", "achieved_flops",
//  "achieved_bandwidth", "bound", "fraction_of_peak", "roofline": {...}, "check": {...}}],
//  "all_checks_passed"}; values in base units (s, FLOP, B, FLOP/s, B/s).
nlohmann::json render_json(const DeviceInfo& info, const Settings& settings, const std::vector<Measured>& measured,
                           const std::vector<Row>& rows);
// The table RESULTS.md takes: kernel, size, median, achieved, % of peak, roofline, check.
std::string render_text(const DeviceInfo& info, const Settings& settings, const std::vector<Measured>& measured,
                        const std::vector<Row>& rows);

}  // namespace ridge::kernels
