// The kernel lab's CUDA kernels (kernels.cu), declared as plain C++ launchers so host code
// needs no CUDA headers. Every pointer is device memory; every launcher enqueues on the
// default stream and returns the launch's cudaError_t as an int (0 is success); execution
// errors surface at the caller's next synchronizing call.
#pragma once

namespace ridge::kernels {

// Threads per block of the elementwise kernels (one element per thread).
inline constexpr int kElementwiseThreads = 256;
// Threads per block of the softmax kernel (one block per row); a power of two.
inline constexpr int kSoftmaxThreads = 256;
// Edge of the square tiles the tiled GEMM stages in shared memory (blocks of kGemmTile²
// threads, 2 × kGemmTile² floats = 8 KB of shared memory per block).
inline constexpr int kGemmTile = 32;

namespace gpu {

// c[i] = a[i] + b[i], i < n.
int launch_vector_add(const float* a, const float* b, float* c, long long n);

// One block per row of a rows × cols row-major matrix: the row's max, Σ exp(x − max) in
// float, then exp(x − max) ÷ sum. rows ≤ 2^31 − 1.
int launch_softmax_rows(const float* x, float* y, int rows, int cols);

// C = A × B, A m × k, B k × n, row-major, float accumulation. One thread per output; the
// naive kernel reads A and B from global memory for every product, the tiled kernel stages
// kGemmTile × kGemmTile tiles of each in shared memory and zero-fills past the edges.
int launch_gemm_naive(const float* a, const float* b, float* c, int m, int n, int k);
int launch_gemm_tiled(const float* a, const float* b, float* c, int m, int n, int k);

// y = gelu(x × scale + shift) + residual (tanh GELU), n elements.
// Unfused: three kernels through two float temporaries t and u (each n floats):
// t = x × scale + shift; u = gelu(t); y = u + residual.
int launch_chain_unfused(const float* x, const float* residual, float* t, float* u, float* y, long long n, float scale,
                         float shift);
// Fused: one kernel, the intermediates stay in registers.
int launch_chain_fused(const float* x, const float* residual, float* y, long long n, float scale, float shift);

}  // namespace gpu
}  // namespace ridge::kernels
