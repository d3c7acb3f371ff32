#include "calc/training.h"

#include "calc/common.h"

namespace ridge::calc::detail {

void assume_activation_model(const ActivationShape& s, Derivation& d) {
  d.assume("activations after Korthikanti et al. 2022, \"Reducing Activation Recomputation in Large Transformer "
           "Models\" (eq. 1-2, Table 2): a GPT layer with a 4h GeLU MLP, dropout after attention and the MLP, "
           "16-bit activations and 1-byte dropout masks");
  if (s.bytes != 2) {
    d.assume("activations of " + num(s.bytes) + " B: the paper's 2-byte terms scale, 34 → 16e + 2, 10 → 4e + 2, "
             "24 → 12e, 5 → 2e + 1, 2 → e (the masks stay 1 byte)");
  }
  if (s.recompute == "selective") {
    d.assume("selective recomputation keeps no attention scores (the 5·a·s/h term): the softmax and its dropout are "
             "recomputed, as FlashAttention does by design");
  } else if (s.recompute == "full") {
    d.assume("full recomputation stores only each layer's input and recomputes the layer in the backward pass "
             "(about one more forward pass of compute)");
  }
  if (s.sequence_parallel && s.tp > 1) {
    d.assume("sequence parallelism splits the layer norms and dropouts along the sequence across the " + num(s.tp) +
             " tensor-parallel ranks, so no activation is replicated");
  }
  d.assume("models trained without dropout (Llama and most since) store 2·s·b·h + a·s²·b bytes less per layer, before any split; "
           "the paper's figure is kept as the upper bound");
}

double activation_bytes_per_layer(const ActivationShape& s, Derivation& d) {
  const double e = s.bytes;
  const double c34 = 16 * e + 2, c10 = 4 * e + 2, c24 = 12 * e, c5 = 2 * e + 1, c2 = e;
  const double sbh = s.seq * s.micro_batch * s.hidden;
  const double t = s.tp;
  const bool split = s.sequence_parallel || t == 1;  // every term divided by t
  const std::string sbh_sub = num(s.seq) + " × " + num(s.micro_batch) + " × " + num(s.hidden);
  const std::string ash = num(s.heads) + " × " + num(s.seq) + " ÷ " + num(s.hidden);
  const std::string tdiv = t == 1 ? "" : " ÷ t";
  const std::string tnum = t == 1 ? "" : " ÷ " + num(t);
  std::string label = "Activations per layer";
  if (s.recompute == "full") {
    double v = c2 * sbh / (split ? t : 1);
    return d.step(label + " (full recompute)", num(c2) + " × s × b × h" + (split ? tdiv : ""),
                  num(c2) + " × " + sbh_sub + (split ? tnum : ""), v, Unit::kBytes);
  }
  if (s.recompute == "selective") {
    if (split) {
      return d.step(label + " (selective recompute)", "s × b × h × " + num(c34) + tdiv,
                    sbh_sub + " × " + num(c34) + tnum, sbh * c34 / t, Unit::kBytes);
    }
    return d.step(label + " (selective recompute)", "s × b × h × (" + num(c10) + " + " + num(c24) + " ÷ t)",
                  sbh_sub + " × (" + num(c10) + " + " + num(c24) + " ÷ " + num(t) + ")", sbh * (c10 + c24 / t),
                  Unit::kBytes);
  }
  const double as_h = s.heads * s.seq / s.hidden;
  if (split) {
    return d.step(label, "s × b × h" + tdiv + " × (" + num(c34) + " + " + num(c5) + " × a × s ÷ h)",
                  sbh_sub + tnum + " × (" + num(c34) + " + " + num(c5) + " × " + ash + ")",
                  sbh / t * (c34 + c5 * as_h), Unit::kBytes);
  }
  return d.step(label, "s × b × h × (" + num(c10) + " + " + num(c24) + " ÷ t + " + num(c5) + " × a × s ÷ (h × t))",
                sbh_sub + " × (" + num(c10) + " + " + num(c24) + " ÷ " + num(t) + " + " + num(c5) + " × " + ash +
                    " ÷ " + num(t) + ")",
                sbh * (c10 + c24 / t + c5 * as_h / t), Unit::kBytes);
}

void assume_training_state(bool adam, Derivation& d) {
  d.assume("mixed precision: bf16 weights and gradients, fp32 master copy in the optimizer state");
  d.assume(adam ? "Adam keeps fp32 master weights, first and second moments: 4 + 4 + 4 = 12 B/param"
                : "SGD with momentum keeps fp32 master weights and momentum: 4 + 4 = 8 B/param");
}

TrainingState training_state(double params, double shard_gpus, int zero_stage, bool adam, Derivation& d,
                             const std::string& what) {
  const double weights_b = 2, grads_b = 2, opt_b = adam ? 12 : 8;
  const std::string tag = what.empty() ? "" : " (" + what + ")";
  TrainingState s;
  s.bytes_per_param = d.step("Bytes per parameter" + tag, "weights + gradients + optimizer",
                             num(weights_b) + " + " + num(grads_b) + " + " + num(opt_b), weights_b + grads_b + opt_b,
                             Unit::kBytes);
  s.state_bytes = d.step("State" + tag, "params × bytes per parameter", num(params) + " × " + num(s.bytes_per_param) + " B",
                         params * s.bytes_per_param, Unit::kBytes);
  double w = weights_b, g = grads_b, o = opt_b;
  std::string formula;
  switch (zero_stage) {
    case 0: formula = "(w + g + o) × params"; break;
    case 1: o /= shard_gpus; formula = "(w + g + o / gpus) × params"; break;
    case 2: o /= shard_gpus; g /= shard_gpus; formula = "(w + (g + o) / gpus) × params"; break;
    default: o /= shard_gpus; g /= shard_gpus; w /= shard_gpus; formula = "(w + g + o) / gpus × params"; break;
  }
  s.per_gpu_bytes = d.step("State per GPU (ZeRO-" + std::to_string(zero_stage) + ")" + tag, formula,
                           "(" + num(w) + " + " + num(g) + " + " + num(o) + ") B × " + num(params), (w + g + o) * params,
                           Unit::kBytes);
  return s;
}

double bubble_fraction(double stages, double microbatches, double virtual_stages, Derivation& d) {
  double idle = d.step("Idle per step", "(p − 1) / v microbatch slots",
                       "(" + num(stages) + " − 1) / " + num(virtual_stages), (stages - 1) / virtual_stages, Unit::kNone);
  return d.step("Bubble fraction", "idle / (m + idle)",
                format_significant(idle, 4) + " / (" + num(microbatches) + " + " + format_significant(idle, 4) + ")",
                idle / (microbatches + idle), Unit::kRatio);
}

}  // namespace ridge::calc::detail
