// Loads content/ into a Bank: parses every file, validates it, evaluates every calc block
// once through the engine, substitutes references, renders Markdown to HTML and builds the
// indexes. Every problem is reported with its file and line; the load never throws.
#pragma once

#include <filesystem>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "bank/bank.h"
#include "bank/checks.h"
#include "calc/registry.h"

namespace ridge::bank {

struct LoadOptions {
  bool lint = true;  // prose lint (ridge check); the server loads without it
  // With lint: a folder of the product's seed pages (*.txt); a run of 12 words shared with
  // any of them is an error (the bank says everything in its own words). Empty: no check.
  std::string seeds_dir;
  // Drill template ids a course may name (ridge check passes practice's); empty: not checked.
  std::vector<std::string> drill_templates;
  // Off (`ridge serve` without --strict-bank): a question's body is not rendered into HTML at
  // load, only the calc blocks its TL;DR (and a free answer's searched prose) quote are
  // evaluated and no derivation is kept, and what its body's stages find goes to
  // Question::body_errors instead of the load's errors. bank::answer_html renders the body
  // (and finds what the load left unchecked) on its first request.
  bool render_bodies = true;
};

struct LoadResult {
  Bank bank;
  std::vector<Diagnostic> errors;
  int calc_blocks = 0;
  int snippets = 0;
};

// The ids a question may refer to, known before questions are parsed.
struct KnownIds {
  std::set<std::string, std::less<>> topics, tracks, concepts, companies;
  // The lab's builds (the lab_build() calls of lab/CMakeLists.txt beside the content root);
  // empty when no lab is there, and then a question's `lab` is not checked against it.
  std::set<std::string, std::less<>> lab_builds;
  // content/retired-names.toml and content/source-kinds.toml (checks.h); empty lists when
  // the content root has neither file, and then nothing is refused.
  ContentPolicy policy;
};

LoadResult load_bank(const std::filesystem::path& root, const calc::Registry& registry, const calc::Catalog& catalog,
                     const LoadOptions& options = {});

// Parses one question file's text. `file` names it in diagnostics and its stem is the slug.
// Returns false (with diagnostics) when the file cannot become a question at all.
bool parse_question(std::string_view text, const std::string& file, const KnownIds& known,
                    const calc::Registry& registry, const calc::Catalog& catalog, const LoadOptions& options,
                    Question& out, std::vector<Diagnostic>& diags);

// A concept page (content/concepts/ID.md) has the body syntax of a question with its own
// front matter (title, summary, topic, prerequisites, calculators, updated) and sections
// (What it is, How it works, Numbers to know, The misconception, Sources). Parsed into a
// Question whose `concepts` are the prerequisites and `tracks` the calculators.
enum class DocKind { kQuestion, kConcept };
bool parse_document(std::string_view text, const std::string& file, const KnownIds& known,
                    const calc::Registry& registry, const calc::Catalog& catalog, const LoadOptions& options,
                    DocKind kind, Question& out, std::vector<Diagnostic>& diags);

// A question's body refused on first request (render_bodies off): names the file, the line
// and the first problem its load found.
struct BrokenBody : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The question's answer as HTML: `q.html` when the load rendered it, else rendered now from
// `q.body_markdown`, its calc blocks evaluated now (the same stages, so the same bytes).
// Throws BrokenBody when the load recorded body_errors, or when what the load left to the
// first request (Question::calcs_deferred) finds a problem. Thread-safe (reads `q` only).
std::string answer_html(const Question& q, const calc::Registry& registry, const calc::Catalog& catalog);

// The question's calc blocks with their derivations: `q.calcs` when the load kept them, else
// evaluated now from its body (render_bodies off keeps none). A block that fails has none.
std::vector<CalcBlock> evaluated_calcs(const Question& q, const calc::Registry& registry, const calc::Catalog& catalog);

// Reads topics.toml (topics, tracks).
void parse_topics(std::string_view text, const std::string& file, Bank& bank, std::vector<Diagnostic>& diags);

}  // namespace ridge::bank
