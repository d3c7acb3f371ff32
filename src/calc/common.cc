#include "calc/common.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace ridge::calc::detail {

ParamSpec number(std::string name, Unit unit, std::string help, double min, double max,
                 std::string default_value, bool required, std::string example) {
  ParamSpec s;
  s.name = std::move(name);
  s.type = ParamType::kNumber;
  s.unit = unit;
  s.help = std::move(help);
  s.min = min;
  s.max = max;
  s.min_exclusive = min == 0;
  s.default_value = std::move(default_value);
  s.required = required;
  s.example = example.empty() ? s.default_value : std::move(example);
  return s;
}

ParamSpec count(std::string name, Unit unit, std::string help, double min, double max,
                std::string default_value, bool required, std::string example) {
  ParamSpec s = number(std::move(name), unit, std::move(help), min, max, std::move(default_value),
                       required, std::move(example));
  s.type = ParamType::kCount;
  s.min_exclusive = false;
  return s;
}

ParamSpec optional_zero(std::string name, Unit unit, std::string help, double max) {
  ParamSpec s = number(std::move(name), unit, std::move(help), 0, max, "0");
  s.min_exclusive = false;
  return s;
}

ParamSpec choice(std::string name, std::vector<std::string> choices, std::string default_value, std::string help) {
  ParamSpec s;
  s.name = std::move(name);
  s.type = ParamType::kChoice;
  s.choices = std::move(choices);
  s.default_value = std::move(default_value);
  s.required = s.default_value.empty();
  s.example = s.default_value.empty() ? s.choices.front() : s.default_value;
  s.help = std::move(help);
  return s;
}

ParamSpec gpu_param(bool required) {
  ParamSpec s;
  s.name = "gpu";
  s.type = ParamType::kGpu;
  s.required = required;
  s.help = "accelerator id from data/hardware.toml";
  s.example = "h100-sxm";
  return s;
}

ParamSpec model_param(bool required) {
  ParamSpec s;
  s.name = "model";
  s.type = ParamType::kModel;
  s.required = required;
  s.help = "model id from data/models (or give --config)";
  s.example = "llama-3.1-70b";
  return s;
}

ParamSpec config_param() {
  ParamSpec s;
  s.name = "config";
  s.type = ParamType::kConfig;
  s.help = "path to any model's config.json, instead of --model";
  return s;
}

ParamSpec dtype_param(std::string name, std::string help, std::string default_value) {
  ParamSpec s;
  s.name = std::move(name);
  s.type = ParamType::kDtype;
  s.help = std::move(help);
  s.default_value = std::move(default_value);
  s.example = s.default_value.empty() ? "bf16" : s.default_value;
  return s;
}

std::string num(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15) return group_thousands(v);
  return format_significant(v, 4);
}

std::string q(double v, Unit unit) { return format_quantity(v, unit, 4); }

Result<const ModelArch*> resolve_model(const Inputs& in, const Catalog& catalog, bool required) {
  bool by_id = in.has("model");
  bool by_config = in.has("config");
  if (by_id && by_config) {
    return FieldError{"config", in.text("config"), "cannot be combined with --model",
                      "either --model ID or --config PATH"};
  }
  if (!by_id && !by_config) {
    if (!required) return static_cast<const ModelArch*>(nullptr);
    return FieldError{"model", "", "is required (or --config PATH)", catalog.model_list()};
  }
  return in.model();
}

Result<double> peak_for(const Accelerator& gpu, Dtype dtype, const std::string& field) {
  double peak = gpu.peak(dtype);
  if (peak <= 0) {
    return FieldError{field, std::string(dtype_name(dtype)),
                      "is not supported by " + gpu.id + " (" + gpu.name + ")",
                      gpu.supported_dtypes()};
  }
  return peak;
}

Result<bool> check_storage(const Accelerator& gpu, Dtype dtype, const std::string& field) {
  bool needs_hardware = dtype == Dtype::kFp8 || dtype == Dtype::kFp6 || dtype == Dtype::kFp4;
  if (needs_hardware && !gpu.supports(dtype)) {
    std::string accepted = field == "kv-dtype" ? "bf16, fp16, fp32, int8" : gpu.supported_dtypes() + ", or int8/int4 weight-only";
    return FieldError{field, std::string(dtype_name(dtype)), "has no hardware support on " + gpu.id + " (" + gpu.name + ")",
                      accepted};
  }
  return true;
}

Result<ServingDtypes> serving_dtypes(const Inputs& in, const Accelerator& gpu) {
  Dtype wd = in.dtype("weights-dtype");
  Dtype kvd = in.has("kv-dtype") ? in.dtype("kv-dtype") : (wd == Dtype::kInt4 || wd == Dtype::kFp6 ? Dtype::kBf16 : wd);
  if (auto ok = check_storage(gpu, wd, "weights-dtype"); !ok) return ok.errors();
  if (auto ok = check_storage(gpu, kvd, "kv-dtype"); !ok) return ok.errors();
  if (kvd == Dtype::kInt4 || kvd == Dtype::kFp6) {
    return FieldError{"kv-dtype", std::string(dtype_name(kvd)), "is not a KV-cache format serving engines use",
                      "fp32, bf16, fp16, fp8, int8, fp4"};
  }
  return ServingDtypes{wd, kvd};
}

ParamSpec attention_param() {
  return choice("attention", {"tp", "dp"}, "tp",
                "tp: attention split across the GPUs by head (KV replicated when there are fewer KV heads than GPUs); "
                "dp: attention data parallel, one KV copy per sequence");
}

ParamSpec weights_group_param() {
  return count("weights-group", Unit::kCount,
               "size int4/int8 weights as GPTQ and AWQ checkpoints ship them: the layers' matrices at --weights-dtype "
               "with an fp16 scale and a zero point per group of this many weights (128 is common); embedding, head, "
               "norms and routers in bf16",
               8, 1048576);
}

Result<WeightStorage> weight_storage(const ModelArch& m, const Inputs& in) {
  WeightStorage w;
  const ParamCount p = count_params(m);
  if (in.has("weights-group")) {
    const Dtype wd = in.dtype("weights-dtype");
    if (!in.has("weights-dtype") || (wd != Dtype::kInt4 && wd != Dtype::kInt8)) {
      return FieldError{"weights-group", in.raw().at("weights-group"),
                        "needs --weights-dtype int4 or int8 (a group size applies to integer weight-only formats)",
                        "--weights-dtype int4 or int8 with --weights-group, or no --weights-group"};
    }
    const double bytes = dtype_bytes(wd), group = in.number("weights-group");
    const std::string b = format_significant(bytes, 3);
    w.format = {"grouped", bytes, (2 + bytes) / group, false,
                std::string(dtype_name(wd)) + " layers with an fp16 scale and an " + std::string(dtype_name(wd)) +
                    " zero point per group of " + num(group) + " (as GPTQ and AWQ ship them); embedding, head, norms and "
                    "routers in bf16",
                "(2 + " + b + ") B ÷ " + num(group)};
  } else if (in.has("weights-dtype") || !m.shipped.quantized()) {
    if (!in.has("weights-dtype") && !m.shipped_errors.empty()) return m.shipped_errors;
    const Dtype wd = in.dtype("weights-dtype");
    w.format.bytes = dtype_bytes(wd);
    w.name = std::string(dtype_name(wd));
    w.bytes = p.total * w.format.bytes;
    w.expert_bytes = w.format.bytes;
    w.formula = "params × bytes per weight";
    w.substituted = num(p.total) + " × " + num(w.format.bytes) + " B";
    return w;
  } else {
    w.format = m.shipped;
    w.as_shipped = true;
  }
  const WeightSplit split = split_weights(m);
  const WeightFormat& f = w.format;
  w.name = f.text;
  w.bytes = weight_bytes(m, f);
  w.expert_bytes = f.bytes + f.scale_bytes;
  const double quantized = f.experts_only ? split.experts : split.experts + split.matrices;
  const double kept = f.experts_only ? split.matrices + split.kept : split.kept;
  const std::string what = f.experts_only ? "routed experts" : "layer weights";
  const std::string rest = f.experts_only ? "everything else" : "embedding, head, norms, routers";
  w.formula = what + " × (bytes + scale bytes) + " + rest + " × 2 B";
  w.substituted = num(quantized) + " × (" + num(f.bytes) + " B + " + f.scale_text + ") + " + num(kept) + " × 2 B";
  return w;
}

ParamSpec state_dtype_param() {
  return dtype_param("state-dtype",
                     "dtype of the recurrent state of linear-attention and Mamba layers (default: the config's "
                     "mamba_ssm_cache_dtype, else bf16); the convolution window stays bf16",
                     "");
}

double kv_replication(const ModelArch& m, double tp, const std::string& attention, Derivation& d) {
  if (tp <= 1) return 1;
  if (attention == "dp") {
    d.assume("attention data parallel: each sequence's KV cache lives on one GPU, so the group holds one copy");
    return 1;
  }
  if (m.is_mla()) {
    d.assume("latent attention under tensor parallelism: every GPU needs the whole latent of every token, so the "
             "cache is held " + num(tp) + " times (attention data parallel, --attention dp, avoids it)");
    return tp;
  }
  double kv_heads = static_cast<double>(m.kv_heads);
  if (tp > kv_heads) {
    d.assume(num(tp) + " GPUs share " + num(kv_heads) + " KV heads: each head is replicated " + num(tp / kv_heads) +
             " times across the group");
    return tp / kv_heads;
  }
  return 1;
}

void describe_model(Derivation& d, const ModelArch& m, const std::string& raw_name) {
  auto count = [](int64_t v, std::string_view noun, std::string_view plural = {}) {
    return count_of(static_cast<long double>(v), noun, plural);
  };
  std::string shape = count(m.layers, "layer") + ", hidden " + num(m.hidden) + ", " + count(m.heads, "head");
  if (m.is_hybrid()) {
    shape += ", " + count(static_cast<int64_t>(m.runs.size()), "kind of layer", "kinds of layer") + " (listed below)";
  }
  if (m.is_mla()) {
    shape += ", latent attention (kv_lora_rank " + std::to_string(m.kv_lora_rank) + ")";
  } else {
    shape += ", " + count(m.kv_heads, "KV head") + " of " + std::to_string(m.head_dim);
  }
  if (m.is_moe()) {
    shape += ", " + count(m.routed_experts, "expert") + " (" + std::to_string(m.experts_per_token) + " per token";
    if (m.shared_experts > 0) shape += ", " + std::to_string(m.shared_experts) + " shared";
    shape += ")";
  }
  d.add_input(raw_name, m.id + " (" + shape + ")", m.id);
  for (const auto& note : m.notes) d.assume(note);
  if (m.has_sliding_window()) {
    d.assume("config sets a sliding window of " + num(static_cast<double>(m.sliding_window)) + " tokens on " +
             num(static_cast<double>(m.sliding_layers)) + " of " + count(m.layers, "layer") +
             " (sliding_window, layer_types / sliding_window_pattern): those layers cache at most the window");
  }
}

std::string divisors(int64_t n) {
  // Divisors come in pairs (i, n / i) with i ≤ √n, so √n trial divisions find them all: for
  // n = dp × cp up to 10^10 that is 10^5 steps, where counting up to n took a worker 29 s.
  if (n <= 0) return "";
  std::vector<int64_t> low, high;
  for (int64_t i = 1; i <= n / i; ++i) {
    if (n % i != 0) continue;
    low.push_back(i);
    if (i != n / i) high.push_back(n / i);
  }
  low.insert(low.end(), high.rbegin(), high.rend());
  // A highly composite n has thousands of divisors: list the small ones and the largest.
  constexpr size_t kListed = 24;
  std::string out;
  for (size_t i = 0; i < low.size(); ++i) {
    if (low.size() > kListed && i == kListed - 1) {
      out += ", ... " + std::to_string(low.back()) + " (" + std::to_string(low.size()) + " divisors in all)";
      break;
    }
    out += (out.empty() ? "" : ", ") + std::to_string(low[i]);
  }
  return out;
}

double cache_held_per_sequence(const CacheBytes& cache, double replication, Derivation& d) {
  if (replication <= 1) return cache.total();
  if (cache.state <= 0) {
    return d.step("KV held per sequence", "KV per sequence × copies across the group",
                  q(cache.kv, Unit::kBytes) + " × " + num(replication), cache.kv * replication, Unit::kBytes);
  }
  d.assume("the recurrent state is split across the group by head, one copy in all; only the attention layers' KV "
           "is copied");
  return d.step("KV held per sequence", "KV per sequence × copies across the group + recurrent state",
                q(cache.kv, Unit::kBytes) + " × " + num(replication) + " + " + q(cache.state, Unit::kBytes),
                cache.kv * replication + cache.state, Unit::kBytes);
}

CacheBytes kv_per_sequence_step(const ModelArch& m, double kv_token, double context, Derivation& d, double bytes,
                                double ssm_bytes) {
  const bool bounded_or_fixed = m.is_hybrid() || m.has_state() ||
                                std::any_of(m.runs.begin(), m.runs.end(), [](const LayerRun& run) {
                                  return std::any_of(run.mixers.begin(), run.mixers.end(), [](const Mixer& x) {
                                    return x.bound == CacheBound::kChunk || x.sparse_topk > 0;
                                  });
                                });
  // Layers with their own head shapes (Gemma 4's global layers: 2 KV heads of 512 against 8 of
  // 256 on the sliding ones; MiMo-V2's 4 against 8) cannot share one average per-layer figure:
  // the average charges the global layers' full context at the sliding layers' width, 77% too
  // much for Gemma 4 at 128k. They take the per-run sum below.
  double first_kv = 0;
  bool uneven = false;
  for (const auto& run : m.runs) {
    for (const auto& x : run.mixers) {
      if (x.kv_per_token <= 0) continue;
      if (first_kv == 0) first_kv = x.kv_per_token;
      uneven = uneven || x.kv_per_token != first_kv;
    }
  }
  const bool per_run = bounded_or_fixed || (uneven && m.has_sliding_window());
  if (per_run) {
    // A sum over the runs, each layer kind with its own bound (issue 29): full layers keep every
    // token, window and chunk layers at most their span, linear-attention and SSM layers a
    // fixed state whatever the context.
    for (const auto& line : describe_runs(m, bytes, ssm_bytes)) d.assume(line);
    std::string formula, sub;
    for (const auto& run : m.runs) {
      for (const auto& x : run.mixers) {
        if (x.kv_per_token <= 0) continue;
        const double reach = x.bound == CacheBound::kFull || x.span <= 0 ? context : std::min(context, static_cast<double>(x.span));
        formula += std::string(formula.empty() ? "" : " + ") + "layers × per token × " +
                   (x.bound == CacheBound::kFull ? "context" : x.bound == CacheBound::kWindow ? "min(context, window)" : "min(context, chunk)");
        sub += (sub.empty() ? "" : " + ") + num(static_cast<double>(run.count)) + " × " + num(x.kv_per_token * bytes) + " B × " + num(reach);
      }
    }
    const double kv = kv_elements_per_sequence(m, context) * bytes;
    if (formula.empty()) {
      d.step("KV per sequence", "no layer keeps a KV cache", "0", 0, Unit::kBytes);
    } else {
      d.step("KV per sequence", formula, sub, kv, Unit::kBytes);
    }
    if (!m.has_state()) return {kv, 0};
    // The state is held in the checkpoint's 16-bit dtype whatever the KV dtype: vLLM's
    // mamba_cache_dtype "auto" is the model dtype (MambaStateDtypeCalculator), and only the SSM
    // part follows mamba_ssm_cache_dtype (the config's, or --state-dtype).
    constexpr double sb = 2;
    std::string sformula, ssub;
    bool at_model_dtype = true;
    for (const auto& run : m.runs) {
      for (const auto& x : run.mixers) {
        if (x.state <= 0) continue;
        sformula += std::string(sformula.empty() ? "" : " + ") + x.name + " layers × state";
        const double rb = recurrent_state_bytes(m, x, sb, ssm_bytes);
        const std::string count = num(static_cast<double>(run.count));
        if (rb == sb) {
          ssub += (ssub.empty() ? "" : " + ") + count + " × (" + x.state_text + ") × " + num(sb) + " B";
        } else {
          at_model_dtype = false;
          ssub += (ssub.empty() ? "" : " + ") + count + " × (" + x.ssm_text + " × " + num(rb) + " B" +
                  (x.conv_text.empty() ? "" : " + " + x.conv_text + " × " + num(sb) + " B") + ")";
        }
      }
    }
    d.assume(at_model_dtype ? "recurrent state (linear attention, SSM) held in the model's bf16 whatever the KV dtype, one "
                              "copy per sequence whatever its length; engines that keep it in fp32 need twice this "
                              "(--state-dtype)"
                            : "recurrent state (linear attention, SSM) one copy per sequence whatever its length; the "
                              "recurrent part at its own dtype (above), the convolution window in the model's bf16");
    const double state = d.step("Recurrent state per sequence", sformula, ssub,
                                state_bytes_per_sequence(m, sb, ssm_bytes), Unit::kBytes);
    d.step("Cache per sequence", "KV + recurrent state", q(kv, Unit::kBytes) + " + " + q(state, Unit::kBytes),
           kv + state, Unit::kBytes);
    return {kv, state};
  }
  if (!m.has_sliding_window() || context <= static_cast<double>(m.sliding_window)) {
    return {d.step("KV per sequence", "KV per token × context", num(kv_token) + " B × " + num(context),
                   kv_token * context, Unit::kBytes),
            0};
  }
  const double layers = static_cast<double>(m.layers), sliding = static_cast<double>(m.sliding_layers);
  const double window = static_cast<double>(m.sliding_window);
  double per_layer = d.step("KV per token per layer", "KV per token ÷ layers", num(kv_token) + " B ÷ " + num(layers),
                            kv_token / layers, Unit::kBytes);
  return {d.step("KV per sequence", "per layer × (full layers × context + window layers × window)",
                num(per_layer) + " B × (" + num(layers - sliding) + " × " + num(context) + " + " + num(sliding) + " × " +
                    num(window) + ")",
                per_layer * ((layers - sliding) * context + sliding * window), Unit::kBytes),
          0};
}

void check_context(const ModelArch& m, double context, Derivation& d) {
  if (m.max_position_embeddings > 0 && context > static_cast<double>(m.max_position_embeddings)) {
    d.assume("the context of " + num(context) + " tokens exceeds the model's max_position_embeddings (" +
             num(static_cast<double>(m.max_position_embeddings)) +
             "): the memory figures still hold, but the model was not trained for it (quality is not assured)");
  }
}

void describe_gpu(Derivation& d, const Accelerator& gpu) {
  d.add_input("gpu", gpu.id + " (" + gpu.name + ", " + q(gpu.memory_bytes, Unit::kBytes) + ", " +
                         q(gpu.memory_bandwidth, Unit::kBytesPerSecond) + "; " + gpu.source +
                         ", " + gpu.as_of + ")",
              gpu.id);
}

std::map<std::string, std::string, std::less<>> implied_weights(const WeightStorage& storage) {
  return {{"weights-dtype", storage.as_shipped ? "as shipped: " + storage.format.method : storage.name}};
}

void describe_inputs(Derivation& d, const Inputs& in, const std::vector<ParamSpec>& specs,
                     const std::map<std::string, std::string, std::less<>>& implied) {
  for (const auto& spec : specs) {
    auto raw = in.raw().find(spec.name);
    if (raw == in.raw().end()) {
      if (auto it = implied.find(spec.name); it != implied.end()) d.add_input(spec.name, it->second, it->second);
      continue;
    }
    bool already = std::any_of(d.inputs().begin(), d.inputs().end(),
                               [&](const InputLine& l) { return l.name == spec.name; });
    if (already) continue;
    std::string display = raw->second;
    if (spec.type == ParamType::kNumber || spec.type == ParamType::kCount) {
      double v = in.number(spec.name);
      display = spec.type == ParamType::kCount && spec.unit != Unit::kBytes
                    ? group_thousands(v) + (spec.unit == Unit::kTokens ? " tokens" : "")
                    : format_quantity(v, spec.unit, 4);
      bool has_suffix = raw->second.find_first_not_of("0123456789,_") != std::string::npos;
      if (has_suffix && spec.type == ParamType::kCount) {
        display += " (from '" + raw->second + "')";
      }
    }
    d.add_input(spec.name, display, raw->second);
  }
}

}  // namespace ridge::calc::detail
