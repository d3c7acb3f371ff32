// The content model of the question bank: topics, tracks, concepts, companies and
// questions as loaded from content/. A loaded Question holds its rendered HTML and its
// evaluated calc blocks; nothing is recomputed per request. (`ridge serve` without
// --strict-bank loads less and makes the rest on first need, once: issue 30, below.)
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "calc/derivation.h"

namespace ridge::calc {
class Registry;
struct Catalog;
}  // namespace ridge::calc

namespace ridge::bank {

// One problem found while loading or checking, located at a file and line.
struct Diagnostic {
  std::string file;
  int line = 0;
  std::string message;
  std::string to_string() const { return file + ":" + std::to_string(line) + ": " + message; }
};

struct Topic {
  std::string id, name, description;
  int target = 0;
};

struct Track {
  std::string id, name, description;
  std::map<std::string, int> weights;  // topic id -> weight
};

struct Concept {
  std::string id, title;
  std::string summary, topic, updated;
  std::vector<std::string> prerequisites;  // concept ids
  std::vector<std::string> calculators;    // calculator names to try
  std::string html;                        // the rendered page body
  std::string file;
  bool stub = true;                        // only a title: not yet written
};

// A course: one track's ordered path of modules (content/courses/ID.toml).
struct CourseModule {
  std::string id, title, summary;
  std::vector<std::string> concepts, questions, drills;
  std::string exercise, exercise_prompt;  // a calc call and what to find with it
  std::string exercise_html;              // the exercise's derivation, rendered at load
};
struct Course {
  std::string id, title, track, summary, file;
  std::vector<CourseModule> modules;
};

// A company's interview loop as publicly reported (content/companies/ID.toml).
struct CompanySource {
  std::string id, title, url, read, kind;  // kind: company | candidate | guide | posting
  int line = 0;                             // in the company file
};
struct CompanyRound {
  std::string name, format, length, weighs, confidence;
  std::vector<std::string> sources;  // CompanySource ids
};
struct CompanyQuestion {
  std::string slug, source, why;  // source: a CompanySource id
};
struct Company {
  std::string id, name;
  std::string kind, summary, confidence, updated, note, file;
  std::vector<std::string> tracks, topics, stack;
  std::map<std::string, int> weights;  // kernels, platform, distributed, design, cost: 0 to 3
  std::vector<CompanyRound> rounds;
  std::vector<CompanySource> sources;
  std::vector<CompanyQuestion> questions;
  const CompanySource* find_source(std::string_view source_id) const {
    for (const auto& s : sources) {
      if (s.id == source_id) return &s;
    }
    return nullptr;
  }
};

struct CompanyRef {
  std::string id, source, confidence;
};

struct CalcBlock {
  std::string id;
  std::string call;  // "fit model=... gpu=..."
  int line = 0;
  bool hidden = false;
  std::optional<calc::Derivation> derivation;  // empty when evaluation failed
};

struct DiagramBlock {
  std::string kind;
  std::map<std::string, std::string> params;
  int line = 0;
};

struct Snippet {
  std::string language;  // cpp | python | cuda
  std::string mode;      // run | compile
  std::string code;
  std::optional<std::string> expected_output;
  int line = 0;
};

struct SourceEntry {
  std::string key, text;
  int line = 0;
};

// The front matter's [work] table: how Work it (src/practice/workit.h) varies the question.
struct WorkSpec {
  bool workable = true;
  std::string reason;               // why not, when workable is false
  std::vector<std::string> asked;   // "fit.max_sequences", in order; empty: the TL;DR's references
  double tolerance = 0.05;          // relative, per step
};

enum class Difficulty { kEasy = 0, kMedium = 1, kHard = 2, kExpert = 3 };
std::string_view difficulty_name(Difficulty d);
std::optional<Difficulty> parse_difficulty(std::string_view name);

struct Question {
  std::string slug;
  std::string file;  // path relative to the content root
  std::string title;
  std::string summary;  // the one-line promise shown in lists
  std::string topic;
  Difficulty difficulty = Difficulty::kEasy;
  std::vector<std::string> tracks;
  std::vector<std::string> concepts;
  std::vector<CompanyRef> companies;
  bool free = false;
  bool must_know = false;
  std::string lab;      // the lab build that runs this question's code (lab/ID), coding questions
  std::string updated;  // YYYY-MM-DD
  std::string tldr_markdown;  // as written, with its {{id.key}} references (Work it asks these)
  WorkSpec work;
  std::string body_markdown;  // as written
  int body_line = 1;          // the line of the file body_markdown starts at
  // The rendered answer (everything after the front matter). Empty when the bank was loaded
  // with LoadOptions::render_bodies off (`ridge serve`): bank::answer_html renders it then.
  std::string html;
  std::string plain_text;     // prose with references substituted, for search and lint
  std::vector<std::string> sections;  // level-2 headings in order
  std::vector<CalcBlock> calcs;
  // Loaded with render_bodies off: `calcs` hold each block's id, line and hidden flag but no
  // derivation (bank::evaluated_calcs evaluates them; issue 30).
  bool calcs_deferred = false;
  std::vector<DiagramBlock> diagrams;
  std::vector<Snippet> snippets;
  std::vector<SourceEntry> sources;
  std::vector<std::pair<std::string, int>> links;  // internal link targets with their lines
  std::vector<std::string> follow_ups;             // ### headings under Follow-ups
  int word_count = 0;                              // prose words (concepts)
  // Loaded with render_bodies off: what the body's stages (calc blocks, references, rendering,
  // structure, citations) found. The load still succeeds; bank::answer_html refuses the body
  // with the first of these (issue 30: a broken body is met by its first reader).
  std::vector<Diagnostic> body_errors;

  // The TL;DR with its references substituted, plain text: every reader goes through here.
  // Loaded with render_bodies off, a paid question's TL;DR that quotes calc blocks is made on
  // its first read (issue 30: start-up evaluated 1,014 blocks for TL;DRs nobody had asked
  // for yet): the blocks it quotes are evaluated then, once for the process however many
  // threads read it at once, and kept. Thread-safe. Throws BrokenBody (loader.h) on every
  // read when those blocks or references fail, naming the file and line (the server answers
  // 500 and logs it, as for a broken body). Copies of a question share what was made.
  const std::string& tldr() const;
  // For what lists many questions (the API's list, the review queue, an export): the TL;DR, or
  // the summary when the TL;DR cannot be made, so one broken question does not fail the list
  // (its own page still answers 500 and the log names the file).
  const std::string& listed_tldr() const noexcept;
  // The TL;DR known now (the load, tests): nothing is deferred.
  void set_tldr(std::string text);
  // The TL;DR is made on first read from `tldr_markdown` (at file line `line`) and the body's
  // calc blocks, with `registry` and `catalog`, which must outlive the question or be
  // replaced by rebind_tldr before it is read (the loader's; web::App rebinds to its own).
  void defer_tldr(int line, const calc::Registry& registry, const calc::Catalog& catalog);
  // A deferred TL;DR is made with these from now on (nothing when it is not deferred). Not
  // thread-safe: call before the question is shared (web::App's constructor does).
  void rebind_tldr(const calc::Registry& registry, const calc::Catalog& catalog);

 private:
  struct DeferredTldr;  // tldr.cc
  std::string tldr_;
  std::shared_ptr<DeferredTldr> deferred_tldr_;  // null once known at load
};

}  // namespace ridge::bank
