#include "calc/catalog.h"

namespace ridge::calc {

const ModelArch* Catalog::find_model(std::string_view id) const {
  auto it = models.find(id);
  return it == models.end() ? nullptr : &it->second;
}

std::string Catalog::model_list() const {
  std::string out;
  for (const auto& [id, arch] : models) {
    if (!out.empty()) out += ", ";
    out += id;
  }
  return out;
}

}  // namespace ridge::calc
