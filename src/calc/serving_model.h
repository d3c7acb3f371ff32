// Serving as deployed: one function per prediction, pure numbers, no derivation text, so the
// `serve-rate` calculator and the design rounds read the same physics. Every function is O(1)
// or a bisection of a fixed, small number of steps: nothing here loops on a request's figure.
//
// The queueing model, stated once (each function repeats the part it uses):
//  - Requests arrive as a Poisson process at rate lambda (the load generators of vLLM's
//    benchmark_serving.py and of MLPerf Inference's Server scenario both draw exponential gaps).
//  - Continuous (iteration-level) batching: a sequence joins the running batch at the next step
//    and leaves after its last token (Yu et al., "Orca", OSDI 2022; vLLM).
//  - Prefill has priority: a waiting prompt runs as its own forward pass before the next decode
//    step (vLLM's default scheduler before chunked prefill). So prefill is an M/G/1 queue with
//    service S (one prompt's forward pass) and the decode steps stall a share rho_p = lambda × S
//    of the time.
//  - Steady-state batch by Little's law (L = lambda × W; Little 1961): the sequences in decode
//    = lambda × (output tokens ÷ tokens per step) × step time, solved as a fixed point because the
//    step time grows with the batch.
//  - Mean prefill wait: Pollaczek-Khinchine, W = lambda × E[S²] ÷ (2 (1 − rho_p)).
//  - Tail of the wait: P(W > w) ≈ rho_p × exp(−rho_p × w ÷ W) (exact for M/M/1, where the wait
//    given a wait is exponential with mean W ÷ rho; the usual exponential approximation for
//    M/G/1, Kingman 1961): w_99 = W ÷ rho_p × ln(rho_p ÷ 0.01) when rho_p > 0.01, else 0.
//  - TPOT of one request: the decode step plus the prefills that land during its life, spread over
//    its tokens; the count of those prefills is Poisson with mean m = lambda × life, its 99th
//    percentile taken as m + 2.326 √m (normal approximation).
#pragma once

#include <string>

namespace ridge::calc::serving {

// Length distribution of prompts or outputs as a load generator draws them.
enum class Lengths { kFixed, kExponential };
// Coefficient of variation: 0 fixed, 1 exponential.
double length_cv(Lengths l);
// The 99th percentile of a length with this mean: the mean when fixed, mean × ln 100 exponential.
double length_p99(Lengths l, double mean);

// Expected routed experts a decode step reads per MoE layer when `tokens` tokens each choose
// `top_k` of `experts` experts uniformly and independently: E × (1 − (1 − k/E)^T) (occupancy of
// E bins by T × k balls without repeats within a token; uniform routing is an assumption, real
// routers are skewed, which touches fewer experts).
double experts_touched(double experts, double top_k, double tokens);

// One replica's decode step, from the serve calculator's roofline terms. All bytes and FLOPs are
// per GPU of the replica (the tensor-parallel share already divided out).
struct DecodeCost {
  double dense_weight_bytes = 0;   // every weight a step reads whatever the batch (attention, shared experts, embeddings)
  double expert_bytes = 0;         // one routed expert's weights summed over the MoE layers (0 for dense)
  double experts = 0, top_k = 0;   // routed experts per layer and experts per token (0 for dense)
  double bandwidth = 0;            // HBM bytes/s the step's kernels reach (bandwidth × share)
  double flops_per_token = 0;      // GEMM and attention FLOPs per token on this GPU
  double flop_rate = 0;            // FLOP/s the GEMMs reach on this GPU
  double kv_bytes_per_sequence = 0;  // cache a step reads per sequence (at the average context)
  double fixed_seconds = 0;        // per step: the per-layer costs and all-reduce latencies
  double comm_seconds_per_token = 0; // per token in the step: the TP all-reduce bytes
  // Expert parallelism (issue 31, MoE serving under load): the routed experts' share of
  // flops_per_token, and the busiest expert-parallel rank's routed tokens ÷ the mean (a stated
  // input, 1 = uniform routing). The step waits for the busiest rank: its expert GEMMs carry
  // imbalance × their mean FLOPs (the weights it reads stay the expected touched experts).
  double expert_flops_per_token = 0;
  double imbalance = 1;
  // HBM bytes/s the routed experts' grouped GEMMs reach while reading their weights (0: as
  // `bandwidth`). A decode step gives each expert a few tokens (B × k ÷ E), so each expert's GEMM
  // is a handful of tiles streaming its weights, below the streaming rate a dense GEMM reaches:
  // DeepGEMM's FP8 tables on H800 (README of 2025-02) show 1.5-2.7 TB/s of 3.35 at M = 64-128 for
  // dense GEMMs and 0.9-2.1 TB/s for the masked grouped GEMMs of MoE decode.
  double expert_bandwidth = 0;
};
// Time of one decode step for `batch` sequences each adding `tokens_per_sequence` tokens
// (1, or k + 1 when a speculative step verifies k drafted tokens): the GEMMs at the roofline
// max(weights read ÷ bandwidth, FLOPs ÷ rate) plus the cache read, the all-reduces and the fixed
// cost. A MoE step reads only the experts its tokens touch, at expert_bandwidth; its FLOPs are
// the busiest rank's, flops_per_token + (imbalance − 1) × expert_flops_per_token.
double decode_step_seconds(const DecodeCost& c, double batch, double tokens_per_sequence = 1);

// Speculative decoding (Leviathan et al. 2023): a draft proposes k tokens, each accepted with
// probability a independently; the target verifies them in one step of k + 1 tokens.
struct Speculation {
  double draft_tokens = 0;  // k; 0 = no speculation
  double acceptance = 0;    // a
  double draft_cost = 0;    // one draft step ÷ one target decode step at the same batch
};
// Expected tokens each sequence gains per target step: (1 − a^(k+1)) ÷ (1 − a); 1 without.
double tokens_per_step(const Speculation& s);
// Seconds of one speculative step (k draft steps + the verification), or one plain step.
double speculative_step_seconds(const DecodeCost& c, const Speculation& s, double batch);

// What a load generator sends and what the deployment holds.
struct Load {
  double rate = 0;              // requests per second offered to this replica (lambda)
  double input_tokens = 0;      // mean prompt length
  double output_tokens = 0;     // mean output length
  Lengths input_lengths = Lengths::kFixed, output_lengths = Lengths::kFixed;
  double max_batch = 0;         // sequences the KV cache holds (0 = unbounded)
};
// One prompt's prefill as a forward pass of its own: S(isl) = fixed + per_token × isl (the
// weight read, overheads and all-reduce latency in `fixed`; the GEMMs' FLOPs per token in
// `per_token`; attention's quadratic term linearised at the mean by the caller).
struct PrefillCost {
  double fixed_seconds = 0;
  double per_token_seconds = 0;
};
double prefill_seconds(const PrefillCost& p, double input_tokens);

struct LoadPoint {
  bool stable = false;
  bool saturated = false;       // closed loop only: the clients outnumber what the deployment serves, the rest queue
  double rate = 0;              // requests/s this point serves (closed loop: solved)
  std::string why;              // why not stable ("prefill saturates", "decode saturates", "KV cache full")
  double batch = 0;             // steady-state sequences in decode
  double step_seconds = 0;      // one decode step (speculative: a whole draft + verify step)
  double prefill_utilisation = 0;  // rho_p
  double ttft_mean = 0, ttft_p99 = 0;
  double tpot_mean = 0, tpot_p99 = 0;
  double kv_transfer_seconds = 0;  // disaggregated only
  double handoff_seconds = 0;      // disaggregated only: the handoff beyond the transfer (Disaggregation)
  double output_tokens_per_second = 0;  // of this replica (decode replica when disaggregated)
};

// Aggregated: prefill and decode on the same replica, prefill first (the model above).
LoadPoint aggregated(const DecodeCost& decode, const PrefillCost& prefill, const Speculation& spec, const Load& load);

// Disaggregated (DistServe, Zhong et al. OSDI 2024; Splitwise, Patel et al. ISCA 2024): a pool of
// prefill replicas and a pool of decode replicas, the arrivals split evenly (each replica sees
// lambda ÷ its pool's size, still Poisson); the prompt's KV cache crosses the fabric before its
// first decode step: transfer = latency + KV bytes ÷ bandwidth, not overlapped with the prefill
// (a layer-by-layer overlap would hide most of it; stated), then the handoff: fixed seconds plus
// a count of decode steps at the decode replica's steady batch. Decode steps never stall for a prefill.
struct Disaggregation {
  double prefill_replicas = 1, decode_replicas = 1;
  double kv_bytes_per_prompt_token = 0;  // the whole replica's cache per token (all layers, all ranks)
  double transfer_bandwidth = 0;         // bytes/s from a prefill replica to a decode replica
  double transfer_latency = 0;           // seconds per transfer
  // The prefill-to-decode handoff beyond the transfer itself (issue 31, perf6s): what a request
  // pays between its prefill's end and its first token leaving the decode server. In SGLang's PD
  // mode (python/sglang/srt/disaggregation/decode.py, the request's life cycle in its docstring)
  // the decode server moves a request through its queues once per scheduler iteration: the
  // handshake and pre-allocation are polled (the prefill may not start before them), the transfer
  // is polled after the KV lands, and the request then joins through a PrebuiltExtendBatch that
  // takes an iteration of its own. `handoff_decode_steps` counts those waits in decode steps (each
  // poll waits half an iteration on average); `handoff_seconds` is what is not a decode step (the
  // router's two HTTP hops, the bootstrap server, the CPU all-reduce of each poll, the transfer
  // engine's notification), a fixed cost per request.
  double handoff_seconds = 0;
  double handoff_decode_steps = 0;
};
LoadPoint disaggregated(const DecodeCost& decode, const PrefillCost& prefill, const Speculation& spec,
                        const Load& load, const Disaggregation& dis);

// Closed loop: C clients, each sending its next request when its last one ends (genai-perf's and
// NIM's "concurrency", vLLM benchmark_serving's --max-concurrency). By Little's law over the
// clients the rate they make is lambda = C ÷ (TTFT + (output − 1) × TPOT), solved by bisection
// (60 halvings) below the saturation rate `saturation` (max_rate_* with no SLO). When even the
// saturation rate leaves clients over, the deployment runs at it and they wait in the queue:
// TTFT = C ÷ lambda_sat − (output − 1) × TPOT (saturated = true).
LoadPoint closed_loop_aggregated(const DecodeCost& decode, const PrefillCost& prefill, const Speculation& spec,
                                 Load load, double concurrency, double saturation);
LoadPoint closed_loop_disaggregated(const DecodeCost& decode, const PrefillCost& prefill, const Speculation& spec,
                                    Load load, const Disaggregation& dis, double concurrency, double saturation);

// The highest total request rate (requests/s over the whole deployment) whose TTFT p99 and
// TPOT p99 stay within the SLOs (0 = not bounded), by bisection (60 halvings) between 0 and the
// rate at which the deployment saturates. `replicas` scales an aggregated replica's rate.
struct Slo {
  double ttft_p99 = 0, tpot_p99 = 0;
};
double max_rate_aggregated(const DecodeCost& decode, const PrefillCost& prefill, const Speculation& spec, Load load,
                           const Slo& slo, double replicas = 1);
double max_rate_disaggregated(const DecodeCost& decode, const PrefillCost& prefill, const Speculation& spec, Load load,
                              const Disaggregation& dis, const Slo& slo);

}  // namespace ridge::calc::serving
