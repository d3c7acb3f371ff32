// Content checks that keep the bank from drifting (issue 32): decision tables whose last
// column flips, identifiers that upstream projects retired or renamed, and citations of
// source kinds that are not evidence for a primary fact. The two lists are data, kept in
// content/retired-names.toml and content/source-kinds.toml, so an editor adds a rename or a
// refused domain without touching code.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "bank/question.h"
#include "calc/hardware.h"

namespace ridge::bank {

// One identifier an upstream project retired or renamed (a DCGM field, an engine flag, a
// Kubernetes API version). `replacement` is what to write instead; `source` where the
// rename is documented; `since` the release or date it happened.
struct RetiredName {
  std::string name, replacement, since, source;
  int line = 0;  // in retired-names.toml
};

// A host whose pages are not evidence for a primary fact: a news site, a forum, a mirror
// or scraped copy, a job aggregator, a content farm. `path` narrows it to one part of the
// host ("/" or empty: the whole host). `candidate_reports`: a company page may cite it as a
// first-hand candidate report (kind = "candidate"), the one use where a forum is primary.
struct RefusedSource {
  std::string domain, path, kind, why;
  bool candidate_reports = false;
  int line = 0;  // in source-kinds.toml
};

struct ContentPolicy {
  std::vector<RetiredName> retired;
  std::vector<RefusedSource> refused;
};

// Reads content/retired-names.toml ([[retired]] name, replacement, since, source) and
// content/source-kinds.toml ([[refused]] domain, path, kind, why, candidate_reports). Every
// entry must carry each field; problems are reported against `file`.
void parse_retired_names(std::string_view text, const std::string& file, ContentPolicy& policy,
                         std::vector<Diagnostic>& diags);
void parse_source_kinds(std::string_view text, const std::string& file, ContentPolicy& policy,
                        std::vector<Diagnostic>& diags);

// The cells a decision table may not end in: the last column states the condition that
// reverses the choice. Refused: an empty cell, and a cell whose first word is "none",
// "never", "nothing", "n/a" or "-" (a "never: because ..." states no flip either).
// `body` is a question's Markdown body starting at file line `first_line`.
void check_flip_cells(std::string_view body, int first_line, const std::string& file, std::vector<Diagnostic>& diags);

// Every use of a retired name in `text` (starting at file line `first_line`; URLs are
// ignored) is an error naming its replacement, unless its sentence is about the rename:
// it names the replacement too, or says "renamed", "deprecated", "replaced", "formerly",
// "retired" or "older".
void check_retired_names(std::string_view text, int first_line, const std::string& file, const ContentPolicy& policy,
                         std::vector<Diagnostic>& diags);

// The refused entry that `url_or_text`'s first http(s) URL falls under, or nullptr.
const RefusedSource* refused_source(std::string_view url_or_text, const ContentPolicy& policy);

// A question's or concept's `[^key]: ...` sources: one citing a refused kind is an error
// unless it marks the page as the subject of what is said ("cited as the subject").
void check_source_kinds(const std::vector<SourceEntry>& sources, const std::string& file, const ContentPolicy& policy,
                        std::vector<Diagnostic>& diags);

// One network (issue 32 item 2): a link rate typed into a collective or a transfer call
// (allreduce bus-bandwidth, alltoall intra-/inter-bandwidth, transfer bandwidth) that is a link
// the catalog holds (a system GPU's scale-up both ways or per direction, one NIC, the node's
// NICs together, or its host link per direction, within 0.5%) is an error naming the file,
// block, value and the catalog name to use instead (allreduce gpu=..., {{chip.nic_bandwidth}} from `chip gpu=...`).
// `args` are the call's key=value pairs as written; references are not typed rates, and a
// transfer with medium=storage or medium=wan crosses no catalog link.
void check_typed_links(std::string_view calculator, const std::map<std::string, std::string, std::less<>>& args,
                       const calc::HardwareCatalog& hardware, const std::string& file, int line, const std::string& id,
                       std::vector<Diagnostic>& diags);

// The same for an expr block (issue 32 item 2): a literal with a bandwidth unit that is a
// link the catalog holds (the same links, within 0.5%) is an error naming the file, the line, the block and its variable, the value and the
// catalog result to read instead. Exempt, with a reason on the line just above:
// `# subject: WHY` where the number itself is what the answer is about, and
// `# medium=storage|wan|memory: WHAT` where the rate crosses no catalog link. `block_text`
// starts with its `expr` line at file line `first_line`.
void check_typed_link_literals(std::string_view block_text, int first_line, const calc::HardwareCatalog& hardware,
                               const std::string& file, const std::string& id, std::vector<Diagnostic>& diags);

// A company page's [[sources]]: a refused kind is an error, except a host marked
// candidate_reports cited as kind "candidate".
void check_company_sources(const Company& company, const ContentPolicy& policy, std::vector<Diagnostic>& diags);

}  // namespace ridge::bank
