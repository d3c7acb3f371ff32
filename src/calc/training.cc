#include "calc/training.h"

#include <utility>
#include <vector>

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
                           '(' + num(w) + " + " + num(g) + " + " + num(o) + ") B × " + num(params), (w + g + o) * params,
                           Unit::kBytes);
  return s;
}

double bubble_fraction(double stages, double microbatches, double virtual_stages, Derivation& d) {
  double idle = d.step("Idle per step", "(p − 1) / v microbatch slots",
                       '(' + num(stages) + " − 1) / " + num(virtual_stages), (stages - 1) / virtual_stages, Unit::kNone);
  return d.step("Bubble fraction", "idle / (m + idle)",
                format_significant(idle, 4) + " / (" + num(microbatches) + " + " + format_significant(idle, 4) + ")",
                idle / (microbatches + idle), Unit::kRatio);
}


namespace {

std::string i(int64_t v) { return num(static_cast<double>(v)); }

// The framework options that would make an even split that fails valid, for the refusal's
// "accepted": the accounting of the embedding and the loss, explicit first/last stage counts,
// and the pp × vp that divide the layers. Tries at most three middle-stage sizes.
std::string uneven_options(int64_t layers, int64_t pp, int64_t vp) {
  std::vector<std::string> out;
  const int64_t slots = pp * vp;
  if ((layers + 2) % slots == 0) {
    out.push_back("--account-for-embedding on --account-for-loss on (Megatron-LM's "
                  "--account-for-embedding-in-pipeline-split --account-for-loss-in-pipeline-split: (" +
                  i(layers) + " + 2) ÷ (" + i(pp) + " × " + i(vp) + ") = " + i((layers + 2) / slots) +
                  " slots per virtual stage)");
  }
  if ((layers + 1) % slots == 0) {
    out.push_back("--account-for-loss on, or --account-for-embedding on (Megatron-LM's "
                  "--account-for-loss-in-pipeline-split: (" + i(layers) + " + 1) ÷ (" + i(pp) + " × " + i(vp) +
                  ") = " + i((layers + 1) / slots) + ")");
  }
  if (pp >= 2) {
    // k layers on each of the pp − 2 middle stages (a multiple of vp); the rest split between the
    // first and the last stage, each a positive multiple of vp and at most k (balanced).
    const int64_t base = layers / slots * vp;
    for (int64_t k : {base + vp, base}) {
      if (k < vp) continue;
      const int64_t rest = layers - (pp - 2) * k;
      if (rest < 2 * vp || rest % vp != 0) continue;
      const int64_t first = rest / 2 / vp * vp, last = rest - first;
      if (first < vp || last > k || first > k) continue;
      out.push_back("--first-stage-layers " + i(first) + " --last-stage-layers " + i(last) +
                    " (Megatron-LM's --decoder-first-pipeline-num-layers / --decoder-last-pipeline-num-layers; " +
                    count_of(static_cast<long double>(k), "layer") + " on each middle stage)");
      break;
    }
  }
  out.push_back("pp × vp dividing " + i(layers) + " (" + divisors(layers) + ")");
  std::string text;
  for (const auto& o : out) text += (text.empty() ? "" : "; or ") + o;
  return text;
}

}  // namespace

Result<PipelineSplit> pipeline_split(const PipelineRequest& r) {
  PipelineSplit s;
  const int64_t L = r.layers, pp = r.pp, vp = r.vp;
  const bool explicit_counts = r.first_layers > 0 || r.last_layers > 0;
  const bool accounting = r.account_embedding || r.account_loss;
  if (pp == 1) {
    if (explicit_counts) {
      return FieldError{r.first_layers > 0 ? "first-stage-layers" : "last-stage-layers",
                        i(r.first_layers > 0 ? r.first_layers : r.last_layers), "needs pipeline parallelism",
                        "0 (not set) when --pp is 1"};
    }
    s.first = s.middle = s.last = static_cast<double>(L);
    s.rule = "one stage holds all " + i(L) + " layers";
    return s;
  }
  if (explicit_counts && accounting) {
    return FieldError{"first-stage-layers", i(r.first_layers > 0 ? r.first_layers : r.last_layers),
                      "is set together with --account-for-embedding/--account-for-loss; Megatron-Core takes the "
                      "explicit counts and ignores the accounting",
                      "either explicit first/last stage layers or the accounting, not both"};
  }
  if (explicit_counts) {
    Errors errors;
    int64_t rest = L, middle_stages = pp;
    for (auto [field, n] : {std::pair<const char*, int64_t>{"first-stage-layers", r.first_layers},
                            std::pair<const char*, int64_t>{"last-stage-layers", r.last_layers}}) {
      if (n == 0) continue;
      if (n % vp != 0) {
        errors.push_back({field, i(n), "is not a multiple of vp = " + i(vp) +
                                           " (Megatron-LM: \"number of layers at first/last stage must be divisible "
                                           "by virtual pipeline parallel degree\")",
                          "a multiple of " + i(vp)});
      }
      rest -= n;
      middle_stages -= 1;
    }
    if (rest < 0 || (middle_stages == 0 && rest != 0)) {
      errors.push_back({"first-stage-layers", i(r.first_layers),
                        "and --last-stage-layers " + i(r.last_layers) + " leave " + i(rest) + " of the " + i(L) +
                            " layers for " + count_of(static_cast<long double>(middle_stages), "middle stage"),
                        "first + last at most " + i(L) + (middle_stages == 0 ? ", and equal to it with pp = 2" : "")});
    } else if (middle_stages > 0 && (rest % middle_stages != 0 || (rest / middle_stages) % vp != 0)) {
      errors.push_back({"pp", i(pp),
                        "leaves " + count_of(static_cast<long double>(rest), "layer") + " for " +
                            count_of(static_cast<long double>(middle_stages), "middle stage") +
                            ", not a whole multiple of vp = " + i(vp) + " each",
                        "first and last stage layers that leave the middle stages k × " + i(vp) + " layers each"});
    }
    if (!errors.empty()) return errors;
    s.middle = middle_stages > 0 ? static_cast<double>(rest / middle_stages) : 0;
    s.first = r.first_layers > 0 ? static_cast<double>(r.first_layers) : s.middle;
    s.last = r.last_layers > 0 ? static_cast<double>(r.last_layers) : s.middle;
    s.rule = "first stage " + count_of(s.first, "layer") + ", last " + num(s.last) + ", each of the " +
             count_of(static_cast<long double>(pp - 2), "middle stage") + " " + num(s.middle) +
             " (Megatron-LM --decoder-first-pipeline-num-layers / --decoder-last-pipeline-num-layers)";
    return s;
  }
  if (accounting) {
    const int64_t n = L + (r.account_embedding ? 1 : 0) + (r.account_loss ? 1 : 0);
    if (n % pp != 0 || (n / pp) % vp != 0) {
      return FieldError{"pp", i(pp),
                        "× vp (" + i(vp) + ") does not divide the " + i(L) + " layers plus the " +
                            i(n - L) + " slot(s) of the embedding and the loss (" + i(n) + ")",
                        uneven_options(L, pp, vp)};
    }
    s.embedding_slot = r.account_embedding;
    s.loss_slot = r.account_loss;
    s.middle = static_cast<double>(n / pp);
    s.first = s.middle - (r.account_embedding ? 1 : 0);
    s.last = s.middle - (r.account_loss ? 1 : 0);
    s.rule = "(" + i(L) + " layers + " + i(n - L) + " slot(s)) ÷ " + i(pp) + " stages = " + i(n / pp) +
             " slots per stage; the " + std::string(r.account_embedding ? "embedding takes one on the first stage" : "") +
             (r.account_embedding && r.account_loss ? " and the " : "") +
             (r.account_loss ? "loss one on the last" : "") +
             " (Megatron-LM --account-for-embedding/loss-in-pipeline-split)";
    return s;
  }
  if (L % (pp * vp) != 0) {
    return FieldError{"pp", i(pp), "× vp (" + i(vp) + ") does not divide the " + i(L) + " layers",
                      uneven_options(L, pp, vp)};
  }
  s.first = s.middle = s.last = static_cast<double>(L / pp);
  s.rule = i(L) + " layers ÷ " + i(pp) + " stages = " + i(L / pp) + " each";
  return s;
}

}  // namespace ridge::calc::detail
