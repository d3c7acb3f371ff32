// Reads the catalogs from disk: data/hardware.toml and data/models/*.json. The engine itself
// does no I/O; the CLI and the server call this once at start-up.
#pragma once

#include <filesystem>
#include <string>

#include "calc/catalog.h"

namespace ridge::calc_io {

// Loads `dir`/hardware.toml and every `dir`/models/<id>.json. Errors name the file. The
// returned catalog's read_config reads files from the local filesystem (for --config).
calc::Result<calc::Catalog> load_catalog(const std::filesystem::path& dir);

// The data directory: $RIDGE_DATA, ./data, or the source tree's data/ (for a build tree).
std::filesystem::path default_data_dir();

// The whole file, or an error naming the path.
calc::Result<std::string> read_text_file(const std::filesystem::path& path, std::string_view field = "file");

}  // namespace ridge::calc_io
