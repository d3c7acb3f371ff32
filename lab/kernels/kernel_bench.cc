// kernel_bench: checks each kernel of the kernel lab against its CPU reference, times it with
// CUDA events (warm-up runs, then the median of --runs), and prints the achieved FLOP/s or
// bandwidth, the fraction of the chip's catalog peak, and beside it the engine's roofline
// prediction for the same FLOP and byte counts. This file is the CUDA side: the device the
// harness (bench.h, tested on the CPU) drives, and main. Exit status: 0 when every check
// passed, 1 when one failed, 2 on a usage or CUDA error. See README.md.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <stdexcept>
#include <string>

#include "bench.h"
#include "calc_io/load_catalog.h"
#include "kernels.h"

namespace ridge::kernels {
namespace {

constexpr const char* kUsage =
    "usage: kernel_bench [--gpu ID] [--runs N] [--warmup N] [--quick] [--json]\n"
    "  --gpu ID     catalog id for the roofline (default: matched from the device name)\n"
    "  --runs N     timed runs per kernel; the median is reported (default 20)\n"
    "  --warmup N   untimed runs first (default 3)\n"
    "  --quick      small timed sizes (ctest kernels.run); the same correctness checks\n"
    "  --json       one JSON object instead of the table\n";

struct Options {
  std::string gpu;
  int runs = 20;
  int warmup = 3;
  bool quick = false;
  bool json = false;
};

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

Options parse_options(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw UsageError(arg + " needs a value");
      return argv[++i];
    };
    auto count = [&](int min) {
      const std::string v = value();
      std::size_t used = 0;
      int n = 0;
      try {
        n = std::stoi(v, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != v.size() || n < min) {
        throw UsageError(arg + ": '" + v + "' is not a whole number of at least " + std::to_string(min));
      }
      return n;
    };
    if (arg == "--gpu") {
      o.gpu = value();
    } else if (arg == "--runs") {
      o.runs = count(1);
    } else if (arg == "--warmup") {
      o.warmup = count(0);
    } else if (arg == "--quick") {
      o.quick = true;
    } else if (arg == "--json") {
      o.json = true;
    } else if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      std::exit(0);
    } else {
      throw UsageError("unknown flag '" + arg + "'");
    }
  }
  return o;
}

void cuda_ok(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}
#define CUDA_OK(expr) cuda_ok((expr), #expr)

void launched(int error, const char* kernel) { cuda_ok(static_cast<cudaError_t>(error), kernel); }

class CudaDevice final : public Device {
 public:
  CudaDevice() {
    CUDA_OK(cudaEventCreate(&start_));
    CUDA_OK(cudaEventCreate(&stop_));
  }
  ~CudaDevice() override {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }

  float* alloc(std::size_t n) override {
    void* p = nullptr;
    CUDA_OK(cudaMalloc(&p, bytes(n)));
    fill_nan(static_cast<float*>(p), n);
    return static_cast<float*>(p);
  }
  void release(float* p) override { cudaFree(p); }
  void upload(float* dst, const std::vector<float>& src) override {
    CUDA_OK(cudaMemcpy(dst, src.data(), src.size() * sizeof(float), cudaMemcpyHostToDevice));
  }
  std::vector<float> download(const float* src, std::size_t n) override {
    std::vector<float> host(n);
    CUDA_OK(cudaDeviceSynchronize());  // a kernel's execution error surfaces here
    CUDA_OK(cudaMemcpy(host.data(), src, n * sizeof(float), cudaMemcpyDeviceToHost));
    return host;
  }
  void fill_nan(float* p, std::size_t n) override { CUDA_OK(cudaMemset(p, 0xff, bytes(n))); }

  void vector_add(const float* a, const float* b, float* c, long long n) override {
    launched(gpu::launch_vector_add(a, b, c, n), "vector_add");
  }
  void softmax_rows(const float* x, float* y, int rows, int cols) override {
    launched(gpu::launch_softmax_rows(x, y, rows, cols), "softmax_rows");
  }
  void gemm_naive(const float* a, const float* b, float* c, int m, int n, int k) override {
    launched(gpu::launch_gemm_naive(a, b, c, m, n, k), "gemm_naive");
  }
  void gemm_tiled(const float* a, const float* b, float* c, int m, int n, int k) override {
    launched(gpu::launch_gemm_tiled(a, b, c, m, n, k), "gemm_tiled");
  }
  void chain_unfused(const float* x, const float* r, float* t, float* u, float* y, long long n, float scale,
                     float shift) override {
    launched(gpu::launch_chain_unfused(x, r, t, u, y, n, scale, shift), "chain_unfused");
  }
  void chain_fused(const float* x, const float* r, float* y, long long n, float scale, float shift) override {
    launched(gpu::launch_chain_fused(x, r, y, n, scale, shift), "chain_fused");
  }

  double time_once(const std::function<void()>& launch) override {
    CUDA_OK(cudaEventRecord(start_));
    launch();
    CUDA_OK(cudaEventRecord(stop_));
    CUDA_OK(cudaEventSynchronize(stop_));
    float ms = 0;
    CUDA_OK(cudaEventElapsedTime(&ms, start_, stop_));
    return ms / 1e3;
  }
  void synchronize() override { CUDA_OK(cudaDeviceSynchronize()); }

 private:
  static std::size_t bytes(std::size_t n) { return (n == 0 ? 1 : n) * sizeof(float); }
  cudaEvent_t start_{}, stop_{};
};

std::string today_utc() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return buf;
}

std::string version_string(int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }

// The driver's release ("580.95.05") is NVML's; nvidia-smi prints it without linking NVML.
std::string driver_release() {
  std::string out;
  if (FILE* p = popen("nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null", "r")) {
    char buf[128];
    if (std::fgets(buf, sizeof buf, p) != nullptr) out = buf;
    pclose(p);
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r' || out.back() == ' ')) out.pop_back();
  return out.empty() ? "unknown" : out;
}

int run(const Options& o) {
  auto loaded = calc_io::load_catalog(RIDGE_SOURCE_DIR "/data");
  if (!loaded) throw std::runtime_error("catalog: " + calc::to_string(loaded.errors()));
  const calc::Catalog catalog = std::move(loaded).value();
  const calc::Registry registry = calc::make_builtin_registry();

  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    throw std::runtime_error("no CUDA device: kernel_bench needs a GPU (the CPU checks run in ctest kernels.reference)");
  }
  cudaDeviceProp prop{};
  CUDA_OK(cudaGetDeviceProperties(&prop, 0));
  const std::string gpu_id = o.gpu.empty() ? catalog_id_for_device(prop.name) : o.gpu;
  if (gpu_id.empty()) {
    throw UsageError(std::string("no catalog entry matches '") + prop.name + "'; give --gpu, one of: " +
                     catalog.hardware.id_list());
  }
  if (catalog.hardware.find(gpu_id) == nullptr) {
    throw UsageError("--gpu: '" + gpu_id + "' is not a known GPU; accepted: " + catalog.hardware.id_list());
  }
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  const DeviceInfo info{prop.name,
                        std::to_string(prop.major) + "." + std::to_string(prop.minor),
                        prop.multiProcessorCount,
                        version_string(driver),
                        version_string(runtime),
                        driver_release()};
  const Settings settings{gpu_id, today_utc(), o.runs, o.warmup, o.quick};

  CudaDevice device;
  const std::vector<Measured> measured = run_benchmarks(device, default_plan(o.quick), o.warmup, o.runs);
  auto rows = predict(registry, catalog, gpu_id, measured);
  if (!rows) throw std::runtime_error("roofline: " + calc::to_string(rows.errors()));
  if (o.json) {
    std::cout << render_json(info, settings, measured, *rows).dump(2) << "\n";
  } else {
    std::cout << render_text(info, settings, measured, *rows);
  }
  return all_passed(measured) ? 0 : 1;
}

}  // namespace
}  // namespace ridge::kernels

int main(int argc, char** argv) {
  try {
    return ridge::kernels::run(ridge::kernels::parse_options(argc, argv));
  } catch (const ridge::kernels::UsageError& e) {
    std::cerr << "kernel_bench: " << e.what() << "\n" << ridge::kernels::kUsage;
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "kernel_bench: " << e.what() << "\n";
    return 2;
  }
}
