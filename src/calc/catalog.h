// Everything a calculator may look up: the hardware catalog, the bundled models, and a way
// to read a config.json named by --config. The engine does no I/O of its own: the caller
// provides `read_config` (the CLI reads files; the web API refuses paths).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "calc/hardware.h"
#include "calc/model.h"

namespace ridge::calc {

struct Catalog {
  HardwareCatalog hardware;
  std::map<std::string, ModelArch, std::less<>> models;
  // Returns the text of a config.json at `path`, or an error naming it. Empty when the
  // face has no files to offer (the web API).
  std::function<Result<std::string>(const std::string& path)> read_config;
  // data/lab-figures.json: the lab's measured figures (`ridge lab measure --all --json`),
  // parsed once when the catalog loads; null when absent.
  std::shared_ptr<const nlohmann::json> lab_figures;

  const ModelArch* find_model(std::string_view id) const;
  std::string model_list() const;
};

}  // namespace ridge::calc
