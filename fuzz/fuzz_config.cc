// Fuzzes the config.json reader and everything derived from a parsed config.
#include <cstdint>
#include <string>

#include "calc/model.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  auto m = ridge::calc::parse_model_config(text, "fuzz");
  if (m.ok()) {
    (void)ridge::calc::count_params(*m);
    (void)ridge::calc::kv_elements_per_token(*m);
    (void)ridge::calc::kv_substituted(*m, 2);
    (void)ridge::calc::kv_elements_per_sequence(*m, 131072);
    (void)ridge::calc::state_elements_per_sequence(*m);
    (void)ridge::calc::attention_flops_per_sequence(*m, 131072);
    (void)ridge::calc::attention_flops_per_decode_token(*m, 131072);
    (void)ridge::calc::describe_runs(*m, 2);
  }
  return 0;
}
