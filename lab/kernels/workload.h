// What kernel_bench reports beside each measurement: the kernel's FLOP and byte counts (the
// model, stated per kernel), the engine's roofline prediction for those counts, and the
// achieved rates as a fraction of the chip's catalog peak. Plain C++ (no CUDA), tested by
// kernels.reference; kernel_bench only adds the timings.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "calc/registry.h"

namespace ridge::kernels {

// One kernel at one size, with the work it does. Bytes are the compulsory traffic: every
// input read once and every output written once, which is what the roofline's intensity
// means; a kernel that re-reads (the naive GEMM) moves more and lands below its roof.
struct Workload {
  std::string kernel;  // "gemm_tiled"
  std::string size;    // "m=4096 n=4096 k=4096"
  double flops = 0;
  double bytes = 0;
};

// n FLOP (one add per element), 12 n bytes (two float reads, one write).
Workload vector_add_workload(long long n);
// 5 FLOP per element (max, subtract, exp, add, divide, each counted as one), 8 bytes per
// element (read once, written once; the second and third reads of a row hit in cache).
Workload softmax_workload(int rows, int cols);
// 2 m n k FLOP (a multiply and an add per product); 4 (m k + k n + m n) bytes.
Workload gemm_workload(std::string kernel, int m, int n, int k);
// 12 FLOP per element: 2 for x × scale + shift, 9 for tanh GELU (t³ 2, × 0.044715 1, + t 1,
// × sqrt(2/π) 1, tanh 1, + 1 1, × t 1, × 0.5 1), 1 for the residual add. Bytes: fused reads x
// and the residual and writes y (12 n); unfused adds the round trips of t and u (28 n).
Workload chain_workload(long long n, bool fused);

// The engine's roofline for a workload on a catalog chip, in fp32 (NVIDIA's fp32 is the
// vector CUDA-core peak; these kernels use no tensor cores).
struct Prediction {
  double peak_flops = 0;
  double bandwidth = 0;
  double attainable_flops = 0;
  double seconds = 0;
  bool compute_bound = false;
};
calc::Result<Prediction> roofline_prediction(const calc::Registry& registry, const calc::Catalog& catalog,
                                             const std::string& gpu_id, const Workload& w);

// A measurement put next to its prediction.
struct Row {
  Workload work;
  double median_seconds = 0;
  double achieved_flops = 0;      // FLOP ÷ median
  double achieved_bandwidth = 0;  // bytes ÷ median
  // Of the resource the roofline says bounds the kernel: FLOP/s over peak when compute-bound,
  // bandwidth over the memory bandwidth otherwise.
  double fraction_of_peak = 0;
  Prediction predicted;
};
Row summarize(const Workload& w, double median_seconds, const Prediction& p);

// The median of the runs (the mean of the middle two for an even count). Precondition: non-empty.
double median(std::vector<double> values);

// The catalog id for a CUDA device name such as "NVIDIA H100 80GB HBM3", or "" when none
// matches (kernel_bench then asks for --gpu).
std::string catalog_id_for_device(std::string_view device_name);

}  // namespace ridge::kernels
