// The kernel lab's CUDA kernels. Each one is the textbook version an interview asks for,
// written for clarity; kernel_bench measures them against the roofline. See README.md.
#include <cuda_runtime.h>

#include <cmath>

#include "kernels.h"

namespace ridge::kernels::gpu {
namespace {

constexpr unsigned kFullMask = 0xffffffffu;

long long blocks_for(long long n, int threads) { return (n + threads - 1) / threads; }

// ---- vector add: 1 FLOP per 12 bytes, the purest bandwidth test

__global__ void vector_add_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                  long long n) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

// ---- row softmax: one block per row, max-subtracted, float accumulation

__device__ float warp_max(float v) {
  for (int offset = 16; offset > 0; offset /= 2) v = fmaxf(v, __shfl_xor_sync(kFullMask, v, offset));
  return v;
}

__device__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(kFullMask, v, offset);
  return v;
}

// Reduces across the block: each warp reduces in registers, warp leaders meet in `scratch`,
// the first warp reduces those, and every thread gets the answer. Ends with a barrier so the
// caller may reuse `scratch`.
template <bool kMax>
__device__ float block_reduce(float v, float* scratch) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  v = kMax ? warp_max(v) : warp_sum(v);
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  if (warp == 0) {
    float w = lane < warps ? scratch[lane] : (kMax ? -INFINITY : 0.0f);
    w = kMax ? warp_max(w) : warp_sum(w);
    if (lane == 0) scratch[0] = w;
  }
  __syncthreads();
  const float result = scratch[0];
  __syncthreads();
  return result;
}

__global__ void softmax_rows_kernel(const float* __restrict__ x, float* __restrict__ y, int cols) {
  __shared__ float scratch[32];
  const float* row = x + static_cast<long long>(blockIdx.x) * cols;
  float* out = y + static_cast<long long>(blockIdx.x) * cols;
  float m = -INFINITY;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, row[c]);
  m = block_reduce<true>(m, scratch);
  // Subtracting the max keeps every exp in (0, 1]: no overflow whatever the inputs.
  float sum = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) sum += expf(row[c] - m);
  sum = block_reduce<false>(sum, scratch);
  for (int c = threadIdx.x; c < cols; c += blockDim.x) out[c] = expf(row[c] - m) / sum;
}

// ---- GEMM: naive (every operand from global memory) and tiled (operands staged in shared)

__global__ void gemm_naive_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int m,
                                  int n, int k) {
  // threadIdx.x walks columns, so a warp reads 32 consecutive floats of B (coalesced) and
  // one float of A (a broadcast).
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= m || col >= n) return;
  float acc = 0.0f;
  for (int p = 0; p < k; ++p) acc += a[static_cast<long long>(row) * k + p] * b[static_cast<long long>(p) * n + col];
  c[static_cast<long long>(row) * n + col] = acc;
}

__global__ void gemm_tiled_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int m,
                                  int n, int k) {
  // As is read along a row by a warp (As[ty][kk]: one word, broadcast) and Bs along a row
  // too (Bs[kk][tx]: 32 consecutive words, 32 banks): no padding needed.
  __shared__ float as[kGemmTile][kGemmTile];
  __shared__ float bs[kGemmTile][kGemmTile];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * kGemmTile + ty;
  const int col = blockIdx.x * kGemmTile + tx;
  float acc = 0.0f;
  for (int t = 0; t < (k + kGemmTile - 1) / kGemmTile; ++t) {
    const int a_col = t * kGemmTile + tx;
    const int b_row = t * kGemmTile + ty;
    // Zero-fill past every edge, so a partial tile adds nothing.
    as[ty][tx] = row < m && a_col < k ? a[static_cast<long long>(row) * k + a_col] : 0.0f;
    bs[ty][tx] = b_row < k && col < n ? b[static_cast<long long>(b_row) * n + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kGemmTile; ++kk) acc += as[ty][kk] * bs[kk][tx];
    __syncthreads();  // before the next tile overwrites what slower warps still read
  }
  if (row < m && col < n) c[static_cast<long long>(row) * n + col] = acc;
}

// ---- the elementwise chain, fused and unfused

__device__ __forceinline__ float gelu(float t) {
  // tanh GELU; the same float expression as reference.cc's gelu_tanh_float.
  const float inner = 0.7978845608f * fmaf(0.044715f * t, t * t, t);
  return 0.5f * t * (1.0f + tanhf(inner));
}

__global__ void scale_shift_kernel(const float* __restrict__ x, float* __restrict__ t, long long n, float scale, float shift) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) t[i] = fmaf(x[i], scale, shift);
}

__global__ void gelu_kernel(const float* __restrict__ t, float* __restrict__ u, long long n) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) u[i] = gelu(t[i]);
}

__global__ void add_kernel(const float* __restrict__ u, const float* __restrict__ r, float* __restrict__ y, long long n) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) y[i] = u[i] + r[i];
}

__global__ void chain_fused_kernel(const float* __restrict__ x, const float* __restrict__ r, float* __restrict__ y,
                                   long long n, float scale, float shift) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) y[i] = gelu(fmaf(x[i], scale, shift)) + r[i];
}

int last_error() { return static_cast<int>(cudaGetLastError()); }

}  // namespace

int launch_vector_add(const float* a, const float* b, float* c, long long n) {
  if (n <= 0) return 0;
  vector_add_kernel<<<static_cast<unsigned>(blocks_for(n, kElementwiseThreads)), kElementwiseThreads>>>(a, b, c, n);
  return last_error();
}

int launch_softmax_rows(const float* x, float* y, int rows, int cols) {
  if (rows <= 0 || cols <= 0) return 0;
  softmax_rows_kernel<<<rows, kSoftmaxThreads>>>(x, y, cols);
  return last_error();
}

int launch_gemm_naive(const float* a, const float* b, float* c, int m, int n, int k) {
  if (m <= 0 || n <= 0) return 0;
  const dim3 threads(32, 8);
  const dim3 blocks((n + threads.x - 1) / threads.x, (m + threads.y - 1) / threads.y);
  gemm_naive_kernel<<<blocks, threads>>>(a, b, c, m, n, k);
  return last_error();
}

int launch_gemm_tiled(const float* a, const float* b, float* c, int m, int n, int k) {
  if (m <= 0 || n <= 0) return 0;
  const dim3 threads(kGemmTile, kGemmTile);
  const dim3 blocks((n + kGemmTile - 1) / kGemmTile, (m + kGemmTile - 1) / kGemmTile);
  gemm_tiled_kernel<<<blocks, threads>>>(a, b, c, m, n, k);
  return last_error();
}

int launch_chain_unfused(const float* x, const float* residual, float* t, float* u, float* y, long long n, float scale,
                         float shift) {
  if (n <= 0) return 0;
  const unsigned blocks = static_cast<unsigned>(blocks_for(n, kElementwiseThreads));
  scale_shift_kernel<<<blocks, kElementwiseThreads>>>(x, t, n, scale, shift);
  if (int e = last_error()) return e;
  gelu_kernel<<<blocks, kElementwiseThreads>>>(t, u, n);
  if (int e = last_error()) return e;
  add_kernel<<<blocks, kElementwiseThreads>>>(u, residual, y, n);
  return last_error();
}

int launch_chain_fused(const float* x, const float* residual, float* y, long long n, float scale, float shift) {
  if (n <= 0) return 0;
  chain_fused_kernel<<<static_cast<unsigned>(blocks_for(n, kElementwiseThreads)), kElementwiseThreads>>>(x, residual, y, n,
                                                                                                        scale, shift);
  return last_error();
}

}  // namespace ridge::kernels::gpu
