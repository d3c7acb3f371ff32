#include "calc_io/load_catalog.h"

#include "calc/model.h"
#include "calc/source_dir.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

namespace ridge::calc_io {

namespace fs = std::filesystem;

calc::Result<std::string> read_text_file(const fs::path& path, std::string_view field) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) {
    return calc::FieldError{std::string(field), path.string(), "is not a readable file", "a path to an existing file"};
  }
  if (fs::file_size(path, ec) > (64u << 20)) {
    return calc::FieldError{std::string(field), path.string(), "is larger than 64 MiB", "a config or data file"};
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return calc::FieldError{std::string(field), path.string(), "cannot be opened", ""};
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

calc::Result<calc::Catalog> load_catalog(const fs::path& dir) {
  calc::Catalog catalog;
  auto hw_text = read_text_file(dir / "hardware.toml", "data");
  if (!hw_text) return hw_text.errors();
  auto hw = calc::HardwareCatalog::parse(*hw_text, (dir / "hardware.toml").string());
  if (!hw) return hw.errors();
  catalog.hardware = std::move(hw).value();

  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir / "models", ec)) {
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  calc::Errors errors;
  for (const auto& file : files) {
    auto text = read_text_file(file, "data");
    if (!text) {
      errors.insert(errors.end(), text.errors().begin(), text.errors().end());
      continue;
    }
    std::string id = file.stem().string();
    auto arch = calc::parse_model_config(*text, id);
    if (!arch) {
      for (auto e : arch.errors()) {
        e.message = "in " + file.string() + ": " + e.message;
        errors.push_back(std::move(e));
      }
      continue;
    }
    catalog.models.emplace(id, std::move(arch).value());
  }
  if (!errors.empty()) return errors;
  if (fs::exists(dir / "lab-figures.json", ec)) {
    auto lab = read_text_file(dir / "lab-figures.json", "data");
    if (!lab) return lab.errors();
    auto parsed = nlohmann::json::parse(*lab, nullptr, false);
    if (parsed.is_discarded() || !parsed.is_object() || !parsed.contains("builds")) {
      return calc::FieldError{"data", (dir / "lab-figures.json").string(),
                              "is not a lab figures file", "the output of `ridge lab measure --all --json` under \"builds\""};
    }
    catalog.lab_figures = std::make_shared<const nlohmann::json>(std::move(parsed));
  }
  catalog.read_config = [](const std::string& path) -> calc::Result<std::string> {
    // A config.json is a few kilobytes: refuse a large file before reading it into memory.
    std::error_code size_ec;
    auto size = fs::file_size(path, size_ec);
    if (!size_ec && size > calc::kMaxConfigBytes) {
      return calc::FieldError{"config", path.substr(0, 80), "is " + std::to_string(size) + " bytes; a config.json is at most 4 MiB",
                              "a model's config.json"};
    }
    return read_text_file(path, "config");
  };
  return catalog;
}

fs::path default_data_dir() {
  if (const char* env = std::getenv("RIDGE_DATA"); env != nullptr && *env != 0) return env;
  std::error_code ec;
  if (fs::exists("data/hardware.toml", ec)) return "data";
  return fs::path(ridge::source_dir()) / "data";
}

}  // namespace ridge::calc_io
