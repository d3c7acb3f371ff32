// The routed experts' token traffic in a training step (`step`), by token dispatcher: the
// elements a token's copies move through HBM, and the EP ranks a token is sent to. Pure
// functions, so the tests can hold each to a hand-derived figure.
#pragma once

namespace ridge::calc::detail {

// Expected number of distinct EP ranks a token's k routed experts live on, with E experts
// split evenly over ep ranks (E ÷ ep each) and the k experts distinct: a rank is missed when
// all k fall among the other E − E/ep experts, so ranks = ep × (1 − C(E − E/ep, k) ÷ C(E, k)).
// For a router forced to balance (the published MoE benchmarks) each k-subset is equally likely.
double moe_ranks_per_token(double experts, double top_k, double ep);

// HBM element passes per token per MoE layer (forward and backward) for the token shuffling,
// in units of h (the hidden size). flex = false is Megatron-Core's all-to-all dispatcher
// (megatron/core/transformer/moe/token_dispatcher.py, MoEAlltoAllTokenDispatcher): it permutes
// each token's k copies into expert order, sends them (the all-to-all reads the send buffer and
// writes the receive buffer), sorts the received chunks by local expert (sort_chunks_by_idxs,
// when a rank holds more than one expert), and undoes the three after the experts; each pass
// reads and writes k·h elements: forward 2 × 3 passes × 2 = 12·k (8·k without the sort), the
// backward mirrors it: 24·k (16·k). flex = true is the flex dispatcher (DeepEP, HybridEP), whose
// dispatch kernel reads the token once and writes its k copies straight into the experts'
// receive buffers (the permutation fused into the send), and whose combine reads the k outputs
// and writes the weighted sum: forward (1 + k) + (k + 1) = 2(k + 1), backward the same: 4(k + 1).
double moe_shuffle_passes(bool flex, double local_experts, double top_k);

}  // namespace ridge::calc::detail
