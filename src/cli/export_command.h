// `ridge export anki --deck NAME [--out FILE] [--include-paid]` and
// `ridge export site DIR [--include-paid]` (issue 37): an Anki deck streamed note by note, and
// the offline copy of the public site. Both are the operator's: paid answers only with
// --include-paid.
#pragma once

#include <ostream>
#include <string>

#include "calc/registry.h"

namespace CLI {
class App;
}

namespace ridge::cli {

struct ExportFlags {
  std::string deck;     // anki: topic:ID, track:ID, course:ID
  std::string out;      // anki: a file; empty: standard output
  std::string dir;      // site: where to write
  std::string content;  // empty: default_content_dir()
  std::string static_dir;
  bool include_paid = false;
  CLI::App* anki = nullptr;
  CLI::App* site = nullptr;
};

CLI::App* add_export(CLI::App& parent, ExportFlags& flags);
// 0 on success; 2 for a bad deck (with every accepted name); 1 when the bank does not load or
// a file cannot be written.
int run_export(const ExportFlags& flags, const calc::Registry& registry, const calc::Catalog& catalog, std::ostream& out,
               std::ostream& err);

}  // namespace ridge::cli
