// The `step` calculator's inputs (calculators_perf.cc prices them) and the fitted constants that
// are their defaults: split from calculators_perf.cc when it reached 600 lines (perf8t).
#include <vector>

#include "calc/perf_common.h"

namespace ridge::calc::detail {
namespace {

// ---- fitted constants (`ridge validate --fit` reproduces them) ----
// The only numbers chosen to match measurements: fitted on the "fit" half of the runs only (no
// run ever moves) by the grid search in src/cli/validate_fit.cc. Refit of issue 31's second
// pass (43 training, 16 serving runs); each refit's effect on the HELD-OUT mean |error| shows:
// GEMM efficiency = e_max · I / (I + I_half), where I = 1 / (1/M + 1/K + 1/N) is the per-GPU
// MLP-up GEMM's intensity in FLOP per element moved (M = tokens of a micro-batch on the GPU,
// K = hidden size, N = MLP width / tp). Fitted on the 12 dense "fit" training runs (e_max in
// steps of 0.005, I_half over 0-500): the lowest mean absolute error among the constants whose
// worst error there is within the 20%. Was 0.62 and 25 (fitted on 11 runs, before
// uneven stages and the fabric model). Refit 1 (after the MoE terms): 0.605 and 0, held-out
// dense bf16 10.8% -> 11.1%, fp8 6.3% -> 6.6% (it helped the fitted half only). Refit 2, after
// the 2021-22 runs got their unfused attention (the scores through HBM, a stated input from
// each source's date): 0.650 and 0 (fit half: mean 7.9%, worst 19.3%; the shape term drops
// out), held-out dense bf16 10.8% -> 7.3% (worst 31.7% -> 16.4%: Narayanan 1.7B +31.7% ->
// +3.9%), dense fp8 6.6% -> 4.4%.
constexpr const char* kGemmEfficiencyMax = "0.65";
constexpr const char* kGemmHalfIntensity = "0";
// Host time per local expert per MoE layer (forward + backward), fitted on the 7 MoE "fit" runs
// (0-2 ms by 25 us): 875 us while it hid the whole micro-batch (fit 30.3%, held-out MoE fp8 44.9%);
// 500 us since it hides only the expert GEMMs (perf5: fit 30.0%, held-out 28.3%, worst 126.8 -> 55.3%).
// perf6t, the HybridEP rows stating their dispatcher: still 500 us (fit 30.3%, held-out MoE fp8 23.1%).
// perf7t: launches per expert by recipe (training_moe.h) × a time per launch: fit half best at
// 142.5 us, 28.6% (held-out MoE fp8 56.1%); not applied (it fails the MoE fp8 gate). See bench/README.
// perf8t, the 26.02 rows in the fit half (16 MoE runs): the per-expert optimum moved to 675 us (fit
// MoE 24.9% -> 22.4%, held-out MoE fp8 19.7% -> 27.5%, above its gate); it now applies only with
// --moe-host-per-launch 0.
constexpr const char* kMoeHostPerExpert = "675us";
// CPU time per launch of a local expert's kernels (training_moe.h counts them per recipe),
// fitted on the 16 MoE "fit" runs (2.5-200 us by 2.5 us): 50 us (fit MoE 23.7%; held-out MoE fp8
// 19.7% -> 13.6%, worst 55.3% -> 24.3%; training held-out 14.7% -> 13.0%). perf7t read 56 us off
// the held-out H100 FP8-CS row and did not apply it: the fit half then held no current-scaling MoE
// row and its optimum was 142.5 us. A bare launch with PyTorch's dispatch is 5-25 us; the rest is
// the per-expert CPU work around it (bench/README.md, perf7t).
constexpr const char* kMoeHostPerLaunch = "50us";

// Latency alpha of a collective with no measured figure (NCCL's launch and ring sync; the catalog's
// measured 1 KB all-reduces take 15-26 us); assumed, not fitted.
constexpr const char* kCollectiveLatency = "20us";

}  // namespace

std::vector<ParamSpec> step_params() {
  return {
      model_param(), config_param(), gpu_param(),
      count("gpus", Unit::kCount, "GPUs in the run", 1, 1e7, "", true, "3072"),
      count("tp", Unit::kCount, "tensor-parallel size", 1, 1024, "1"),
      count("pp", Unit::kCount, "pipeline-parallel stages", 1, 1024, "1"),
      count("cp", Unit::kCount, "context-parallel size", 1, 1024, "1"),
      count("ep", Unit::kCount, "expert-parallel size (MoE)", 1, 4096, "1"),
      count("expert-tp", Unit::kCount,
            "tensor-parallel size of the experts (Megatron-Core --expert-tensor-parallel-size); 0 = tp, its default. "
            "Below tp the EP group folds into the TP ranks (MoE parallel folding): ep × expert-tp divides tp × dp × cp",
            0, 1024, "0"),
      count("vp", Unit::kCount, "virtual stages per GPU (interleaved 1F1B)", 1, 256, "1"),
      choice("account-for-embedding", {"off", "on"}, "off",
             "the embedding takes one layer's slot on the first pipeline stage (Megatron-LM "
             "--account-for-embedding-in-pipeline-split)"),
      choice("account-for-loss", {"off", "on"}, "off",
             "the output layer and loss take one layer's slot on the last pipeline stage (Megatron-LM "
             "--account-for-loss-in-pipeline-split)"),
      count("first-stage-layers", Unit::kCount,
            "transformer layers on the first pipeline stage; 0 splits evenly (Megatron-LM "
            "--decoder-first-pipeline-num-layers)",
            0, 1e6, "0"),
      count("last-stage-layers", Unit::kCount,
            "transformer layers on the last pipeline stage; 0 splits evenly (Megatron-LM "
            "--decoder-last-pipeline-num-layers)",
            0, 1e6, "0"),
      count("seq", Unit::kTokens, "sequence length", 1, 1e8, "", true, "2048"),
      count("micro-batch", Unit::kCount, "sequences per micro-batch", 1, 1e6, "1"),
      count("global-batch", Unit::kCount, "sequences per iteration", 1, 1e9, "", true, "1536"),
      choice("recompute", {"none", "selective", "full"}, "selective",
             "activation recomputation: none, selective (attention core, Korthikanti et al. 2022) or full"),
      choice("recompute-modules", {"none", "layernorm", "moe_act", "layernorm,moe_act"}, "none",
             "modules whose forward the backward pass runs again, beside --recompute (Megatron-Core's "
             "--recompute-modules with selective granularity; Megatron-Bridge's gpt-oss recipes on GB200, B200 and "
             "H100 set layernorm and moe_act): layernorm, the pre-MLP norm of each MoE layer; moe_act, the experts' "
             "gated activation. Both memory-bound"),
      choice("sequence-parallel", {"on", "off"}, "on", "sequence parallelism with TP (Korthikanti et al. 2022)"),
      dtype_param("dtype", "GEMM dtype (bf16 or fp8)", "bf16"),
      choice("fp8-recipe", {"delayed", "current", "block", "mxfp8"}, "delayed",
             "FP8 scaling recipe (Transformer Engine): delayed (amax history), current (per-tensor amax of this "
             "tensor: one more read), block (1×128 / 128×128 blocks) or mxfp8 (Blackwell's 32-element blocks)"),
      zero_or_more("moe-imbalance", Unit::kRatio,
                   "load imbalance of the routed experts: the busiest expert rank's tokens ÷ the mean − 1 (stated; "
                   "0 = perfectly balanced)",
                   10, "0"),
      choice("attention-kernel", {"flash", "unfused"}, "flash",
             "attention kernel: flash (FlashAttention: the s × s scores stay on chip) or unfused (the scores written to "
             "HBM, then softmax and dropout kernels over them: Megatron-LM and DeepSpeed before FlashAttention, 2022)"),
      zero_or_more("moe-host-per-expert", Unit::kSeconds,
                   "host (CPU) time per local expert per MoE layer, forward and backward: the launches after the "
                   "dispatcher's device-to-host sync (fitted, see ridge validate); used only with "
                   "--moe-host-per-launch 0",
                   1, kMoeHostPerExpert),
      zero_or_more("moe-host-per-launch", Unit::kSeconds,
                   "CPU time per launch of a local expert's GEMMs and casts (training_moe.h counts them by recipe; "
                   "fitted, see ridge validate); above 0 it replaces moe-host-per-expert; 0 for a host that keeps "
                   "ahead of the GPU",
                   1, kMoeHostPerLaunch),
      choice("moe-dispatcher", {"alltoall", "hybridep", "deepep"}, "alltoall",
             "token dispatcher: alltoall (Megatron-Core's: permute, send k copies, sort), hybridep or deepep (the "
             "flex dispatcher over HybridEP or DeepEP: one copy per destination rank, permuted out of the receive "
             "buffer)"),
      number("grouped-gemm-efficiency", Unit::kRatio,
             "the experts' grouped GEMM as a share of a plain GEMM of the same shape (stated; 1 = no loss)", 0, 1, "1"),
      zero_or_more("collective-latency", Unit::kSeconds,
                   "latency alpha of a collective without a measured figure in the catalog (assumed 20 us)", 1,
                   kCollectiveLatency),
      number("scale-out-bandwidth", Unit::kBytesPerSecond,
             "per-GPU network bandwidth, one direction (default 25 GB/s on Ampere: one 200 Gb/s HDR HCA per GPU as "
             "in DGX A100; 50 GB/s otherwise: 400 Gb/s NDR)",
             0, 1e15, "", false, "25GB/s"),
      count("gpus-per-node", Unit::kCount,
            "GPUs sharing the scale-up (NVLink) domain (default: the catalog system's domain, 8 without one)", 1, 1e5,
            "", false, "8"),
      number("gemm-efficiency-max", Unit::kRatio, "e_max of the GEMM efficiency law (fitted, see ridge validate)", 0, 1,
             kGemmEfficiencyMax),
      zero_or_more("gemm-half-intensity", Unit::kNone, "I_half of the GEMM efficiency law, FLOP per element (fitted)",
                   1e9, kGemmHalfIntensity),
      number("link-efficiency", Unit::kRatio, "collective bus bandwidth as a share of the link (assumed 0.7, nccl-tests)",
             0, 1, kLinkEfficiency),
      optional_zero("dp-overlap", Unit::kRatio,
                    "share of the DP gradient collectives hidden behind backward (default 0: Megatron-LM's "
                    "--overlap-grad-reduce is off by default, and the published runs of 2021-22 did not overlap, "
                    "Korthikanti et al. 2022 §6.3)",
                    1),
      choice("grad-reduce-dtype", {"auto", "fp32", "bf16", "fp16"}, "auto",
             "dtype of the DP gradient reduction (auto: Megatron-LM's default, fp32 main grads for bf16 and fp8 "
             "training unless --grad-reduce-in-bf16, the parameter dtype for fp16)"),
  };
}

}  // namespace ridge::calc::detail
