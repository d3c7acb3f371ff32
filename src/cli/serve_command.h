// `ridge serve`: loads the catalogs and the bank, renders the pages, and serves them.
#pragma once

#include <string>
#include <vector>

namespace ridge::cli {

int run_serve(const std::vector<std::string>& args, const std::string& data_dir);

}  // namespace ridge::cli
