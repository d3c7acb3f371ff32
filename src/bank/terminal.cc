#include "bank/terminal.h"

#include <sstream>

#include "bank/markdown.h"

namespace ridge::bank {

std::string render_terminal(const Question& q) {
  std::map<std::string, const calc::Derivation*> results;
  for (const auto& c : q.calcs) results[c.id] = c.derivation ? &*c.derivation : nullptr;
  std::vector<Diagnostic> ignored;  // the loader already reported these
  std::string out = q.title + "\n" + std::string(difficulty_name(q.difficulty)) + " · " + q.topic + " · updated " +
                    q.updated + "\n\nTL;DR: " + q.tldr() + "\n\n";
  size_t calc_index = 0;
  for (const Block& b : split_blocks(q.body_markdown, 1, q.file, ignored)) {
    if (!b.fenced) {
      out += substitute_references(b.text, results, b.line, q.file, ignored);
      continue;
    }
    std::istringstream words(b.info);
    std::string kind;
    words >> kind;
    if (kind == "calc") {
      if (calc_index < q.calcs.size()) {
        const CalcBlock& c = q.calcs[calc_index++];
        if (c.hidden || !c.derivation) continue;
        std::istringstream lines(calc::render_text(*c.derivation));
        std::string line;
        while (std::getline(lines, line)) out += "    " + line + "\n";
        out += "\n";
      }
    } else if (kind == "diagram") {
      out += "    [diagram: " + b.info.substr(8) + "]\n\n";
    } else {
      std::istringstream lines(b.text);
      std::string line;
      while (std::getline(lines, line)) out += "    " + line + "\n";
      out += "\n";
    }
  }
  return out;
}

}  // namespace ridge::bank
