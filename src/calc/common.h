// Helpers shared by the calculator files: spec builders, model and chip resolution, and
// short number formatting for the substituted formulas.
#pragma once

#include <map>
#include <string>

#include "calc/derivation.h"
#include "calc/params.h"
#include "calc/registry.h"

namespace ridge::calc::detail {

ParamSpec number(std::string name, Unit unit, std::string help, double min, double max,
                 std::string default_value = "", bool required = false, std::string example = "");
ParamSpec count(std::string name, Unit unit, std::string help, double min, double max,
                std::string default_value = "", bool required = false, std::string example = "");
// A non-negative quantity with a default of 0 (zero allowed).
ParamSpec optional_zero(std::string name, Unit unit, std::string help, double max);
// One of `choices`; an empty default makes it required.
ParamSpec choice(std::string name, std::vector<std::string> choices, std::string default_value, std::string help);
ParamSpec gpu_param(bool required = true);
ParamSpec model_param(bool required = false);
ParamSpec config_param();
ParamSpec dtype_param(std::string name, std::string help, std::string default_value);

// A number as it appears inside a formula: 80, 0.9, 327,680, 1.4e12.
std::string num(double v);
// A quantity with its unit inside a formula: "80 GB", "3.35 TB/s".
std::string q(double v, Unit unit);

// The model from --model or --config; an error when neither or both were given.
Result<const ModelArch*> resolve_model(const Inputs& in, const Catalog& catalog, bool required = true);
// The chip's dense peak for a dtype, or an error naming the chip and what it supports.
Result<double> peak_for(const Accelerator& gpu, Dtype dtype, const std::string& field);
// Weight or cache storage: fp8/fp6/fp4 need the chip's support; int8/int4 weight-only
// quantization and 16/32-bit formats store anywhere.
Result<bool> check_storage(const Accelerator& gpu, Dtype dtype, const std::string& field);

// How many copies of each sequence's KV cache a tensor-parallel group of `tp` GPUs holds:
// latent attention keeps one latent per token that every rank needs (tp copies); GQA with
// more ranks than KV heads replicates each head tp / kv_heads times; attention data
// parallelism ("dp") keeps one copy. States the choice as an assumption.
double kv_replication(const ModelArch& m, double tp, const std::string& attention, Derivation& d);
ParamSpec attention_param();
// --state-dtype: the dtype of the linear-attention and SSM recurrent state (default: the config's
// mamba_ssm_cache_dtype, else the model's bf16, whatever the KV dtype); the convolution window
// stays bf16.
ParamSpec state_dtype_param();

// The weights' and the cache's storage dtypes of a serving calculator (fit, decode): the
// cache follows the weights unless --kv-dtype says otherwise (int4 and fp6 weights, which
// are weight-only formats, default to a bf16 cache); both checked against the chip.
struct ServingDtypes {
  Dtype weights;
  Dtype kv;
};
Result<ServingDtypes> serving_dtypes(const Inputs& in, const Accelerator& gpu);

// How a serving calculator (fit, decode) stores the weights: --weights-dtype for every weight
// (with --weights-group, the decoder's matrices at that int dtype with a scale and a zero point
// per group, as GPTQ and AWQ checkpoints ship them), else the checkpoint's quantization_config
// (model.h WeightFormat), else bf16. Refuses a quantization_config it cannot size, naming the
// formats it can, only when no --weights-dtype overrides it.
struct WeightStorage {
  WeightFormat format;
  bool as_shipped = false;     // read from quantization_config
  double bytes = 0;            // every weight
  double expert_bytes = 0;     // bytes per routed-expert parameter
  std::string name;            // "bf16", or the format's description
  std::string formula, substituted;
};
Result<WeightStorage> weight_storage(const ModelArch& m, const Inputs& in);
ParamSpec weights_group_param();

// "1, 2, 4, 8" for an error's accepted range.
std::string divisors(int64_t n);

// The "KV per sequence" step: KV per token × context, or, for a model with sliding-window
// layers and a context longer than the window, per layer × (full layers × context +
// window layers × window). Hybrid, chunked and stateful models get a step per layer kind (each
// within its bound) plus their fixed recurrent state. `ssm_bytes` (0: the config's or the cache
// dtype) is the recurrent state's bytes per element (state_bytes_per_sequence in model.h).
struct CacheBytes {
  double kv = 0;     // grows with the context; replicated across a TP group as kv_replication says
  double state = 0;  // fixed per sequence; split across a TP group by head, never copied
  double total() const { return kv + state; }
};
CacheBytes kv_per_sequence_step(const ModelArch& m, double kv_token, double context, Derivation& d,
                                double bytes_per_element, double ssm_bytes = 0);
// The cache one sequence holds across a tensor-parallel group: KV × its copies (kv_replication)
// plus the recurrent state once, since linear-attention and Mamba heads are split across the TP
// ranks like attention heads but have no KV-head count below the group size to force copies
// (vLLM shards them by head: mamba_mixer2.py, qwen3_next.py). A step of its own when it differs
// from the cache per sequence.
double cache_held_per_sequence(const CacheBytes& cache, double replication, Derivation& d);
// States an assumption when the context exceeds the model's max_position_embeddings.
void check_context(const ModelArch& m, double context, Derivation& d);

// Adds the model's lines to inputs and assumptions.
void describe_model(Derivation& d, const ModelArch& m, const std::string& raw_name);
void describe_gpu(Derivation& d, const Accelerator& gpu);
// Adds every input as given (for parameters the calculator did not describe itself).
// `implied` gives the line of a parameter left out whose value the calculator decided (the
// weights' dtype when the checkpoint or the default decides it), in the parameters' order.
void describe_inputs(Derivation& d, const Inputs& in, const std::vector<ParamSpec>& specs,
                     const std::map<std::string, std::string, std::less<>>& implied = {});
// The implied --weights-dtype line for a serving calculator: "bf16", or what the checkpoint ships.
std::map<std::string, std::string, std::less<>> implied_weights(const WeightStorage& storage);

}  // namespace ridge::calc::detail
