#include "common/result.h"

namespace ridge {

std::string FieldError::to_string() const {
  std::string s = "--" + field + ": ";
  if (!value.empty()) s += "'" + value + "' ";
  s += message;
  if (!accepted.empty()) s += "; accepted: " + accepted;
  return s;
}

std::string to_string(const Errors& errors) {
  std::string out;
  for (const auto& e : errors) out += e.to_string() + "\n";
  return out;
}

}  // namespace ridge
