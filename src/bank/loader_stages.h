// The stages of loading one document (loader.cc runs them in order), shared by the files that
// hold them: front matter (front_matter.cc), calc blocks (calc_blocks.cc), the body's HTML
// (body_renderer.cc) with its directives (directives.cc). Internal to the bank loader.
#pragma once

#include <array>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <toml++/toml.h>

#include "bank/loader.h"
#include "bank/markdown.h"
#include "calc/derivation.h"

namespace ridge::bank::stages {

inline constexpr std::array<std::string_view, 5> kConceptSections = {"What it is", "How it works", "Numbers to know",
                                                                     "The misconception", "Sources"};
inline constexpr std::array<std::string_view, 6> kSections = {"Answer", "Decision table", "Signals",
                                                              "Diagram", "Follow-ups", "Sources"};

// The calc blocks' derivations by block id, as the later blocks and the prose refer to them.
using Results = std::map<std::string, const calc::Derivation*>;

std::string read_file(const std::filesystem::path& path);
// The line of a TOML node (plus `offset`, the line its text starts at), or `offset` for null.
int line_of(const toml::node* node, int offset);
// The table, or nullopt with a diagnostic at the line of the syntax error.
std::optional<toml::table> parse_toml(std::string_view text, const std::string& file, int line_offset,
                                      std::vector<Diagnostic>& diags);
inline std::string escape(std::string_view s) { return calc::html_escape(s); }

// Stage 1: a document's parts: the front matter's text, the body, and the body's first line number.
struct Split {
  std::string_view front;
  size_t body_start = 0;
  int body_line = 1;
};
std::optional<Split> split_front_matter(std::string_view text, const std::string& file, std::vector<Diagnostic>& diags);
// Stage 2: the front matter's fields into `q`. Answers the raw (unsubstituted) TL;DR.
std::string read_front_matter(const toml::table& fm, const std::string& file, const KnownIds& known,
                              const calc::Registry& registry, const LoadOptions& options, DocKind doc, Question& q,
                              std::vector<Diagnostic>& diags);
// The ids of the lab's builds: each `lab_build(ID` call in lab/CMakeLists.txt.
std::set<std::string, std::less<>> lab_build_ids(const std::filesystem::path& cmake_file);

// Stage 3: every calc block in order (a later block may use an earlier one's result). With
// `only`, a block whose id is not in it is recorded (id, line, hidden) but not evaluated: its
// result is null and it has no derivation.
Results evaluate_calcs(const std::vector<Block>& blocks, const calc::Registry& registry, const calc::Catalog& catalog,
                       const LoadOptions& options, const std::string& file, Question& q, std::vector<Diagnostic>& diags,
                       const std::set<std::string, std::less<>>* only = nullptr);
// Issue 30 (start-up): the ids of the calc blocks `tldr` quotes ({{id.key}}), and with
// `with_prose` those the body's prose quotes, then every earlier block those blocks name in
// their own text (a {{id.key}} reference, an expression's id.key, a what-if's id.flag), and so
// on back to the first block. What start-up must evaluate; the rest waits for first request.
std::set<std::string, std::less<>> blocks_quoted(const std::vector<Block>& blocks, std::string_view tldr, bool with_prose);

// Stage 4: the body into HTML, collecting sections, sources, links and follow-ups on the way.
class BodyRenderer {
 public:
  BodyRenderer(const calc::Registry& registry, const calc::Catalog& catalog, const LoadOptions& options,
               const Results& results, bool is_concept, const std::string& file, Question& q,
               std::vector<Diagnostic>& diags)
      : registry_(registry), catalog_(catalog), options_(options), results_(results), is_concept_(is_concept),
        file_(file), q_(q), diags_(diags) {}

  // The body's HTML; `q`'s sections, sources, links, follow-ups and snippets are filled in on the way.
  std::string render(const std::vector<Block>& blocks);
  // Off: collect what the body holds (sections, sources, links, follow-ups, snippets, the
  // search text, diagnostics) without the Markdown and derivation HTML (render_bodies off).
  void set_html(bool on) { html_on_ = on; }

 private:
  // Rendering (body_renderer.cc). Sections, sources, links and follow-ups come from the prose lines.
  void heading(const std::string& line, int ln);
  void source_definition(const std::string& line, int ln);
  void prose(const Block& b);
  void calc_block(const Block& b);
  // Directives (directives.cc): the fenced blocks that are not code to show.
  void diagram_block(const Block& b, const std::string& kind, std::istringstream& words);
  void output_block(const Block& b);
  void snippet_block(const Block& b, const std::string& kind, const std::string& mode);

  const calc::Registry& registry_;
  const calc::Catalog& catalog_;
  const LoadOptions& options_;
  const Results& results_;
  const bool is_concept_;
  const std::string& file_;
  Question& q_;
  std::vector<Diagnostic>& diags_;
  std::string html_;
  size_t calc_index_ = 0;
  const Snippet* last_snippet_ = nullptr;
  std::string current_section_;
  bool html_on_ = true;
};


// Citation markers ([^key]) in the rendered HTML become numbered links to the sources.
std::string link_citations(std::string html, const std::vector<SourceEntry>& sources);

}  // namespace ridge::bank::stages
