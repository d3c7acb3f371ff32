// Training-parallelism calculators: activation memory per layer and per GPU (Korthikanti
// et al. 2022), the MoE all-to-all of expert parallelism, and a whole parallel layout
// checked for divisibility, with its bubble and memory per GPU.
#include <algorithm>
#include <cmath>

#include "calc/common.h"
#include "calc/training.h"

namespace ridge::calc {
namespace {

using namespace detail;

// The transformer's shape: from --model / --config, or from explicit --hidden, --layers and
// --heads (all three), never both.
struct Shape {
  double hidden = 0, layers = 0, heads = 0;
  const ModelArch* model = nullptr;
};

Result<Shape> resolve_shape(const Inputs& in, const Catalog& catalog, Derivation& d) {
  auto model = resolve_model(in, catalog, false);
  if (!model) return model.errors();
  const bool explicit_any = in.has("hidden") || in.has("layers") || in.has("heads");
  Shape s;
  if (*model != nullptr) {
    if (explicit_any) {
      const char* f = in.has("hidden") ? "hidden" : in.has("layers") ? "layers" : "heads";
      return FieldError{f, in.raw().at(f), "cannot be combined with --model or --config",
                        "either --model / --config, or --hidden, --layers and --heads"};
    }
    const ModelArch& m = **model;
    describe_model(d, m, in.has("config") ? "config" : "model");
    s.hidden = static_cast<double>(m.hidden);
    s.layers = static_cast<double>(m.layers);
    s.heads = static_cast<double>(m.heads);
    s.model = &m;
    if (m.is_hybrid() || m.has_state()) {
      // Not silent: the per-layer activation formula is a transformer block's (Korthikanti et al.
      // 2022); linear-attention, SSM and MLP-only layers store other tensors.
      d.assume("this model mixes layer kinds (see the layer list): the per-layer activation figure is a transformer "
               "block's (Korthikanti et al. 2022) applied to every layer, an estimate for its " +
               count_of(static_cast<long double>(m.layers - m.cache_layers()), "layer") + " without softmax attention");
    }
    return s;
  }
  Errors errors;
  for (const char* f : {"hidden", "layers", "heads"}) {
    if (!in.has(f)) errors.push_back({f, "", "is required (or --model / --config)", "a whole number"});
  }
  if (!errors.empty()) return errors;
  s.hidden = in.number("hidden");
  s.layers = in.number("layers");
  s.heads = in.number("heads");
  return s;
}

std::vector<ParamSpec> shape_params() {
  return {
      model_param(), config_param(),
      count("hidden", Unit::kCount, "hidden size h (instead of --model)", 1, 1e6, "", false, "12288"),
      count("layers", Unit::kCount, "transformer layers L (instead of --model)", 1, 1e5, "", false, "96"),
      count("heads", Unit::kCount, "attention heads a (instead of --model)", 1, 1e5, "", false, "96"),
  };
}

ParamSpec sequence_parallel_param() {
  return choice("sequence-parallel", {"off", "on"}, "off",
                "on: layer norms and dropouts split along the sequence across the tensor-parallel ranks");
}

ParamSpec recompute_param() {
  return choice("recompute", {"none", "selective", "full"}, "none",
                "none: keep every activation; selective: recompute attention's softmax and dropout; full: keep only "
                "each layer's input");
}

// ---- activation-memory

std::vector<ParamSpec> activation_params() {
  std::vector<ParamSpec> p = shape_params();
  p.push_back(count("seq", Unit::kTokens, "sequence length s; k = 1,000, Ki = 1,024", 1, 1e8, "", true, "2048"));
  p.push_back(count("micro-batch", Unit::kCount, "sequences per micro-batch b", 1, 1e5, "1"));
  p.push_back(count("tp", Unit::kCount, "tensor-parallel degree t", 1, 1024, "1"));
  p.push_back(count("pp", Unit::kCount, "pipeline stages: each holds layers ÷ pp layers", 1, 1024, "1"));
  p.push_back(count("microbatches", Unit::kCount,
                    "microbatches per step (default: pp, enough to fill the pipeline); the first stage holds "
                    "min(pp, microbatches) in flight",
                    1, 1e6));
  p.push_back(sequence_parallel_param());
  p.push_back(recompute_param());
  p.push_back(dtype_param("dtype", "activation dtype (the paper's figures are at 2 bytes)", "bf16"));
  return p;
}

Result<Derivation> activation_memory(const Inputs& in, const Catalog& catalog) {
  Derivation d("activation-memory", "Activation memory per layer and per GPU");
  auto shape = resolve_shape(in, catalog, d);
  if (!shape) return shape.errors();
  const double tp = in.number("tp"), pp = in.number("pp"), seq = in.number("seq");
  const auto tp_i = static_cast<int64_t>(tp), pp_i = static_cast<int64_t>(pp);
  const auto heads_i = static_cast<int64_t>(shape->heads), layers_i = static_cast<int64_t>(shape->layers);
  const bool sp = in.text("sequence-parallel") == "on";
  Errors errors;
  if (heads_i % tp_i != 0) {
    errors.push_back({"tp", in.raw().count("tp") ? in.raw().at("tp") : num(tp),
                      "does not divide the " + std::to_string(heads_i) + " attention heads", divisors(heads_i)});
  }
  if (layers_i % pp_i != 0) {
    errors.push_back({"pp", in.raw().count("pp") ? in.raw().at("pp") : num(pp),
                      "does not divide the " + std::to_string(layers_i) + " layers", divisors(layers_i)});
  }
  if (sp && tp > 1 && static_cast<int64_t>(seq) % tp_i != 0) {
    errors.push_back({"seq", in.raw().at("seq"), "is not divisible by tp = " + num(tp) + " (sequence parallelism splits it)",
                      "a multiple of " + num(tp)});
  }
  if (!errors.empty()) return errors;
  describe_inputs(d, in, activation_params());
  ActivationShape a;
  a.seq = seq;
  a.micro_batch = in.number("micro-batch");
  a.hidden = shape->hidden;
  a.heads = shape->heads;
  a.tp = tp;
  a.sequence_parallel = sp;
  a.recompute = in.text("recompute");
  a.bytes = dtype_bytes(in.dtype("dtype"));
  assume_activation_model(a, d);
  d.assume("the first pipeline stage of a 1F1B schedule holds the most: min(pp, microbatches) microbatches in flight; "
           "embedding and output-layer activations (eq. 3-4 of the paper) are left out");
  double per_layer = activation_bytes_per_layer(a, d);
  double layers_per_stage = d.step("Layers per stage", "layers ÷ pp", num(shape->layers) + " ÷ " + num(pp),
                                   shape->layers / pp, Unit::kCount);
  const double micro = in.has("microbatches") ? in.number("microbatches") : pp;
  double in_flight = d.step("Microbatches in flight", "min(pp, microbatches)", "min(" + num(pp) + ", " + num(micro) + ")",
                            std::min(pp, micro), Unit::kCount);
  double per_gpu = d.step("Activations per GPU", "per layer × layers per stage × in flight",
                          q(per_layer, Unit::kBytes) + " × " + num(layers_per_stage) + " × " + num(in_flight),
                          per_layer * layers_per_stage * in_flight, Unit::kBytes);
  d.result("activation_bytes_per_layer", per_layer, Unit::kBytes);
  d.result("layers_per_stage", layers_per_stage, Unit::kCount);
  d.result("microbatches_in_flight", in_flight, Unit::kCount);
  d.result("activation_bytes_per_gpu", per_gpu, Unit::kBytes);
  return d;
}

// ---- alltoall

std::vector<ParamSpec> alltoall_params() {
  return {
      model_param(), config_param(),
      count("hidden", Unit::kCount, "hidden size (instead of --model)", 1, 1e6, "", false, "7168"),
      count("top-k", Unit::kCount, "experts each token is sent to (instead of --model)", 1, 1024, "", false, "8"),
      count("tokens", Unit::kTokens, "tokens on each GPU per step (micro-batch × sequence)", 1, 1e9, "", true, "4096"),
      count("ep", Unit::kCount, "expert-parallel group size", 1, 1e5, "", true, "64"),
      count("gpus-per-node", Unit::kCount, "GPUs that share the scale-up domain (default: the GPU's system, else 8)", 1,
            1e5),
      dtype_param("dtype", "dtype of the dispatched activations (fp8 dispatch halves them)", "bf16"),
      gpu_param(false),
      number("intra-bandwidth", Unit::kBytesPerSecond,
             "per-GPU bandwidth to the other GPUs of the node, one direction (default: the GPU's scale-up ÷ 2)", 0, 1e15),
      number("inter-bandwidth", Unit::kBytesPerSecond,
             "per-GPU bandwidth off the node, one direction (default: the GPU's system NICs ÷ GPUs)", 0, 1e15),
  };
}

Result<Derivation> alltoall(const Inputs& in, const Catalog& catalog) {
  auto model = resolve_model(in, catalog, false);
  if (!model) return model.errors();
  const ModelArch* m = *model;
  Derivation d("alltoall", "MoE all-to-all per GPU per layer");
  double hidden, top_k;
  if (m != nullptr) {
    for (const char* f : {"hidden", "top-k"}) {
      if (in.has(f)) {
        return FieldError{f, in.raw().at(f), "cannot be combined with --model or --config",
                          "either --model / --config, or --hidden and --top-k"};
      }
    }
    if (!m->is_moe()) {
      return FieldError{in.has("config") ? "config" : "model", m->id, "is not a mixture-of-experts model",
                        "a model with routed experts (deepseek-v3, qwen3-235b-a22b, ...)"};
    }
    describe_model(d, *m, in.has("config") ? "config" : "model");
    hidden = static_cast<double>(m->hidden);
    top_k = static_cast<double>(m->experts_per_token);
  } else {
    Errors errors;
    for (const char* f : {"hidden", "top-k"}) {
      if (!in.has(f)) errors.push_back({f, "", "is required (or --model / --config)", "a whole number"});
    }
    if (!errors.empty()) return errors;
    hidden = in.number("hidden");
    top_k = in.number("top-k");
  }
  const Accelerator* gpu = in.gpu();
  double gpn = in.has("gpus-per-node") ? in.number("gpus-per-node") : gpu && gpu->has_system() ? gpu->system.gpus : 8;
  const double ep = in.number("ep");
  if (ep > gpn && std::fmod(ep, gpn) != 0) {
    return FieldError{"ep", in.raw().at("ep"), "spans nodes but is not a whole number of nodes of " + num(gpn) + " GPUs",
                      "at most " + num(gpn) + ", or a multiple of it"};
  }
  if (m != nullptr && m->routed_experts % static_cast<int64_t>(ep) != 0) {
    return FieldError{"ep", in.raw().at("ep"), "does not divide the " + std::to_string(m->routed_experts) + " routed experts",
                      divisors(m->routed_experts)};
  }
  // Bandwidths: given, or from the chip (vendors state scale-up bidirectionally).
  Errors errors;
  double intra = in.number("intra-bandwidth"), inter = in.number("inter-bandwidth");
  const bool needs_intra = std::min(ep, gpn) > 1, needs_inter = ep > gpn;
  if (!in.has("intra-bandwidth") && needs_intra) {
    if (gpu && gpu->scale_up_bandwidth > 0) {
      intra = gpu->scale_up_bandwidth / 2;
    } else {
      errors.push_back({"intra-bandwidth", "", "is required (or a --gpu with a scale-up figure)", "bytes per second"});
    }
  }
  if (!in.has("inter-bandwidth") && needs_inter) {
    if (gpu && gpu->has_system()) {
      inter = gpu->system.scale_out_bandwidth();
    } else {
      errors.push_back({"inter-bandwidth", "", "is required (or a --gpu whose system the catalog lists)", "bytes per second"});
    }
  }
  if (!errors.empty()) return errors;
  if (gpu) describe_gpu(d, *gpu);
  describe_inputs(d, in, alltoall_params());
  const double tokens = in.number("tokens"), bytes = dtype_bytes(in.dtype("dtype"));
  d.assume("routing uniform across the EP group: each of a token's top-k copies lands on any of the " + num(ep) +
           " ranks with equal chance; no deduplication of copies bound for the same node (DeepEP-style kernels send "
           "one copy per node and save part of the inter-node bytes)");
  d.assume("combine returns the same bytes as dispatch; intra- and inter-node transfers run at once, so the slower "
           "sets the time; no overlap with compute");
  if (needs_intra && !in.has("intra-bandwidth")) {
    d.assume("intra-node bandwidth: " + gpu->scale_up + " " + q(gpu->scale_up_bandwidth, Unit::kBytesPerSecond) +
             " bidirectional ÷ 2 = " + q(intra, Unit::kBytesPerSecond) + " each way");
  }
  if (needs_inter && !in.has("inter-bandwidth")) {
    d.assume("inter-node bandwidth: " + gpu->system.name + ", " + num(gpu->system.nics) + " NICs × " +
             q(gpu->system.nic_bandwidth, Unit::kBytesPerSecond) + " ÷ " + num(gpu->system.gpus) + " GPUs (" +
             gpu->system.source + ", " + gpu->system.as_of + ")");
  }
  double dispatch = d.step("Dispatch per GPU", "tokens × top-k × hidden × bytes",
                           num(tokens) + " × " + num(top_k) + " × " + num(hidden) + " × " + num(bytes) + " B",
                           tokens * top_k * hidden * bytes, Unit::kBytes);
  double off_gpu = d.step("Share leaving the GPU", "(ep − 1) ÷ ep", "(" + num(ep) + " − 1) ÷ " + num(ep), (ep - 1) / ep,
                          Unit::kRatio);
  const double in_node = std::min(ep, gpn);
  double intra_share = d.step("Share to the node's other GPUs", "(min(ep, gpus per node) − 1) ÷ ep",
                              "(" + num(in_node) + " − 1) ÷ " + num(ep), (in_node - 1) / ep, Unit::kRatio);
  double off_node = d.step("Share leaving the node", "max(0, ep − gpus per node) ÷ ep",
                           "max(0, " + num(ep) + " − " + num(gpn) + ") ÷ " + num(ep), std::max(0.0, ep - gpn) / ep,
                           Unit::kRatio);
  double intra_bytes = d.step("Intra-node bytes", "dispatch × intra share",
                              q(dispatch, Unit::kBytes) + " × " + format_significant(intra_share, 4),
                              dispatch * intra_share, Unit::kBytes);
  double inter_bytes = d.step("Inter-node bytes", "dispatch × off-node share",
                              q(dispatch, Unit::kBytes) + " × " + format_significant(off_node, 4), dispatch * off_node,
                              Unit::kBytes);
  double intra_s = needs_intra ? d.step("Intra-node time", "intra bytes ÷ intra bandwidth",
                                        q(intra_bytes, Unit::kBytes) + " ÷ " + q(intra, Unit::kBytesPerSecond),
                                        intra_bytes / intra, Unit::kSeconds)
                               : 0;
  double inter_s = needs_inter ? d.step("Inter-node time", "inter bytes ÷ inter bandwidth",
                                        q(inter_bytes, Unit::kBytes) + " ÷ " + q(inter, Unit::kBytesPerSecond),
                                        inter_bytes / inter, Unit::kSeconds)
                               : 0;
  double one_way = d.step("Dispatch time", "max(intra time, inter time)",
                          "max(" + q(intra_s, Unit::kSeconds) + ", " + q(inter_s, Unit::kSeconds) + ")",
                          std::max(intra_s, inter_s), Unit::kSeconds);
  double per_layer = d.step("Dispatch + combine per layer", "2 × dispatch time", "2 × " + q(one_way, Unit::kSeconds),
                            2 * one_way, Unit::kSeconds);
  d.result("dispatch_bytes_per_gpu", dispatch, Unit::kBytes);
  d.result("combine_bytes_per_gpu", dispatch, Unit::kBytes);
  d.result("off_gpu_fraction", off_gpu, Unit::kRatio);
  d.result("off_node_fraction", off_node, Unit::kRatio);
  d.result("intra_node_bytes", intra_bytes, Unit::kBytes);
  d.result("inter_node_bytes", inter_bytes, Unit::kBytes);
  d.result("intra_node_seconds", intra_s, Unit::kSeconds);
  d.result("inter_node_seconds", inter_s, Unit::kSeconds);
  d.result("seconds_per_layer", per_layer, Unit::kSeconds);
  if (m != nullptr) {
    double forward = d.step("Per forward pass", "per layer × MoE layers",
                            q(per_layer, Unit::kSeconds) + " × " + num(static_cast<double>(m->moe_layers)),
                            per_layer * static_cast<double>(m->moe_layers), Unit::kSeconds);
    d.result("seconds_per_forward", forward, Unit::kSeconds);
  }
  return d;
}

// ---- layout

std::vector<ParamSpec> layout_params() {
  ParamSpec optimizer = choice("optimizer", {"adam", "sgd"}, "adam", "adam: 16 B/param; sgd with momentum: 12 B/param");
  return {
      model_param(true), config_param(),
      count("gpus", Unit::kCount, "GPUs in the job", 1, 1e7, "", true, "1024"),
      count("tp", Unit::kCount, "tensor-parallel degree", 1, 1024, "1"),
      count("pp", Unit::kCount, "pipeline stages", 1, 1024, "1"),
      count("vp", Unit::kCount, "virtual stages per pipeline rank (interleaved 1F1B)", 1, 256, "1"),
      choice("account-for-embedding", {"off", "on"}, "off",
             "the embedding takes one layer's slot on the first stage (Megatron-LM "
             "--account-for-embedding-in-pipeline-split)"),
      choice("account-for-loss", {"off", "on"}, "off",
             "the output layer and loss take one layer's slot on the last stage (Megatron-LM "
             "--account-for-loss-in-pipeline-split)"),
      count("first-stage-layers", Unit::kCount,
            "transformer layers on the first stage; 0 splits evenly (Megatron-LM --decoder-first-pipeline-num-layers)", 0,
            1e6, "0"),
      count("last-stage-layers", Unit::kCount,
            "transformer layers on the last stage; 0 splits evenly (Megatron-LM --decoder-last-pipeline-num-layers)", 0,
            1e6, "0"),
      count("dp", Unit::kCount, "data-parallel replicas (default: gpus ÷ (tp × pp × cp))", 1, 1e7),
      count("cp", Unit::kCount, "context-parallel degree (splits each sequence)", 1, 1024, "1"),
      count("ep", Unit::kCount, "expert-parallel degree, carved out of dp × cp (MoE only)", 1, 1e5, "1"),
      count("global-batch", Unit::kCount, "sequences per optimizer step", 1, 1e8, "", true, "1024"),
      count("micro-batch", Unit::kCount, "sequences per micro-batch on one replica", 1, 1e5, "1"),
      count("seq", Unit::kTokens, "sequence length; k = 1,000, Ki = 1,024", 1, 1e8, "", true, "8192"),
      count("zero-stage", Unit::kCount, "0 none, 1 optimizer states, 2 + gradients, 3 + weights, sharded over dp × cp", 0, 3,
            "1"),
      optimizer,
      sequence_parallel_param(),
      recompute_param(),
      gpu_param(false),
  };
}

std::string raw_or(const Inputs& in, const char* name, double value) {
  auto it = in.raw().find(name);
  return it == in.raw().end() ? num(value) : it->second;
}

Result<Derivation> layout(const Inputs& in, const Catalog& catalog) {
  auto model = resolve_model(in, catalog);
  if (!model) return model.errors();
  const ModelArch& m = **model;
  const double gpus = in.number("gpus"), tp = in.number("tp"), pp = in.number("pp"), cp = in.number("cp");
  const double ep = in.number("ep"), gb = in.number("global-batch"), mb = in.number("micro-batch"), seq = in.number("seq");
  const bool sp = in.text("sequence-parallel") == "on";
  auto i64 = [](double v) { return static_cast<int64_t>(v); };
  Errors errors;
  // Data parallelism: given, or what the GPUs leave.
  double dp;
  const double model_parallel = tp * pp * cp;
  if (in.has("dp")) {
    dp = in.number("dp");
    if (model_parallel * dp != gpus) {
      errors.push_back({"gpus", in.raw().at("gpus"),
                        "is not tp × pp × dp × cp = " + num(tp) + " × " + num(pp) + " × " + num(dp) + " × " + num(cp) +
                            " = " + num(model_parallel * dp),
                        num(model_parallel * dp) + " GPUs, or a dp that makes the product " + num(gpus)});
    }
  } else {
    dp = std::floor(gpus / model_parallel);
    if (i64(gpus) % i64(model_parallel) != 0 || dp < 1) {
      errors.push_back({"gpus", in.raw().at("gpus"),
                        "is not divisible by tp × pp × cp = " + num(model_parallel) + ", so no whole dp fits",
                        "a multiple of " + num(model_parallel)});
      dp = std::max(1.0, dp);
    }
  }
  if (m.heads % i64(tp) != 0) {
    errors.push_back({"tp", raw_or(in, "tp", tp), "does not divide the " + std::to_string(m.heads) + " attention heads",
                      divisors(m.heads)});
  } else if (!m.is_mla() && m.kv_heads % i64(tp) != 0 && i64(tp) % m.kv_heads != 0) {
    errors.push_back({"tp", raw_or(in, "tp", tp),
                      "neither divides nor is a multiple of the " + std::to_string(m.kv_heads) + " KV heads",
                      divisors(m.kv_heads) + ", or a multiple of " + std::to_string(m.kv_heads)});
  }
  const double vp = in.number("vp");
  PipelineRequest preq;
  preq.layers = m.layers;
  preq.pp = i64(pp);
  preq.vp = i64(vp);
  preq.account_embedding = in.text("account-for-embedding") == "on";
  preq.account_loss = in.text("account-for-loss") == "on";
  preq.first_layers = i64(in.number("first-stage-layers"));
  preq.last_layers = i64(in.number("last-stage-layers"));
  auto split = pipeline_split(preq);
  if (!split) {
    for (FieldError e : split.errors()) {
      if (e.field == "pp") e.value = raw_or(in, "pp", pp);
      errors.push_back(std::move(e));
    }
  }
  if (pp == 1 && vp > 1) errors.push_back({"vp", in.raw().at("vp"), "needs pipeline parallelism", "1 when --pp is 1"});
  if (cp > 1 && i64(seq) % i64(2 * cp) != 0) {
    errors.push_back({"seq", in.raw().at("seq"),
                      "is not divisible by 2 × cp = " + num(2 * cp) + " (context parallelism splits each sequence into "
                      "2 × cp chunks to balance causal attention)",
                      "a multiple of " + num(2 * cp)});
  } else if (sp && tp > 1 && i64(seq / cp) % i64(tp) != 0) {
    errors.push_back({"seq", in.raw().at("seq"), "÷ cp is not divisible by tp = " + num(tp) + " (sequence parallelism)",
                      "a multiple of " + num(tp * cp)});
  }
  if (ep > 1) {
    if (!m.is_moe()) {
      errors.push_back({"ep", in.raw().at("ep"), "needs a mixture-of-experts model; " + m.id + " is dense", "1"});
    } else {
      if (m.routed_experts % i64(ep) != 0) {
        errors.push_back({"ep", in.raw().at("ep"),
                          "does not divide the " + std::to_string(m.routed_experts) + " routed experts",
                          divisors(m.routed_experts)});
      }
      if (i64(dp * cp) % i64(ep) != 0) {
        errors.push_back({"ep", in.raw().at("ep"), "does not divide dp × cp = " + num(dp * cp) +
                                                        " (expert parallelism is carved out of the data-parallel ranks)",
                          divisors(i64(dp * cp))});
      }
    }
  }
  if (i64(gb) % i64(dp * mb) != 0) {
    errors.push_back({"global-batch", in.raw().at("global-batch"),
                      "is not a whole number of micro-batches per replica: dp × micro-batch = " + num(dp) + " × " +
                          num(mb) + " = " + num(dp * mb),
                      "a multiple of " + num(dp * mb)});
  }
  if (!errors.empty()) return errors;

  Derivation d("layout", "Parallel layout of " + m.id + " on " + num(gpus) + " GPUs");
  describe_model(d, m, in.has("config") ? "config" : "model");
  if (in.gpu()) describe_gpu(d, *in.gpu());
  describe_inputs(d, in, layout_params());
  d.assume("every divisibility holds: tp divides the heads, the pipeline split places the layers, 2 × cp the "
           "sequence, ep the experts and dp × cp, dp × micro-batch the global batch");
  d.assume("pipeline split: " + split->rule);
  d.assume(vp > 1 ? "interleaved 1F1B: stage i holds min(pp − i, microbatches) microbatches of activations, the first "
                    "stage (1 + (pp − 1) ÷ (pp × vp)) times that (Korthikanti et al. 2022 §4.2.3)"
                  : "1F1B schedule: stage i holds min(pp − i, microbatches) microbatches of activations");
  d.step("Data-parallel replicas", in.has("dp") ? "as given" : "gpus ÷ (tp × pp × cp)",
         in.has("dp") ? num(dp) : num(gpus) + " ÷ (" + num(tp) + " × " + num(pp) + " × " + num(cp) + ")", dp,
         Unit::kCount);
  double micro = d.step("Microbatches per replica", "global batch ÷ (dp × micro-batch)",
                        num(gb) + " ÷ (" + num(dp) + " × " + num(mb) + ")", gb / (dp * mb), Unit::kCount);
  double bubble = bubble_fraction(pp, micro, vp, d);

  // Weights and optimizer state: dense parameters split by tp × pp and sharded over dp × cp;
  // routed experts split by ep × tp × pp and sharded over the expert-data-parallel ranks.
  const int stage = static_cast<int>(in.number("zero-stage"));
  const bool adam = in.text("optimizer") == "adam";
  assume_training_state(adam, d);
  ParamCount p = count_params(m);
  const double expert_params = m.is_moe() ? p.expert * static_cast<double>(m.routed_experts * m.moe_layers) : 0;
  const double dense_params = p.total - expert_params;
  // Activations: the activation-memory chain on this rank's share of the sequence.
  ActivationShape a;
  a.seq = seq / cp;
  a.micro_batch = mb;
  a.hidden = static_cast<double>(m.hidden);
  a.heads = static_cast<double>(m.heads);
  a.tp = tp;
  a.sequence_parallel = sp;
  a.recompute = in.text("recompute");
  a.bytes = 2;
  assume_activation_model(a, d);
  if (cp > 1) d.assume("context parallelism: each rank stores the activations of seq ÷ cp = " + num(seq / cp) + " tokens");
  double per_layer = activation_bytes_per_layer(a, d);

  // Each stage's memory: its layers' weights (the embedding on the first stage, the output layer
  // on the last; a tied embedding keeps a copy there, as Megatron-LM does for pp > 1) and its
  // microbatches in flight. The stage with the most sets the memory per GPU.
  const PipelineSplit& ps = *split;
  const double embed = static_cast<double>(m.vocab) * static_cast<double>(m.hidden);
  const double dense_layer = (dense_params - (pp > 1 ? embed * (m.tied_embeddings ? 1 : 2) : 0)) /
                             static_cast<double>(m.layers);
  const double interleave = vp > 1 ? 1 + (pp - 1) / (pp * vp) : 1;
  struct Stage {
    const char* name;
    double layers, dense, in_flight;
    std::string dense_formula, flight_formula;
  };
  std::vector<Stage> stages;
  if (pp == 1) {
    stages.push_back({"the one stage", ps.first, dense_params, std::min(1.0, micro), "params", "1"});
  } else {
    stages.push_back({"first stage", ps.first, ps.first * dense_layer + embed, std::min(pp, micro) * interleave,
                      "layers × per layer + embedding V·h",
                      vp > 1 ? "min(pp, microbatches) × (1 + (pp − 1) ÷ (pp × vp))" : "min(pp, microbatches)"});
    if (pp > 2) {
      stages.push_back({"second stage", ps.middle, ps.middle * dense_layer, std::min(pp - 1, micro), "layers × per layer",
                        "min(pp − 1, microbatches)"});
    }
    stages.push_back({"last stage", ps.last, ps.last * dense_layer + embed, 1, "layers × per layer + output layer V·h",
                      "1"});
  }
  const int zero = stage;
  auto stage_state = [&](const Stage& st, Derivation& dd) {
    double st_bytes =
        training_state(st.dense / tp, dp * cp, zero, adam, dd, m.is_moe() ? "non-expert" : "").per_gpu_bytes;
    if (m.is_moe()) {
      const double experts = expert_params * st.layers / static_cast<double>(m.layers) / (ep * tp);
      st_bytes += training_state(experts, dp * cp / ep, zero, adam, dd, "experts").per_gpu_bytes;
    }
    return st_bytes;
  };
  const Stage* heavy = &stages.front();
  double heavy_total = -1;
  for (const Stage& st : stages) {
    Derivation scratch("layout", "");
    double total = stage_state(st, scratch) + per_layer * st.layers * st.in_flight;
    if (total > heavy_total) heavy_total = total, heavy = &st;
  }
  if (pp > 1) d.assume("the " + std::string(heavy->name) + " holds the most memory; its figures follow");
  d.assume("the output layer's fp32 logits for the loss (s × b × V ÷ tp × 4 B on the last stage) are not counted");
  double dense_per_rank = d.step(
      "Parameters per rank on the " + std::string(heavy->name), "(" + heavy->dense_formula + ") ÷ tp",
      pp == 1 ? num(dense_params) + " ÷ " + num(tp)
              : "(" + num(heavy->layers) + " × " + num(dense_layer) +
                    (heavy->dense_formula.find("V·h") != std::string::npos ? " + " + num(embed) : std::string()) +
                    ") ÷ " + num(tp),
      heavy->dense / tp, Unit::kCount);
  double state = training_state(dense_per_rank, dp * cp, stage, adam, d, m.is_moe() ? "non-expert" : "").per_gpu_bytes;
  if (m.is_moe()) {
    d.assume("expert weights split over ep × tp and the stage's share of the layers (expert tensor parallelism equal to "
             "tp, the Megatron default); their state sharded over the dp × cp ÷ ep expert-data-parallel ranks");
    double expert_per_rank = d.step("Expert parameters per rank", "expert params × stage layers ÷ L ÷ (ep × tp)",
                                    num(expert_params) + " × " + num(heavy->layers) + " ÷ " +
                                        num(static_cast<double>(m.layers)) + " ÷ (" + num(ep) + " × " + num(tp) + ")",
                                    expert_params * heavy->layers / static_cast<double>(m.layers) / (ep * tp),
                                    Unit::kCount);
    double expert_state = training_state(expert_per_rank, dp * cp / ep, stage, adam, d, "experts").per_gpu_bytes;
    state = d.step("State per GPU", "non-expert + experts",
                   q(state, Unit::kBytes) + " + " + q(expert_state, Unit::kBytes), state + expert_state, Unit::kBytes);
  }
  double in_flight = d.step("Microbatches in flight", heavy->flight_formula,
                            pp == 1 ? "1"
                                    : heavy->flight_formula + " with pp = " + num(pp) + ", vp = " + num(vp) +
                                          ", microbatches = " + num(micro),
                            heavy->in_flight, Unit::kCount);
  double activations = d.step("Activations per GPU", "per layer × layers on the stage × in flight",
                              q(per_layer, Unit::kBytes) + " × " + num(heavy->layers) + " × " + num(in_flight),
                              per_layer * heavy->layers * in_flight, Unit::kBytes);
  double total = d.step("Memory per GPU", "state + activations",
                        q(state, Unit::kBytes) + " + " + q(activations, Unit::kBytes), state + activations, Unit::kBytes);
  d.result("dp", dp, Unit::kCount);
  d.result("microbatches", micro, Unit::kCount);
  d.result("bubble_fraction", bubble, Unit::kRatio);
  d.result("state_bytes_per_gpu", state, Unit::kBytes);
  d.result("activation_bytes_per_gpu", activations, Unit::kBytes);
  d.result("memory_bytes_per_gpu", total, Unit::kBytes);
  if (const Accelerator* gpu = in.gpu()) {
    bool fits = total <= gpu->memory_bytes;
    d.result("gpu_memory_bytes", gpu->memory_bytes, Unit::kBytes);
    d.result("fits", fits ? 1 : 0, Unit::kBool);
    d.set_conclusion(std::string(fits ? "Fits: " : "Does not fit: ") + q(total, Unit::kBytes) + " per GPU against the " +
                     q(gpu->memory_bytes, Unit::kBytes) + " of one " + gpu->id +
                     " (before temporary buffers and fragmentation).");
  }
  return d;
}

}  // namespace

void register_training_calculators(Registry& r) {
  r.add({"activation-memory",
         "Activation bytes per layer and per GPU, with tensor and sequence parallelism and recomputation "
         "(Korthikanti et al. 2022)",
         activation_params(),
         {"activation_bytes_per_layer", "layers_per_stage", "microbatches_in_flight", "activation_bytes_per_gpu"},
         "--hidden 12288 --layers 96 --heads 96 --seq 2048 --tp 8 --pp 8 --sequence-parallel on --recompute selective",
         activation_memory});
  r.add({"alltoall", "MoE dispatch and combine bytes per GPU per layer, the share that leaves the node, and the time",
         alltoall_params(),
         {"dispatch_bytes_per_gpu", "combine_bytes_per_gpu", "off_gpu_fraction", "off_node_fraction", "intra_node_bytes",
          "inter_node_bytes", "intra_node_seconds", "inter_node_seconds", "seconds_per_layer", "seconds_per_forward"},
         "--model deepseek-v3 --tokens 4096 --ep 64 --gpu h100-sxm", alltoall});
  r.add({"layout",
         "Checks TP × PP × DP × CP × EP against the GPUs, heads, layers and batch; the bubble and the memory per GPU",
         layout_params(),
         {"dp", "microbatches", "bubble_fraction", "state_bytes_per_gpu", "activation_bytes_per_gpu",
          "memory_bytes_per_gpu", "gpu_memory_bytes", "fits"},
         "--model llama-3.1-70b --gpus 1024 --tp 8 --pp 4 --global-batch 512 --seq 8192 --sequence-parallel on "
         "--recompute selective --gpu h100-sxm",
         layout});
}

}  // namespace ridge::calc
