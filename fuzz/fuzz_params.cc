// Fuzzes the parameter parser: the first line picks a calculator, each further line is
// name=value. Whatever comes in, evaluation returns a value or errors, never crashes.
#include <cstdint>
#include <string>

#include "calc/registry.h"
#include "calc_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const ridge::calc::Registry registry = ridge::calc::make_builtin_registry();
  static const ridge::calc::Catalog catalog = [] {
    ridge::calc::Catalog c;
    auto hw = ridge::calc::HardwareCatalog::parse(R"([h100-sxm]
name = "H100"
vendor = "NVIDIA"
memory_bytes = 80e9
memory_bandwidth = 3.35e12
power_watts = 700
source = "datasheet"
as_of = 2023-01-01
[h100-sxm.peak_flops]
bf16 = 989.4e12
fp8 = 1978.9e12
)", "fuzz");
    c.hardware = std::move(hw).value();
    auto m = ridge::calc::parse_model_config(R"({"hidden_size": 4096, "num_hidden_layers": 32,
      "num_attention_heads": 32, "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 128256})", "m");
    c.models.emplace("m", std::move(m).value());
    return c;
  }();
  auto [name, given] = ridge::fuzz::read_calc_input(std::string(reinterpret_cast<const char*>(data), size));
  auto result = registry.evaluate(name, given, catalog);
  if (result.ok()) {
    (void)ridge::calc::render_text(*result);
    (void)ridge::calc::render_json(*result);
    (void)ridge::calc::render_html(*result);
  }
  return 0;
}
