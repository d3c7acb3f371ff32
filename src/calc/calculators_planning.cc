// Planning calculators: speculative decoding's expected tokens and where it stops paying,
// LoRA adapter bytes and how many fit beside the model, and the total cost of owning a GPU
// server against renting one.
#include <algorithm>
#include <cmath>
#include <sstream>

#include "calc/common.h"

namespace ridge::calc {
namespace {

using namespace detail;

constexpr double kHoursPerYear = 8760;  // 365 days

ParamSpec inclusive_ratio(std::string name, std::string help, std::string default_value, bool required,
                          std::string example) {
  ParamSpec s = number(std::move(name), Unit::kRatio, std::move(help), 0, 1, std::move(default_value), required,
                       std::move(example));
  s.min_exclusive = false;
  return s;
}

// ---- speculative

std::vector<ParamSpec> speculative_params() {
  return {
      inclusive_ratio("acceptance", "probability the target accepts each drafted token, a", "", true, "0.8"),
      count("draft-tokens", Unit::kCount, "tokens the draft proposes per target step, k", 1, 64, "4"),
      inclusive_ratio("draft-cost", "time of one draft step relative to one target decode step, c", "0.05", false, "0.05"),
      gpu_param(false),
      dtype_param("dtype", "compute dtype of the target's matmuls (sets the ridge point)", "bf16"),
      count("batch", Unit::kCount, "sequences decoded together, to evaluate the speed-up at (optional)", 1, 1e6),
  };
}

Result<Derivation> speculative(const Inputs& in, const Catalog&) {
  const double a = in.number("acceptance"), k = in.number("draft-tokens"), c = in.number("draft-cost");
  const Accelerator* gpu = in.gpu();
  double peak = 0;
  if (gpu) {
    auto p = peak_for(*gpu, in.dtype("dtype"), "dtype");
    if (!p) return p.errors();
    peak = *p;
  }
  if (in.has("batch") && !gpu) {
    return FieldError{"gpu", "", "is required with --batch (the ridge point sets where the step turns compute-bound)",
                      "a GPU id such as h100-sxm"};
  }
  Derivation d("speculative", "Speculative decoding: tokens per step and speed-up");
  if (gpu) describe_gpu(d, *gpu);
  describe_inputs(d, in, speculative_params());
  d.assume("each drafted token is accepted independently with probability a; the target always adds one token of its "
           "own (Leviathan et al. 2023, \"Fast Inference from Transformers via Speculative Decoding\")");
  d.assume("the draft's k steps cost k × c target steps and stay memory-bound at any batch (the draft is small)");
  double expected = d.step("Expected tokens per target step", "(1 − a^(k+1)) ÷ (1 − a)",
                           "(1 − " + num(a) + "^" + num(k + 1) + ") ÷ (1 − " + num(a) + ")",
                           a < 1 ? (1 - std::pow(a, k + 1)) / (1 - a) : k + 1, Unit::kNone);
  double cost = d.step("Cost per step, memory-bound", "k × c + 1 target steps", num(k) + " × " + num(c) + " + 1",
                       k * c + 1, Unit::kNone);
  double speedup = d.step("Speed-up, memory-bound", "expected tokens ÷ cost",
                          format_significant(expected, 5) + " ÷ " + format_significant(cost, 5), expected / cost,
                          Unit::kNone);
  d.result("expected_tokens_per_step", expected, Unit::kNone);
  d.result("speedup_memory_bound", speedup, Unit::kNone);
  if (!gpu) return d;
  const double wbytes = dtype_bytes(in.dtype("dtype"));
  d.assume("the target's decode step costs max(weight read, tokens × compute per token): bandwidth-bound until the "
           "tokens in the step reach the ridge batch, compute-bound beyond; KV reads and attention are left out");
  d.assume("verification runs k + 1 tokens per sequence through the target, so it turns compute-bound k + 1 times sooner");
  double ridge = d.step("Ridge batch", "peak × bytes per weight ÷ (2 × bandwidth)",
                        q(peak, Unit::kFlopPerSecond) + " × " + num(wbytes) + " ÷ (2 × " +
                            q(gpu->memory_bandwidth, Unit::kBytesPerSecond) + ")",
                        peak * wbytes / (2 * gpu->memory_bandwidth), Unit::kCount);
  // Speed-up at batch B with x = B / ridge: E × max(1, x) ÷ (k·c + max(1, (k + 1)·x)). It
  // falls below 1 only between x = 1/(k+1) and 1, at x = (E − k·c) ÷ (k + 1).
  double even = d.step("Break-even batch", "ridge × (expected − k × c) ÷ (k + 1), 0 when it never pays",
                       num(std::round(ridge * 10) / 10) + " × (" + format_significant(expected, 5) + " − " + num(k) +
                           " × " + num(c) + ") ÷ " + num(k + 1),
                       speedup > 1 ? ridge * (expected - k * c) / (k + 1) : 0, Unit::kCount);
  d.result("ridge_batch", ridge, Unit::kCount);
  d.result("break_even_batch", even, Unit::kCount);
  if (in.has("batch")) {
    const double b = in.number("batch"), x = b / ridge;
    double at = d.step("Speed-up at the batch", "E × max(1, B ÷ ridge) ÷ (k × c + max(1, (k + 1) × B ÷ ridge))",
                       format_significant(expected, 5) + " × max(1, " + format_significant(x, 4) + ") ÷ (" + num(k * c) +
                           " + max(1, " + format_significant((k + 1) * x, 4) + "))",
                       expected * std::max(1.0, x) / (k * c + std::max(1.0, (k + 1) * x)), Unit::kNone);
    d.result("speedup_at_batch", at, Unit::kNone);
  }
  d.set_conclusion(speedup <= 1 ? "Never pays: the draft costs more than the accepted tokens save."
                                : "Pays up to a batch of " + num(std::floor(even)) + " sequences on " + gpu->id +
                                      "; beyond it the verification's extra compute costs more than the tokens it adds.");
  return d;
}

// ---- lora

const std::vector<std::string> kLoraModules = {"q", "k", "v", "o", "gate", "up", "down"};

std::vector<ParamSpec> lora_params() {
  ParamSpec modules;
  modules.name = "modules";
  modules.type = ParamType::kText;
  modules.default_value = "q,k,v,o";
  modules.example = "q,k,v,o,gate,up,down";
  modules.help = "comma-separated projections that get an adapter: q, k, v, o, gate, up, down";
  return {
      model_param(), config_param(),
      count("rank", Unit::kCount, "adapter rank r", 1, 65536, "", true, "16"),
      modules,
      dtype_param("dtype", "adapter dtype", "bf16"),
      gpu_param(false),
      count("gpus", Unit::kCount, "GPUs holding the model and the adapters (with --gpu)", 1, 65536, "1"),
      number("memory", Unit::kBytes, "memory for the model and the adapters (default: gpus × the GPU's)", 0, 1e18),
      dtype_param("weights-dtype", "storage dtype of the base model's weights", "bf16"),
  };
}

Result<Derivation> lora(const Inputs& in, const Catalog& catalog) {
  auto model = resolve_model(in, catalog);
  if (!model) return model.errors();
  const ModelArch& m = **model;
  // The module list: known names, no repeats.
  std::vector<std::string> modules;
  std::stringstream list(in.text("modules"));
  std::string item;
  while (std::getline(list, item, ',')) {
    item.erase(0, item.find_first_not_of(' '));
    item.erase(item.find_last_not_of(' ') + 1);
    if (std::find(kLoraModules.begin(), kLoraModules.end(), item) == kLoraModules.end()) {
      return FieldError{"modules", in.text("modules"), "names an unknown projection '" + item + "'",
                        "a comma-separated subset of q, k, v, o, gate, up, down"};
    }
    if (std::find(modules.begin(), modules.end(), item) != modules.end()) {
      return FieldError{"modules", in.text("modules"), "names '" + item + "' twice", "each projection once"};
    }
    modules.push_back(item);
  }
  if (modules.empty()) {
    return FieldError{"modules", in.text("modules"), "is empty", "a comma-separated subset of q, k, v, o, gate, up, down"};
  }
  if (m.is_mla()) {
    for (const auto& mod : modules) {
      if (mod == "q" || mod == "k" || mod == "v") {
        return FieldError{"modules", in.text("modules"),
                          "includes '" + mod + "', which latent attention (" + m.id + ") factors into low-rank "
                          "projections of its own",
                          "o, gate, up, down"};
      }
    }
  }
  const double r = in.number("rank"), bytes = dtype_bytes(in.dtype("dtype"));
  Derivation d("lora", "LoRA adapters for " + m.id);
  describe_model(d, m, in.has("config") ? "config" : "model");
  if (in.gpu()) describe_gpu(d, *in.gpu());
  describe_inputs(d, in, lora_params());
  d.assume("an adapter on a d_in × d_out projection adds A (d_in × r) and B (r × d_out): r × (d_in + d_out) "
           "parameters per layer (Hu et al. 2021, \"LoRA\")");
  const double h = static_cast<double>(m.hidden), layers = static_cast<double>(m.layers);
  const double q_out = static_cast<double>(m.heads * (m.is_mla() ? m.v_head_dim : m.head_dim));
  const double kv_out = static_cast<double>(m.kv_heads * m.head_dim);
  const double dense_layers = static_cast<double>(m.dense_layers()), moe_layers = static_cast<double>(m.moe_layers);
  if (m.is_moe() &&
      std::any_of(modules.begin(), modules.end(), [](const std::string& x) { return x == "gate" || x == "up" || x == "down"; })) {
    d.assume("mixture of experts: every routed and shared expert of the MoE layers gets its own MLP adapter");
  }
  double total = 0;
  std::string terms;
  for (const auto& mod : modules) {
    double value;
    std::string formula, sub;
    const std::string b = num(bytes) + " B";
    if (mod == "q" || mod == "k" || mod == "v" || mod == "o") {
      double d_in = mod == "o" ? q_out : h;
      double d_out = mod == "o" ? h : mod == "q" ? q_out : kv_out;
      value = r * (d_in + d_out) * layers * bytes;
      formula = "rank × (d_in + d_out) × layers × bytes";
      sub = num(r) + " × (" + num(d_in) + " + " + num(d_out) + ") × " + num(layers) + " × " + b;
    } else if (!m.is_moe()) {
      double w = static_cast<double>(m.intermediate);
      value = r * (h + w) * layers * bytes;
      formula = "rank × (hidden + intermediate) × layers × bytes";
      sub = num(r) + " × (" + num(h) + " + " + num(w) + ") × " + num(layers) + " × " + b;
    } else {
      const double w = static_cast<double>(m.intermediate), ew = static_cast<double>(m.expert_intermediate);
      const double e = static_cast<double>(m.routed_experts), sw = static_cast<double>(m.shared_expert_intermediate);
      double per_moe_layer = e * (h + ew) + (sw > 0 ? h + sw : 0);
      value = r * ((h + w) * dense_layers + per_moe_layer * moe_layers) * bytes;
      formula = "rank × ((hidden + intermediate) × dense layers + (experts × (hidden + expert width) + shared) × MoE "
                "layers) × bytes";
      sub = num(r) + " × ((" + num(h) + " + " + num(w) + ") × " + num(dense_layers) + " + (" + num(e) + " × (" + num(h) +
            " + " + num(ew) + ") + " + num(sw > 0 ? h + sw : 0) + ") × " + num(moe_layers) + ") × " + b;
    }
    total += d.step("Adapter " + mod, formula, sub, value, Unit::kBytes);
    terms += (terms.empty() ? "" : " + ") + q(value, Unit::kBytes);
  }
  d.step("Adapter", "sum over the modules", terms, total, Unit::kBytes);
  d.result("adapter_bytes", total, Unit::kBytes);
  d.result("adapter_params", total / bytes, Unit::kCount);
  if (!in.has("memory") && !in.gpu()) return d;
  double memory;
  if (in.has("memory")) {
    memory = in.number("memory");
  } else {
    const double gpus = in.number("gpus");
    memory = d.step("Memory", "gpus × GPU memory", num(gpus) + " × " + q(in.gpu()->memory_bytes, Unit::kBytes),
                    gpus * in.gpu()->memory_bytes, Unit::kBytes);
  }
  d.assume("the base model is stored once and shared by every adapter; KV cache and activations are not counted");
  ParamCount p = count_params(m);
  const double wb = dtype_bytes(in.dtype("weights-dtype"));
  double weights = d.step("Base weights", "params × bytes per weight", num(p.total) + " × " + num(wb) + " B",
                          p.total * wb, Unit::kBytes);
  double free_bytes = d.step("Free beside the model", "memory − weights",
                             q(memory, Unit::kBytes) + " − " + q(weights, Unit::kBytes), memory - weights, Unit::kBytes);
  double fit = d.step("Adapters that fit", "floor(free ÷ adapter)",
                      "floor(" + q(std::max(0.0, free_bytes), Unit::kBytes) + " ÷ " + q(total, Unit::kBytes) + ")",
                      free_bytes > 0 ? std::floor(free_bytes / total) : 0, Unit::kCount);
  d.result("weights_bytes", weights, Unit::kBytes);
  d.result("free_bytes", free_bytes, Unit::kBytes);
  d.result("adapters_fit", fit, Unit::kCount);
  return d;
}

// ---- tco

std::vector<ParamSpec> tco_params() {
  ParamSpec capital = number("cost-of-capital", Unit::kRatio, "annual cost of capital r (0 for straight-line)", 0, 1, "0.08");
  capital.min_exclusive = false;
  ParamSpec kwh = number("usd-per-kwh", Unit::kUsd, "electricity price, USD per kWh", 0, 10, "0.08");
  kwh.min_exclusive = false;
  return {
      number("server-price", Unit::kUsd, "price of one GPU server, installed (USD)", 0, 1e9, "", true, "300000"),
      gpu_param(false),
      count("gpus-per-server", Unit::kCount, "GPUs in one server (default: the GPU's system)", 1, 1e5),
      number("years", Unit::kNone, "years the server is amortized over, n", 0, 30, "4"),
      capital,
      number("system-power", Unit::kWatts, "the server's power draw, W (default: the GPU's system power)", 0, 1e7),
      kwh,
      number("pue", Unit::kNone, "power usage effectiveness of the facility", 1, 3, "1.3"),
      optional_zero("staff-per-year", Unit::kUsd, "operations staff per server per year (USD)", 1e8),
      optional_zero("space-per-year", Unit::kUsd, "space (colocation, rack, network share) per server per year (USD)", 1e8),
      number("utilization", Unit::kRatio, "fraction of GPU-hours doing paid work", 0, 1, "0.8"),
      number("rent", Unit::kUsdPerHour, "rental price of one GPU-hour, to compare (optional)", 0, 1e4),
  };
}

Result<Derivation> tco(const Inputs& in, const Catalog&) {
  const Accelerator* gpu = in.gpu();
  const bool has_sys = gpu && gpu->has_system();
  Errors errors;
  if (!in.has("gpus-per-server") && !has_sys) {
    errors.push_back({"gpus-per-server", "", "is required (or a --gpu whose system the catalog lists)", "a whole number"});
  }
  if (!in.has("system-power") && !has_sys) {
    errors.push_back({"system-power", "", "is required (or a --gpu whose system the catalog lists)", "watts, such as 10.2kW"});
  }
  if (!errors.empty()) return errors;
  const double price = in.number("server-price"), n = in.number("years"), r = in.number("cost-of-capital");
  const double gpus = in.has("gpus-per-server") ? in.number("gpus-per-server") : gpu->system.gpus;
  const double watts = in.has("system-power") ? in.number("system-power") : gpu->system.power_watts;
  const double kwh = in.number("usd-per-kwh");
  const double pue = in.number("pue"), util = in.number("utilization");
  Derivation d("tco", "Cost of owning a GPU server, per GPU-hour");
  if (gpu) describe_gpu(d, *gpu);
  describe_inputs(d, in, tco_params());
  if (has_sys && (!in.has("system-power") || !in.has("gpus-per-server"))) {
    d.assume(gpu->system.name + ": " + q(gpu->system.power_watts, Unit::kWatts) + " for " + num(gpu->system.gpus) +
             " GPUs (" + gpu->system.source + ", " + gpu->system.as_of + ")");
  }
  d.assume("capex paid as an annuity over the years at the cost of capital: P × r ÷ (1 − (1 + r)^−n); no resale value");
  d.assume("the server draws its full power every hour of the year (an upper bound: idle GPUs draw less); 8,760 h a year");
  double capex;
  if (r > 0) {
    capex = d.step("Capex per year", "P × r ÷ (1 − (1 + r)^−n)",
                   "$" + num(price) + " × " + num(r) + " ÷ (1 − (1 + " + num(r) + ")^−" + num(n) + ")",
                   price * r / (1 - std::pow(1 + r, -n)), Unit::kUsd);
  } else {
    capex = d.step("Capex per year", "P ÷ n (no cost of capital)", "$" + num(price) + " ÷ " + num(n), price / n, Unit::kUsd);
  }
  double power = d.step("Power per year", "W × PUE × 8,760 h × $/kWh ÷ 1,000",
                        num(watts) + " × " + num(pue) + " × 8,760 × $" + num(kwh) + " ÷ 1,000",
                        watts * pue * kHoursPerYear * kwh / 1000, Unit::kUsd);
  const double staff = in.number("staff-per-year"), space = in.number("space-per-year");
  double per_year = d.step("Cost per year", "capex + power + staff + space",
                           "$" + num(std::round(capex)) + " + $" + num(std::round(power)) + " + $" + num(staff) + " + $" +
                               num(space),
                           capex + power + staff + space, Unit::kUsd);
  double per_hour = d.step("Per GPU-hour used", "cost per year ÷ (GPUs × 8,760 h × utilization)",
                           "$" + num(std::round(per_year)) + " ÷ (" + num(gpus) + " × 8,760 × " + num(util) + ")",
                           per_year / (gpus * kHoursPerYear * util), Unit::kUsdPerHour);
  d.result("capex_per_year", capex, Unit::kUsd);
  d.result("power_per_year", power, Unit::kUsd);
  d.result("cost_per_year", per_year, Unit::kUsd);
  d.result("usd_per_gpu_hour", per_hour, Unit::kUsdPerHour);
  if (in.has("rent")) {
    const double rent = in.number("rent");
    d.assume("renting pays only for the hours used; owning pays for every hour, so owning wins above the break-even "
             "utilization");
    double even = d.step("Break-even utilization", "cost per year ÷ (GPUs × 8,760 h × rent)",
                         "$" + num(std::round(per_year)) + " ÷ (" + num(gpus) + " × 8,760 × $" + num(rent) + ")",
                         per_year / (gpus * kHoursPerYear * rent), Unit::kRatio);
    d.result("break_even_utilization", even, Unit::kRatio);
    d.result("buy_cheaper", util > even ? 1 : 0, Unit::kBool);
    d.set_conclusion(even > 1 ? "Renting is cheaper at any utilization: a year of owning costs more than renting every hour."
                     : util > even
                         ? "Buying is cheaper: " + format_significant(util * 100, 3) + "% utilization is above the " +
                               format_significant(even * 100, 3) + "% break-even."
                         : "Renting is cheaper: " + format_significant(util * 100, 3) + "% utilization is below the " +
                               format_significant(even * 100, 3) + "% break-even.");
  }
  return d;
}

}  // namespace

void register_planning_calculators(Registry& r) {
  r.add({"speculative",
         "Speculative decoding: expected tokens per target step, the speed-up, and the batch where it stops paying",
         speculative_params(),
         {"expected_tokens_per_step", "speedup_memory_bound", "ridge_batch", "break_even_batch", "speedup_at_batch"},
         "--acceptance 0.8 --draft-tokens 4 --draft-cost 0.05 --gpu h100-sxm", speculative});
  r.add({"lora", "LoRA adapter bytes for a rank and a module set, and how many adapters fit beside the model",
         lora_params(), {"adapter_bytes", "adapter_params", "weights_bytes", "free_bytes", "adapters_fit"},
         "--model llama-3.1-8b --rank 16 --modules q,k,v,o --gpu h100-sxm", lora});
  r.add({"tco", "Owning a GPU server: capex as an annuity, power, staff and space, to $/GPU-hour; buy against rent",
         tco_params(),
         {"capex_per_year", "power_per_year", "cost_per_year", "usd_per_gpu_hour", "break_even_utilization", "buy_cheaper"},
         "--server-price 300000 --gpu h100-sxm --years 4 --cost-of-capital 0.08 --usd-per-kwh 0.08 --rent 2.50", tco});
}

}  // namespace ridge::calc
