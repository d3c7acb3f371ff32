// Internal to the serving calculators (calculators_serve.cc: `serve`; calculators_serve_rate.cc:
// `serve-rate`; calculators_serve_shared.cc: what both use): the fitted constants, attention data
// parallelism and expert parallelism, and the setup both start from.
#pragma once

#include <vector>

#include "calc/common.h"
#include "calc/hardware.h"
#include "calc/perf_common.h"
#include "calc/serving_model.h"

namespace ridge::calc::serve_detail {

using namespace ::ridge::calc::detail;  // common.h's parameters and dtypes

// ---- fitted constants (`ridge validate --fit` reproduces them) ----
// Fitted on the "fit" half of data/published-runs.toml only, by the grid search in
// src/cli/validate_command.cc (see the split rule at the top of that file).
// Serving, fitted together on the 8 "fit" serving runs (grid: bandwidth 0.50-0.90 by 0.025,
// matmul 0.30-0.85 by 0.025, per-layer cost 0-300 us by 10 us): the share of HBM bandwidth
// the decode kernels reach (0.90 is the grid's ceiling, set where a streaming kernel on H100
// tops out; the fit sits on it), the share of the dense peak the GEMMs and attention reach,
// and a fixed cost per layer per forward pass (the launches and the small kernels between the
// GEMMs: norms, RoPE, the KV write, quantisation). Was 0.90, 0.525, 150 us (fitted on 6 runs,
// before the NIM 1.8 latency table joined); now 0.90, 0.50, 70 us (fit half mean 10.3%).
// Held-out serving 15.8% -> 12.1% (decode 42.4% -> 7.9%, end-to-end 11.3% -> 6.9%, prefill
// 12.8% -> 20.4%: the cheaper layer cost underprices the 128-token prefills).
inline constexpr const char* kServeBandwidthEfficiency = "0.90";
inline constexpr const char* kServePrefillEfficiency = "0.50";
inline constexpr const char* kServeLayerOverhead = "70us";
// Not fitted: the share of a grouped-query KV head's reads that its query heads share. The
// published TensorRT-LLM runs (v0.5-v0.6.1, 2023) decode with the masked multi-head attention
// kernel, one thread block per query head, so each KV head is read once per query head: 0.
// The XQA kernels that read it once per group came for Llama 2 70B on Hopper in v0.10.0 (its
// release notes); pass 1 for an engine that has them.
inline constexpr const char* kServeKvGroupReuse = "0";

// Fitted on the fit half's MoE under-load rows only (TensorRT-LLM v1.0 H200, attention DP): the
// share of prompts an attention-DP replica prefills alone while the other groups wait (see
// serve-rate's --attention-dp-serial; 1 is tech blog 10's round-robin worst case, 0 its ADP
// balance). First fitted alone, grid 0 to 1 by 0.1 on the six fit rows' mean |error|: 42.3% at 0
// (balanced), 18.1% at 0.6 (the minimum), 24.4% at 1 (serial); held-out MoE 31.4% at 0.6
// (2026-12-06). Refitted jointly with kServeExpertBandwidthEfficiency below (perf5, 2026-12-07):
// 0.6 -> 0.5. perf9s (2026-12-07): refitted with kServeMoeLayerOverhead below, 0.5 -> 0.4.
inline constexpr const char* kServeAttentionDpSerial = "0.4";

// perf5 (issue 31, MoE decode at the KV-cache-bound batch): the share of HBM bandwidth the routed
// experts' grouped GEMMs reach in a decode step (serving_model.h, DecodeCost::expert_bandwidth;
// DeepGEMM's FP8 tables on H800, README of 2025-02: 1.5-2.7 TB/s of 3.35 for dense GEMMs at
// M = 64-128, 0.9-2.1 TB/s for the masked grouped GEMMs of MoE decode, i.e. 0.27-0.62 of peak).
// Fitted with attention-dp-serial on the fit half's six MoE under-load rows only (`ridge validate
// --fit`, its last line; grid 0.20 to 0.90 by 0.025 × serial 0 to 1 by 0.1): fit-half mean |error|
// 18.1% at 0.90 (as the dense decode, serial 0.6), 10.3% at 0.25, 8.5% at 0.30 with serial 0.5
// (the minimum), 11.7% at 0.35, 15.8% at 0.50. Held-out MoE under load 31.4% -> 10.1% mean, 68.5%
// -> 17.5% worst. Two constants on six rows; the held-out half would have preferred 0.35-0.40
// (6.6% mean), which the fit half does not choose, so it is not used.
// perf9s (2026-12-07): refitted with kServeMoeLayerOverhead below (the fixed cost the low share had
// been standing in for at small per-expert batches), 0.30 -> 0.40, serial 0.5 -> 0.4: fit-half mean
// of the six rows 8.5% -> 9.5% (the 15-row objective below chose it), held-out 10.1% -> 8.6%.
inline constexpr const char* kServeExpertBandwidthEfficiency = "0.400";
// The same share for experts stored in 4 bits (int4, fp4: weight-only kernels that dequantize in
// registers, e.g. the MXFP4 MoE kernels gpt-oss runs on Hopper), fitted apart because one share did
// not hold both kernels: after the disaggregated deployment (SGLang, gpt-oss-120b MXFP4 on H200)
// joined the ledger, 0.30 put its decode 24-81% slow, and one share fitted on both kernels' fit
// rows (0.575, serial 0.6: fit 14.2%) moved the held-out TensorRT-LLM FP8 rows from 10.1% to 18.7%.
// Fitted on the fit half's nine TPOT rows of that deployment only (`ridge validate --fit`, grid
// 0.20 to 0.90 by 0.025; 2026-12-07), the 8-bit share above unchanged.
// perf7s (2026-12-07): refitted on the same nine rows once serve-rate read gpt-oss as it ships
// (quantization_config: MXFP4 experts at 4.25 bits, attention, router, embedding and head in bf16)
// instead of every weight at 4 bits: 0.575 -> 0.650, fit-half TPOT mean 13.2% (0.575 was fitted
// with the non-expert weights 4x too light and the experts' scale bytes left out).
// perf9s (2026-12-07): refitted with kServeMoeLayerOverhead below, 0.650 -> 0.900 (the grid's
// ceiling, the dense decode's share, kServeBandwidthEfficiency): fit-half TPOT mean 13.2% -> 7.7%.
// With no per-MoE-layer cost the share stood in for a fixed cost: the measured TPOT of the small
// decode batches (about 7-8 ms at 5-8 sequences per server) sits 2-3 ms above the priced bytes.
inline constexpr const char* kServeExpertBandwidthEfficiency4bit = "0.900";
// perf9s (2026-12-07): the fixed cost an MoE layer adds to each forward pass beyond kServeLayerOverhead,
// which was fitted on dense Llama rows: the routing launches kernels a dense MLP does not (the router
// GEMM, top-k, the sort or histogram of token indices by expert, the gather before and the scatter-
// combine after the grouped GEMMs), each a short kernel whose time at a decode batch is its launch
// and ramp, not its bytes. No source states its size; fitted on the fit half only (`ridge validate
// --fit`, grid 0 to 150 us by 5 us, each of the MoE constants below it refitted at each point):
// bench/README.md (perf9s) gives the grid and the held-out effect. The objective is the fit half's
// fifteen MoE rows a decode step sets (six TensorRT-LLM FP8 rows at maximum load, nine SGLang
// gpt-oss TPOT rows), mean |error| 11.3% at 0 us, 8.4% at 80 us (the minimum), 19.8% at 150 us. At
// about 5 us per short kernel in a CUDA graph, 80 us is some 15 kernels; not counted from source.
inline constexpr const char* kServeMoeLayerOverhead = "80us";

// perf6s (issue 31, the prefill-to-decode handoff of a disaggregated deployment, serving_model.h
// Disaggregation): the fixed part of the handoff, what is not a decode step (the router's hops,
// the bootstrap server, the CPU all-reduce of each poll, the transfer engine's notification; SGLang's
// PR 26780, "optimistic prefill", names the same wait: the prefill waits for the bootstrap, whose
// time is the skew between the two schedulers, the decode's allocation and the handshake).
// No source states its size; fitted on the fit half's nine disaggregated TTFT rows only (`ridge
// validate --fit`, grid 0 to 200 ms by 5 ms, with the decode steps below in place): see the
// bench/README.md section of 2026-12-07 (perf6s) for the grid and the held-out effect.
// perf9s (2026-12-07): refitted with the MoE constants above, 105 ms -> 100 ms.
inline constexpr const char* kServePdHandoffLatency = "100ms";
// Not fitted: the decode steps of the handoff, counted from SGLang's decode server (python/sglang/
// srt/disaggregation/decode.py, the life cycle in its docstring; each queue is polled once per
// scheduler iteration): half a step on average for the handshake and pre-allocation poll that the
// prefill waits for, half a step for the transfer poll after the KV lands, and one step for the
// join: SchedulerDisaggregationDecodeMixin.get_next_disagg_decode_batch_to_run runs the new
// PrebuiltExtendBatch (no forward) in place of that iteration's decode step, and the overlap
// scheduler processes its result, which streams the first token, while the next step runs.
inline constexpr const char* kServePdHandoffDecodeSteps = "2";

// perf8s (issue 31, short prefills' GEMM shapes, gemm_waves.h): the output tile of one thread
// block of the prefill's GEMMs, rows × columns. 128 × 128, one of the tiles cuBLAS chooses among
// by heuristics (NVIDIA's Matrix Multiplication Background User's Guide lists 256 × 128 down to
// 64 × 64; larger tiles reuse more data, smaller ones give a small GEMM more blocks) and the
// square tile of cuBLASLt's Hopper FP8 kernels. An assumption per library, not a measured figure
// and not fitted: bench/README.md (perf8s) gives the fit half with 64 × 128 (CUTLASS's Hopper FP8
// example), 128 × 256, 64 × 256 and 256 × 128.
inline constexpr const char* kServeGemmTileM = "128";
inline constexpr const char* kServeGemmTileN = "128";
// The two parameters (serve and serve-rate) and what a pass's GEMMs cost with them: the dense
// transformer's GEMMs by tiles and waves on the catalog's SMs, or 0 when the model or the chip
// has no such figure (the caller keeps the FLOP count).
std::vector<ParamSpec> gemm_tile_params();
struct WavePricing {
  bool on = false;
  double seconds = 0;     // every GEMM of the pass: Σ count × max(waves × tile time, weights ÷ bandwidth)
  std::string formula, substituted;  // for the derivation
};
WavePricing price_pass_gemms(const Inputs& in, const ModelArch& m, const Accelerator& gpu, double tp, double rows,
                             double gemm_rate, double weight_bytes, double bandwidth);

// ---- fixed assumptions, not fitted ----
// One small all-reduce on NVLink costs about this much before its bytes (launch, the
// synchronisation between the ranks); an assumption of the order nccl-tests and TensorRT-LLM's
// custom all-reduce show for messages of a few kilobytes, not fitted.
inline constexpr const char* kAllReduceLatency = "10us";

// ---- which TP all-reduce the engine runs (perf7s, issue 31), shared by serve and serve-rate.
// --allreduce custom: a latency-optimised one-shot/two-shot kernel over NVLink: TensorRT-LLM 1.0's
// PyTorch backend (tensorrt_llm/llmapi/llm_args.py, allreduce_strategy default 'AUTO', which picks
// its one-shot/two-shot kernels for the small messages of a decode step), SGLang and vLLM (their
// custom all-reduce, on unless --disable-custom-all-reduce; server_args.py / EngineArgs
// disable_custom_all_reduce = False): --allreduce-latency + the ring's bytes at the link ×
// --link-efficiency, as before (both assumed, not measured here). --allreduce nccl: NCCL, priced by the fabric model
// (estimate_collective: the system's measured nccl-tests all_reduce busbw at the message size,
// the smallest message's time as its floor; TensorRT-LLM v0.5-v0.6 unless the engine was built
// with --use_custom_all_reduce, examples/llama/build.py: "latency-optimized algorithm for
// all-reduce instead of NCCL", off by default).
ParamSpec allreduce_param();
// One TP all-reduce of `bytes` per rank on `tp` GPUs of one node, by the engine's algorithm.
CollectiveEstimate tp_allreduce(const Inputs& in, const Accelerator& gpu, double tp, double bytes, double link,
                                double latency);

// ---- attention data parallelism and expert parallelism (issue 31, MoE serving under load),
// shared by serve and serve-rate.

std::vector<ParamSpec> parallel_params();

// N groups of tp ÷ N GPUs each run the attention of their own sequences; ep ranks hold the
// routed experts (tp ÷ ep GPUs per expert).
struct ParallelLayout {
  double adp = 1, ep = 1, attn_tp = 1, imbalance = 1;
  bool dp_ep = false;  // anything but tensor-parallel attention and experts
};

Result<ParallelLayout> parallel_layout(const Inputs& in, const ModelArch& m, double tp);

// A forward pass's exchanges under attention DP / EP, as fixed seconds plus seconds per token of
// the replica's batch; each term is a derivation step. `busbw_tokens`: the batch whose all-to-all
// message sets the fabric's busbw.
struct LayoutComm {
  double fixed = 0, per_token = 0;
};
LayoutComm layout_comm(const ModelArch& m, const Accelerator& gpu, const ParallelLayout& l, double tp, double link,
                       double ar_latency, double busbw_tokens, Derivation& d);

// What serve and serve-rate both start from: the model, the chip, the dtypes, the dense peak of
// the GEMMs (fp8 weights run fp8 GEMMs, anything else bf16) and a tp that divides the heads.
struct ServingSetup {
  const ModelArch* model = nullptr;
  const Accelerator* gpu = nullptr;
  ServingDtypes dtypes;
  Dtype compute = Dtype::kBf16;
  double peak = 0, tp = 0;
};

Result<ServingSetup> serving_setup(const Inputs& in, const Catalog& catalog);

// ---- serve-rate (calculators_serve_rate.cc)
std::vector<ParamSpec> serve_rate_params();
Result<Derivation> serve_rate(const Inputs& in, const Catalog& catalog);

}  // namespace ridge::calc::serve_detail
