// Training formulas shared by more than one calculator (training-memory, activation-memory,
// pipeline-bubble, layout): each adds its whiteboard steps to the derivation and returns the
// number, so a formula lives in one place and every calculator shows the same chain.
#pragma once

#include <cstdint>
#include <string>

#include "calc/derivation.h"
#include "calc/result.h"

namespace ridge::calc::detail {

// Activation bytes one transformer layer stores for the backward pass, after Korthikanti et
// al. 2022, "Reducing Activation Recomputation in Large Transformer Models", eq. 1-2 and
// Table 2. At 2-byte activations (with 1-byte dropout masks), per layer:
//   no parallelism                 s·b·h·(34 + 5·a·s/h)
//   tensor parallel t              s·b·h·(10 + 24/t + 5·a·s/(h·t))
//   tensor + sequence parallel     s·b·h/t·(34 + 5·a·s/h)
//   selective recompute            s·b·h·(10 + 24/t), or s·b·h·34/t with sequence parallel
//   full recompute                 2·s·b·h (the layer input), ÷ t with sequence parallel
// For e-byte activations the 2-byte terms scale: 34 -> 16e + 2, 10 -> 4e + 2, 24 -> 12e,
// 5 -> 2e + 1, 2 -> e (masks stay 1 byte).
struct ActivationShape {
  double seq = 0;         // s, tokens per sequence on this rank (after context parallelism)
  double micro_batch = 0; // b
  double hidden = 0;      // h
  double heads = 0;       // a
  double tp = 1;          // t
  bool sequence_parallel = false;
  std::string recompute = "none";  // none | selective | full
  double bytes = 2;       // e, bytes per activation element
};
double activation_bytes_per_layer(const ActivationShape& s, Derivation& d);
// The paper's citation and the layer it models, as assumptions.
void assume_activation_model(const ActivationShape& s, Derivation& d);

// Mixed-precision training state per GPU under ZeRO (Rajbhandari et al. 2020, section 3.1):
// bf16 weights (2 B) and gradients (2 B), plus the optimizer's fp32 master copy and moments
// (Adam 12 B, SGD with momentum 8 B), the sharded parts divided over `shard_gpus`.
struct TrainingState {
  double bytes_per_param = 0;
  double state_bytes = 0;
  double per_gpu_bytes = 0;
};
// `what` names the parameters in the step labels ("" for the model, "expert" ...).
TrainingState training_state(double params, double shard_gpus, int zero_stage, bool adam, Derivation& d,
                             const std::string& what = "");
void assume_training_state(bool adam, Derivation& d);

// Pipeline bubble (Narayanan et al. 2021, section 2.2): (p − 1)/v idle microbatch slots
// against m microbatches; returns the idle fraction idle / (m + idle).
double bubble_fraction(double stages, double microbatches, double virtual_stages, Derivation& d);


// How a pipeline of `pp` stages (each `vp` virtual chunks) places a model's transformer layers,
// by Megatron-LM's rules (megatron/core/transformer/transformer_config.py,
// TransformerConfig.__post_init__, and transformer_block.get_num_layers_to_build):
//  - even: pp × vp divides the layers;
//  - --account-for-embedding-in-pipeline-split / --account-for-loss-in-pipeline-split: the
//    embedding and the loss (the output layer and cross-entropy) each take one layer's slot on
//    the first and the last stage; layers + slots must divide by pp, and the slots per stage by
//    vp ("num_layers ... must be divisible by pipeline_model_parallel_size", then "number of
//    layers on each pipeline rank ... must be divisible by virtual_pipeline_model_parallel_size");
//  - --decoder-first-pipeline-num-layers / --decoder-last-pipeline-num-layers (Megatron-Core's
//    num_layers_in_first/last_pipeline_stage): given counts on the first and last stage, each a
//    multiple of vp; the rest split evenly over the middle stages, again a multiple of vp each.
//    Megatron-Core takes the explicit counts over the accounting ("elif"), so ridge refuses both
//    at once rather than silently dropping one.
struct PipelineRequest {
  int64_t layers = 0;
  int64_t pp = 1, vp = 1;
  bool account_embedding = false, account_loss = false;
  int64_t first_layers = 0, last_layers = 0;  // 0: not given
};
struct PipelineSplit {
  // Transformer layers on the first, on each middle and on the last physical stage (all of a
  // stage's virtual chunks together). With pp = 1 all three are the whole model.
  double first = 0, middle = 0, last = 0;
  bool embedding_slot = false, loss_slot = false;  // the embedding / loss take a layer's slot
  std::string rule;                                 // how the layers were placed, for the derivation
};
// Errors name the field ("pp", "first-stage-layers", ...) and, for a layout the even split refuses,
// the framework option that makes it valid.
Result<PipelineSplit> pipeline_split(const PipelineRequest& r);

}  // namespace ridge::calc::detail
