// Memory calculators: will a model fit for serving (fit), what training state costs
// (training-memory), and the attention score matrix FlashAttention avoids (attention).
#include <cmath>

#include "calc/common.h"
#include "calc/training.h"

namespace ridge::calc {
namespace {

using namespace detail;

std::vector<ParamSpec> fit_params() {
  return {
      model_param(),
      config_param(),
      gpu_param(),
      count("gpus", Unit::kCount, "accelerators holding the model (tensor-parallel group)", 1, 65536, "1"),
      count("context", Unit::kTokens, "tokens per sequence (prompt + output); k = 1,000, Ki = 1,024", 1,
            1e8, "", true, "32768"),
      count("sequences", Unit::kCount, "concurrent sequences to check (optional)", 1, 1e7),
      dtype_param("weights-dtype",
                  "storage dtype of every weight (default: as the checkpoint ships them, its quantization_config, "
                  "else bf16)",
                  ""),
      weights_group_param(),
      dtype_param("kv-dtype", "storage dtype of the KV cache (default: as --weights-dtype, else bf16)", ""),
      state_dtype_param(),
      number("reserve", Unit::kRatio, "fraction of memory held back for activations, CUDA graphs, fragmentation",
             0, 0.9, "0.10"),
      attention_param(),
  };
}

Result<Derivation> fit(const Inputs& in, const Catalog& catalog) {
  auto model = resolve_model(in, catalog);
  if (!model) return model.errors();
  const ModelArch& m = **model;
  const Accelerator& gpu = *in.gpu();
  auto dtypes = serving_dtypes(in, gpu);
  if (!dtypes) return dtypes.errors();
  const Dtype kvd = dtypes->kv;
  const double gpus = in.number("gpus");
  const double context = in.number("context");
  const double reserve = in.number("reserve");

  Derivation d("fit", "Will " + m.id + " fit on " + num(gpus) + " × " + gpu.id + "?");
  describe_model(d, m, in.has("config") ? "config" : "model");
  describe_gpu(d, gpu);
  auto storage = weight_storage(m, in);
  if (!storage) return storage.errors();
  describe_inputs(d, in, fit_params(), implied_weights(*storage));
  if (!storage->as_shipped && !m.shipped_quantization.empty()) {
    d.assume("the checkpoint ships " + m.shipped_quantization + " weights (quantization_config); weights are sized at --weights-dtype");
  }
  d.assume((gpus == 1 ? std::string("weights on one GPU, in ")
                       : "weights stored once across the " + num(gpus) + " GPUs (tensor parallel), in ") +
           (storage->as_shipped ? "the checkpoint's format (quantization_config: " + storage->name +
                                      "); --weights-dtype sizes them at one dtype instead"
                                : storage->name) +
           "; KV cache in " + std::string(dtype_name(kvd)));
  d.assume("the reserve covers activations, CUDA graphs, the framework and fragmentation");
  d.assume("decimal units: 1 GB = 10^9 B; memory as the vendor states it");
  check_context(m, context, d);
  if (m.is_mla()) {
    d.assume("latent attention caches the compressed kv_lora_rank vector plus the rope key, shared by all heads");
  }

  ParamCount p = count_params(m);
  const double kvbytes = dtype_bytes(kvd);
  d.step("Parameters", m.is_moe() ? "every expert resident: shared + experts × moe_layers" : "from config.json",
         m.is_moe() ? num(p.total - p.experts_total) + " + " +
                          num(p.expert) + " × " + num(m.routed_experts) + " × " + num(m.moe_layers)
                    : num(p.total),
         p.total, Unit::kCount);
  double weights = d.step("Weights", storage->formula, storage->substituted, storage->bytes, Unit::kBytes);
  double kv_token = d.step("KV per token", kv_formula(m), kv_substituted(m, kvbytes),
                           kv_elements_per_token(m) * kvbytes, Unit::kBytes);
  const double ssm_bytes = in.has("state-dtype") ? dtype_bytes(in.dtype("state-dtype")) : 0;
  const CacheBytes cache = kv_per_sequence_step(m, kv_token, context, d, kvbytes, ssm_bytes);
  const double kv_seq = cache.total();
  const double replication = kv_replication(m, gpus, in.text("attention"), d);
  const double kv_held = cache_held_per_sequence(cache, replication, d);
  double budget = d.step("Budget", "gpus × memory × (1 − reserve)",
                         num(gpus) + " × " + q(gpu.memory_bytes, Unit::kBytes) + " × (1 − " + num(reserve) + ")",
                         gpus * gpu.memory_bytes * (1 - reserve), Unit::kBytes);
  double free_bytes = d.step("Free for KV", "budget − weights",
                             q(budget, Unit::kBytes) + " − " + q(weights, Unit::kBytes), budget - weights,
                             Unit::kBytes);
  double max_seq = free_bytes <= 0 ? 0 : std::floor(free_bytes / kv_held);
  d.step("Max sequences", replication > 1 ? "floor(free / KV held per sequence)" : "floor(free / KV per sequence)",
         "floor(" + q(std::max(0.0, free_bytes), Unit::kBytes) + " / " + q(kv_held, Unit::kBytes) + ")", max_seq,
         Unit::kCount);
  double kv_total;
  bool fits;
  if (in.has("sequences")) {
    double seqs = in.number("sequences");
    kv_total = d.step("KV for the sequences", replication > 1 ? "sequences × KV held per sequence" : "sequences × KV per sequence",
                      num(seqs) + " × " + q(kv_held, Unit::kBytes), seqs * kv_held, Unit::kBytes);
    fits = free_bytes > 0 && kv_total <= free_bytes;
    d.set_conclusion(
        fits ? "Fits: " + count_of(seqs, "sequence") + " of " + count_of(context, "token") + (seqs == 1 ? " needs " : " need ") +
                   q(kv_total, Unit::kBytes) + " of KV and " + q(free_bytes, Unit::kBytes) + " is free."
             : "Does not fit: " + count_of(seqs, "sequence") + (seqs == 1 ? " needs " : " need ") + q(kv_total, Unit::kBytes) +
                   " of KV but " + q(std::max(0.0, free_bytes), Unit::kBytes) + " is free; at most " +
                   count_of(max_seq, "sequence") + " of " + count_of(context, "token") + (max_seq == 1 ? " fits." : " fit."));
  } else {
    kv_total = max_seq * kv_held;
    fits = max_seq >= 1;
    d.set_conclusion(fits ? "Up to " + count_of(max_seq, "sequence") + " of " + count_of(context, "token") +
                                (max_seq == 1 ? " fits." : " fit.")
                          : "The weights alone leave no room for one sequence of " + count_of(context, "token") + ".");
  }
  d.result("params", p.total, Unit::kCount);
  d.result("weights_bytes", weights, Unit::kBytes);
  d.result("kv_bytes_per_token", kv_token, Unit::kBytes);
  d.result("kv_bytes_per_sequence", kv_seq, Unit::kBytes);
  d.result("state_bytes_per_sequence", cache.state, Unit::kBytes);
  d.result("cache_bytes_held_per_sequence", kv_held, Unit::kBytes);
  d.result("kv_bytes_total", kv_total, Unit::kBytes);
  d.result("budget_bytes", budget, Unit::kBytes);
  d.result("free_bytes", free_bytes, Unit::kBytes);
  d.result("max_sequences", max_seq, Unit::kCount);
  d.result("fits", fits ? 1 : 0, Unit::kBool);
  d.result("kv_replication", replication, Unit::kNone);
  d.result("gpu_memory_bytes", gpu.memory_bytes, Unit::kBytes);
  return d;
}

std::vector<ParamSpec> training_memory_params() {
  ParamSpec optimizer = choice("optimizer", {"adam", "sgd"}, "adam",
                               "adam: bf16 weights and grads, fp32 master, m and v (16 B/param); "
                               "sgd: fp32 master and momentum (12 B/param)");
  return {
      count("params", Unit::kCount, "parameter count (or give --model)", 1, 1e15, "", false, "70B"),
      model_param(),
      config_param(),
      count("gpus", Unit::kCount, "data-parallel GPUs sharing the state", 1, 1e6, "", true, "64"),
      count("zero-stage", Unit::kCount, "0 none, 1 optimizer states, 2 + gradients, 3 + weights (FSDP)", 0, 3, "0"),
      optimizer,
  };
}

Result<Derivation> training_memory(const Inputs& in, const Catalog& catalog) {
  auto model = resolve_model(in, catalog, false);
  if (!model) return model.errors();
  double params;
  Derivation d("training-memory", "Training state per GPU");
  if (*model != nullptr && in.has("params")) {
    return FieldError{"params", in.raw().at("params"), "cannot be combined with --model or --config",
                      "one of --params, --model, --config"};
  }
  if (*model != nullptr) {
    describe_model(d, **model, in.has("config") ? "config" : "model");
    params = count_params(**model).total;
  } else if (in.has("params")) {
    params = in.number("params");
  } else {
    return FieldError{"params", "", "is required (or --model / --config)", "a count such as 70B"};
  }
  describe_inputs(d, in, training_memory_params());
  const double gpus = in.number("gpus");
  const int stage = static_cast<int>(in.number("zero-stage"));
  const bool adam = in.text("optimizer") == "adam";
  assume_training_state(adam, d);
  d.assume("activations, temporary buffers and fragmentation are not included (activation-memory gives the activations)");
  TrainingState st = training_state(params, gpus, stage, adam, d);
  const double per_param = st.bytes_per_param, state = st.state_bytes, per_gpu = st.per_gpu_bytes;
  d.result("bytes_per_param", per_param, Unit::kBytes);
  d.result("state_bytes", state, Unit::kBytes);
  d.result("state_bytes_per_gpu", per_gpu, Unit::kBytes);
  return d;
}

std::vector<ParamSpec> attention_params() {
  return {
      count("seq", Unit::kTokens, "sequence length; k = 1,000, Ki = 1,024", 1, 1e8, "", true, "8192"),
      dtype_param("dtype", "dtype of the score matrix", "fp16"),
      count("heads", Unit::kCount, "attention heads", 1, 4096, "1"),
      count("batch", Unit::kCount, "sequences", 1, 1e6, "1"),
  };
}

Result<Derivation> attention(const Inputs& in, const Catalog&) {
  const double seq = in.number("seq");
  const double heads = in.number("heads");
  const double batch = in.number("batch");
  const double bytes = dtype_bytes(in.dtype("dtype"));
  Derivation d("attention", "The attention score matrix, materialized");
  describe_inputs(d, in, attention_params());
  d.assume("standard attention writes the seq × seq scores (and the softmax) to memory; FlashAttention never does");
  double per_head = d.step("Scores per head", "seq × seq × bytes", num(seq) + " × " + num(seq) + " × " + num(bytes) + " B",
                           seq * seq * bytes, Unit::kBytes);
  double total = d.step("Scores in total", "per head × heads × batch",
                        q(per_head, Unit::kBytes) + " × " + num(heads) + " × " + num(batch),
                        per_head * heads * batch, Unit::kBytes);
  d.result("score_bytes_per_head", per_head, Unit::kBytes);
  d.result("score_bytes_total", total, Unit::kBytes);
  return d;
}

}  // namespace

void register_memory_calculators(Registry& r) {
  r.add({"fit", "Will a model fit for serving: weights, KV per token and sequence, max concurrent sequences",
         fit_params(),
         {"params", "weights_bytes", "kv_bytes_per_token", "kv_bytes_per_sequence", "kv_bytes_total",
          "budget_bytes", "free_bytes", "max_sequences", "fits", "kv_replication", "gpu_memory_bytes",
          "state_bytes_per_sequence", "cache_bytes_held_per_sequence"},
         "--model llama-3.1-70b --gpu h100-sxm --gpus 8 --context 32768 --sequences 64",
         fit});
  r.add({"training-memory", "Weights, gradients and optimizer state per GPU under ZeRO stages 0 to 3",
         training_memory_params(), {"bytes_per_param", "state_bytes", "state_bytes_per_gpu"},
         "--params 70B --gpus 64 --zero-stage 3", training_memory});
  r.add({"attention", "Bytes of the attention score matrix that tiling avoids", attention_params(),
         {"score_bytes_per_head", "score_bytes_total"}, "--seq 8192 --heads 32 --batch 1", attention});
}

}  // namespace ridge::calc
