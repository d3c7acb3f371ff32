#include "calc/dtype.h"

namespace ridge::calc {

std::string_view dtype_name(Dtype d) {
  switch (d) {
    case Dtype::kFp64: return "fp64";
    case Dtype::kFp32: return "fp32";
    case Dtype::kTf32: return "tf32";
    case Dtype::kBf16: return "bf16";
    case Dtype::kFp16: return "fp16";
    case Dtype::kFp8: return "fp8";
    case Dtype::kFp6: return "fp6";
    case Dtype::kFp4: return "fp4";
    case Dtype::kInt8: return "int8";
    case Dtype::kInt4: return "int4";
  }
  return "?";
}

std::optional<Dtype> parse_dtype(std::string_view name) {
  for (Dtype d : kAllDtypes) {
    if (dtype_name(d) == name) return d;
  }
  return std::nullopt;
}

double dtype_bytes(Dtype d) {
  switch (d) {
    case Dtype::kFp64: return 8;
    case Dtype::kFp32:
    case Dtype::kTf32: return 4;
    case Dtype::kBf16:
    case Dtype::kFp16: return 2;
    case Dtype::kFp8:
    case Dtype::kInt8: return 1;
    case Dtype::kFp6: return 0.75;
    case Dtype::kFp4:
    case Dtype::kInt4: return 0.5;
  }
  return 0;
}

std::string dtype_list() {
  std::string out;
  for (Dtype d : kAllDtypes) {
    if (!out.empty()) out += ", ";
    out += dtype_name(d);
  }
  return out;
}

}  // namespace ridge::calc
