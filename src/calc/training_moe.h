// The routed experts' token traffic in a training step (`step`), by token dispatcher: the
// elements a token's copies move through HBM, and the EP ranks a token is sent to. Pure
// functions, so the tests can hold each to a hand-derived figure.
#pragma once

#include <string>

#include "calc/derivation.h"

namespace ridge::calc::detail {

// Expected number of distinct EP ranks a token's k routed experts live on, with E experts
// split evenly over ep ranks (E ÷ ep each) and the k experts distinct: a rank is missed when
// all k fall among the other E − E/ep experts, so ranks = ep × (1 − C(E − E/ep, k) ÷ C(E, k)).
// For a router forced to balance (the published MoE benchmarks) each k-subset is equally likely.
double moe_ranks_per_token(double experts, double top_k, double ep);
// The same, shown as a step of the derivation (the flex dispatcher's copies per token).
double moe_ranks_step(Derivation& d, double experts, double top_k, double ep);

// The token dispatcher: Megatron-Core's all-to-all one (--moe-token-dispatcher-type alltoall), or
// the flex one over HybridEP (--moe-token-dispatcher-type flex --moe-flex-dispatcher-backend
// hybridep, the 25.11 recipes' choice on GB200 and GB300) or over DeepEP (backend deepep, the
// 26.02 recipe of Qwen3 30B-A3B on H100, Megatron-Bridge v0.3.0).
enum class MoeDispatcher { kAllToAll, kHybridEp, kDeepEp };
// From the step parameter's value (alltoall, hybridep, deepep; the parameter is a checked choice).
MoeDispatcher moe_dispatcher(const std::string& name);

// HBM element passes per token per MoE layer (forward and backward) for the token shuffling,
// in units of h (the hidden size), with k routed experts per token landing on r ranks
// (moe_ranks_per_token). kAllToAll is Megatron-Core's MoEAlltoAllTokenDispatcher
// (megatron/core/transformer/moe/token_dispatcher.py): it permutes each token's k copies into
// expert order, sends them (the all-to-all reads the send buffer and writes the receive buffer),
// sorts the received chunks by local expert (sort_chunks_by_idxs, when a rank holds more than
// one expert), and undoes the three after the experts; each pass reads and writes k·h: forward
// 2 × 3 passes × 2 = 12·k (8·k without the sort), the backward mirrors it: 24·k (16·k).
// kHybridEp (DeepEP's hybrid-ep branch, csrc/hybrid_ep/executor/executor.cu): the dispatch
// kernel reads the token once and writes one copy into each destination rank's buffer (read 1,
// write r); dispatch_postprocess permutes out of that buffer into the k expert slots (read k,
// write k; it replaces a copy out of the buffer); combine_preprocess unpermutes the experts'
// outputs, one weighted sum per rank, into the combine buffer (read k, write r); the combine
// kernel reads the r partial sums and writes the token (read r, write 1): forward 2 + 3r + 3k,
// the backward mirrors it: 4 + 6r + 6k.
// kDeepEp moves the same elements (perf8t, Megatron-Core's _DeepepManager in
// megatron/core/transformer/moe/token_dispatcher.py): fused_dispatch (DeepEP's buffer.dispatch)
// reads the token once and writes one copy per destination rank (read 1, write r);
// get_permuted_hidden_states_by_experts permutes the received copies into the local experts'
// slots (read k, write k over the ranks); get_restored_hidden_states_by_experts unpermutes them
// into one row per received token (read k, write r); fused_combine reduces the r rows (read r,
// write 1): 4 + 6r + 6k, as HybridEP.
double moe_shuffle_passes(MoeDispatcher dispatcher, double local_experts, double top_k, double ranks);

// Kernel launches per local expert per MoE layer, forward and backward, read from Transformer
// Engine 2.9 (perf7t): TEGroupedMLP runs fc1 and fc2 as GroupedLinear; each launches one cuBLAS
// GEMM per expert for the forward, the data gradient and the weight gradient
// (general_grouped_gemm -> multi_stream_cublas_gemm, a loop over the experts): 6. Under FP8,
// split_quantize casts the fc1 and fc2 inputs (forward) and the two output gradients (backward)
// per expert unless every quantizer is delayed scaling, which has one fused multi_cast_transpose
// for all experts (csrc/extensions/cast.cpp, multi_tensor_quantize_impl). Current scaling takes 4
// kernels per tensor (Float8CurrentScalingQuantizer::quantize_impl: zero the amax, the amax
// reduction, the scale from it, the cast; common/recipe/current_scaling.cu): 4 × 4 + 6 = 22.
// MXFP8 and block scaling cast each tensor in one kernel: 4 + 6 = 10. bf16 and delayed: 6. The
// weights' casts are cached after a step's first micro-batch (is_first_microbatch) and not counted.
// With expert biases (gpt-oss: add_bias_linear) Megatron-Core's TEGroupedMLP adds fc2's bias per
// expert in PyTorch (megatron/core/transformer/moe/experts.py, _apply_bias, core 0.15: t + b·p over
// torch.split by expert): forward a product and a sum, backward two products and two reductions
// (the gradients of b and p), and the DDP hook adds each expert's two bias gradients to main_grad
// (distributed_data_parallel.py, the weights' are fused into the GEMM): 8 more. Dtype casts, which
// depend on the probabilities' dtype, are not counted.
double moe_launches_per_expert(bool fp8, const std::string& fp8_recipe, bool expert_bias);

// The MoE host time per micro-batch: the dispatcher copies the tokens-per-expert counts to the
// CPU once per MoE layer (the all-to-all's split sizes and the grouped GEMM's m_splits are host
// lists), which drains the launch queue, so a layer takes at least the CPU time to launch its
// experts' work (the Megatron-Core MoE guide names this overhead and its cures: CUDA graphs,
// --moe-pad-expert-input-to-capacity). With per_launch > 0: MoE layers × local experts × launches
// per expert × per_launch; otherwise the fitted time per local expert (calculators_perf.cc).
double moe_host_step(Derivation& d, double moe_layers, double local_experts, double per_expert, double per_launch,
                     double launches_per_expert);

}  // namespace ridge::calc::detail
