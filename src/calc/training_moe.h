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

// The token dispatcher (Megatron-Core --moe-token-dispatcher-type alltoall, or flex with
// --moe-flex-dispatcher-backend deepep or hybridep).
enum class MoeDispatcher { kAllToAll, kDeepEp, kHybridEp };
// From the step parameter's value (alltoall, deepep, hybridep; the parameter is a checked choice).
MoeDispatcher moe_dispatcher(const std::string& name);

// HBM element passes per token per MoE layer (forward and backward) for the token shuffling,
// in units of h (the hidden size), with k routed experts per token landing on r ranks
// (moe_ranks_per_token). kAllToAll is Megatron-Core's MoEAlltoAllTokenDispatcher
// (megatron/core/transformer/moe/token_dispatcher.py): it permutes each token's k copies into
// expert order, sends them (the all-to-all reads the send buffer and writes the receive buffer),
// sorts the received chunks by local expert (sort_chunks_by_idxs, when a rank holds more than
// one expert), and undoes the three after the experts; each pass reads and writes k·h: forward
// 2 × 3 passes × 2 = 12·k (8·k without the sort), the backward mirrors it: 24·k (16·k). kDeepEp
// (MoEFlexTokenDispatcher over DeepEP) sends each token once per destination rank (read 1,
// write r), then permutes the received rows into the k expert slots (read k, write k); after the
// experts it unpermutes (read k, write k) and the combine returns one partial sum per rank (read
// r, write 1): forward 2 + 2r + 4k, with the backward 4 + 4r + 8k. kHybridEp fuses the
// permutation into the send, writing the k expert slots straight from the token (read 1, write
// k), and the combine reads the k outputs and writes the weighted sum: 4(k + 1) in all.
double moe_shuffle_passes(MoeDispatcher dispatcher, double local_experts, double top_k, double ranks);

}  // namespace ridge::calc::detail
