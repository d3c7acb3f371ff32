// quantization_config: how a checkpoint ships its weights, read into a WeightFormat (model.h).
#include "calc/model_reader.h"
#include "calc/units.h"

namespace ridge::calc::reader {

// quantization_config: how the checkpoint ships its weights (transformers quantizers). Sets
// m.shipped_quantization (the name), m.shipped (the format) or m.shipped_errors.
void read_quantization(const json& root, const json& cfg, ModelArch& m) {
  const json* q = nullptr;
  for (const json* j : {&cfg, &root}) {
    auto it = j->find("quantization_config");
    if (it != j->end() && it->is_object()) q = &*it;
  }
  if (q == nullptr) return;
  auto text = [&](const char* k) {
    auto it = q->find(k);
    return it != q->end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  const std::string method = text("quant_method");
  if (method.empty()) return;
  Errors errors;
  ConfigReader r(*q, errors);
  WeightFormat& f = m.shipped;
  if (method == "fp8") {
    // transformers integrations/finegrained_fp8.py (DeepSeek-V3's layout): e4m3 weights and one
    // fp32 weight_scale_inv per weight_block_size block; without a block size, one scale per tensor.
    m.shipped_quantization = "fp8";
    f = {"fp8", 1, 0, false, "fp8 (e4m3), one scale per tensor", "0"};
    const json* block = r.find("weight_block_size");
    if (block != nullptr && block->is_array() && block->size() == 2 && (*block)[0].is_number_integer() &&
        (*block)[1].is_number_integer() && (*block)[0].get<int64_t>() > 0 && (*block)[1].get<int64_t>() > 0 &&
        (*block)[0].get<int64_t>() <= 65536 && (*block)[1].get<int64_t>() <= 65536) {
      const int64_t a = (*block)[0].get<int64_t>(), b = (*block)[1].get<int64_t>();
      f.scale_bytes = 4.0 / (d(a) * d(b));
      f.text = "fp8 (e4m3), one fp32 scale per " + n(a) + " × " + n(b) + " block";
      f.scale_text = "4 B ÷ (" + n(a) + " × " + n(b) + ")";
    } else if (block != nullptr) {
      m.shipped_errors.push_back({"config.json:quantization_config.weight_block_size", quote(*block),
                                  "is not a block shape", "two positive integers, as [128, 128]"});
    }
  } else if (method == "mxfp4") {
    // OCP Microscaling MXFP4 (transformers integrations/mxfp4.py, gpt-oss): 4-bit E2M1 values
    // and one 8-bit E8M0 scale per 32; gpt-oss quantizes only the experts (modules_to_not_convert:
    // attention, router, embedding, head).
    m.shipped_quantization = "mxfp4 (the experts; attention, router, embedding and head in bf16)";
    f = {"mxfp4", 0.5, 1.0 / 32, true, "mxfp4 on the routed experts (4-bit values, one 1-byte scale per 32); "
         "attention, router, embedding and head in bf16", "1 B ÷ 32"};
  } else if (method == "gptq" || method == "awq") {
    // GPTQ (AutoGPTQ / gptqmodel) and AWQ (AutoAWQ) pack `bits`-bit weights with, per group of
    // group_size input weights of each output column, an fp16 scale and a bits-wide zero point
    // (qzeros); the embedding and head stay in 16 bits. group_size -1: one group per column
    // (counted over hidden_size).
    const int64_t bits = r.integer({"bits", "w_bit"}, false, 4);
    const int64_t group_raw = [&]() -> int64_t {
      for (const char* key : {"group_size", "q_group_size"}) {
        auto it = q->find(key);
        if (it != q->end() && it->is_number_integer() && it->get<int64_t>() == -1) return -1;
      }
      return r.integer({"group_size", "q_group_size"}, false, 128);
    }();
    if (bits != 2 && bits != 3 && bits != 4 && bits != 8) {
      m.shipped_errors.push_back({"config.json:quantization_config.bits", n(bits), "is not a bit width ridge sizes",
                                  "2, 3, 4 or 8"});
    }
    const int64_t group = group_raw == -1 ? m.hidden : group_raw;
    if (group <= 0) {
      m.shipped_errors.push_back({"config.json:quantization_config.group_size", n(group_raw),
                                  "is not a group size", "a positive group size (128) or -1 (one per column)"});
    }
    if (!errors.empty() || !m.shipped_errors.empty()) {
      for (auto& e : errors) m.shipped_errors.push_back(e);
      f = {};
      return;
    }
    const double bytes = d(bits) / 8;
    m.shipped_quantization = "int" + std::to_string(bits) + " " + method;
    f = {method, bytes, (2 + bytes) / d(group), false,
         "int" + std::to_string(bits) + " " + method + ", an fp16 scale and an int" + std::to_string(bits) +
             " zero point per group of " + (group_raw == -1 ? "a whole column (" + n(group) + ")" : n(group)) +
             "; embedding, head, norms and routers in bf16",
         "(2 + " + format_significant(bytes, 3) + ") B ÷ " + n(group)};
  } else {
    m.shipped_quantization = method;
    m.shipped_errors.push_back({"config.json:quantization_config.quant_method", method,
                                "is a checkpoint format ridge does not size",
                                "fp8 (block or per-tensor scales), mxfp4, gptq, awq; or --weights-dtype to size every "
                                "weight at one dtype"});
    f = {};
    return;
  }
  for (const char* key : {"modules_to_not_convert", "ignored_layers"}) {
    const json* kept = r.find(key);
    if (kept != nullptr && kept->is_array() && !kept->empty()) {
      m.notes.push_back("quantization_config." + std::string(key) + " lists " +
                        count_of(static_cast<long double>(kept->size()), "module") +
                        " kept unquantized; ridge keeps the embedding, head, norms and routers" +
                        (f.experts_only ? " and everything but the routed experts" : "") +
                        " unquantized and sizes the rest as quantized");
    }
  }
}

}  // namespace ridge::calc::reader
