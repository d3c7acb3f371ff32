// Numeric formats: their storage size and their names on the command line.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ridge::calc {

enum class Dtype { kFp64, kFp32, kTf32, kBf16, kFp16, kFp8, kFp6, kFp4, kInt8, kInt4 };

inline constexpr Dtype kAllDtypes[] = {Dtype::kFp64, Dtype::kFp32, Dtype::kTf32, Dtype::kBf16,
                                       Dtype::kFp16, Dtype::kFp8,  Dtype::kFp6,  Dtype::kFp4,
                                       Dtype::kInt8, Dtype::kInt4};

std::string_view dtype_name(Dtype d);
std::optional<Dtype> parse_dtype(std::string_view name);
// Bytes one element occupies in memory: bf16 2, fp8 1, fp4 0.5. tf32 is stored as fp32.
double dtype_bytes(Dtype d);
// "fp64, fp32, tf32, bf16, fp16, fp8, fp6, fp4, int8, int4"
std::string dtype_list();

}  // namespace ridge::calc
