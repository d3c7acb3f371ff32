#include "bank/loader.h"

#include <algorithm>
#include <functional>
#include <cmath>
#include <optional>
#include <fstream>
#include <set>
#include <sstream>
#include <toml++/toml.h>

#include "bank/company_loader.h"
#include "bank/course_loader.h"
#include "bank/lint.h"
#include "calc/expr.h"
#include "bank/markdown.h"
#include "diagram/diagrams.h"

namespace ridge::bank {
namespace fs = std::filesystem;

namespace {

constexpr std::array<std::string_view, 5> kConceptSections = {"What it is", "How it works", "Numbers to know",
                                                              "The misconception", "Sources"};
constexpr std::array<std::string_view, 6> kSections = {"Answer", "Decision table", "Signals",
                                                       "Diagram", "Follow-ups", "Sources"};

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int line_of(const toml::node* node, int offset) {
  return node ? static_cast<int>(node->source().begin.line) + offset : offset;
}

std::optional<toml::table> parse_toml(std::string_view text, const std::string& file, int line_offset,
                                      std::vector<Diagnostic>& diags) {
  try {
    return toml::parse(text, file);
  } catch (const toml::parse_error& e) {
    diags.push_back({file, static_cast<int>(e.source().begin.line) + line_offset,
                     "front matter is not valid TOML: " + std::string(e.description())});
    return std::nullopt;
  }
}

// Helpers that read a typed field and report what is wrong with it.
struct FieldReader {
  const toml::table& t;
  const std::string& file;
  int offset;
  std::vector<Diagnostic>& diags;

  std::string text(const char* key, bool required) {
    const toml::node* n = t.get(key);
    if (n == nullptr) {
      if (required) diags.push_back({file, offset + 1, "front matter: '" + std::string(key) + "' is required"});
      return {};
    }
    if (auto s = n->value<std::string>()) {
      if (required && s->empty()) diags.push_back({file, line_of(n, offset), "front matter: '" + std::string(key) + "' is empty"});
      return *s;
    }
    diags.push_back({file, line_of(n, offset), "front matter: '" + std::string(key) + "' must be a string"});
    return {};
  }

  std::vector<std::string> list(const char* key, bool required) {
    std::vector<std::string> out;
    const toml::node* n = t.get(key);
    if (n == nullptr) {
      if (required) diags.push_back({file, offset + 1, "front matter: '" + std::string(key) + "' is required (a list of ids)"});
      return out;
    }
    const toml::array* a = n->as_array();
    if (a == nullptr) {
      diags.push_back({file, line_of(n, offset), "front matter: '" + std::string(key) + "' must be a list of strings"});
      return out;
    }
    for (const auto& item : *a) {
      if (auto s = item.value<std::string>()) {
        out.push_back(*s);
      } else {
        diags.push_back({file, line_of(&item, offset), "front matter: '" + std::string(key) + "' holds a non-string"});
      }
    }
    if (required && out.empty()) diags.push_back({file, line_of(n, offset), "front matter: '" + std::string(key) + "' is empty"});
    return out;
  }

  bool boolean(const char* key, bool required) {
    const toml::node* n = t.get(key);
    if (n == nullptr) {
      if (required) diags.push_back({file, offset + 1, "front matter: '" + std::string(key) + "' is required (true or false)"});
      return false;
    }
    if (auto b = n->value<bool>()) return *b;
    diags.push_back({file, line_of(n, offset), "front matter: '" + std::string(key) + "' must be true or false"});
    return false;
  }
};

void check_ids(const std::vector<std::string>& ids, const std::set<std::string, std::less<>>& known, const char* what,
               const std::string& file, int line, std::vector<Diagnostic>& diags) {
  for (const auto& id : ids) {
    if (known.count(id)) continue;
    std::string list;
    for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
    diags.push_back({file, line, "unknown " + std::string(what) + " '" + id + "'; known: " + list});
  }
}

std::string escape(std::string_view s) { return calc::html_escape(s); }

// {{id.key}} for an expr block: the result with its unit, or nullopt.
std::optional<calc::Quantity> lookup_reference(std::string_view ref,
                                               const std::map<std::string, const calc::Derivation*>& results) {
  size_t dot = ref.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  auto it = results.find(std::string(ref.substr(0, dot)));
  if (it == results.end() || it->second == nullptr) return std::nullopt;
  const calc::NamedResult* r = it->second->find(ref.substr(dot + 1));
  if (r == nullptr) return std::nullopt;
  return calc::Quantity{r->value, r->unit};
}

// Significant digits of a literal as written ("22.76" -> 4, "1000" -> 1, "0.186" -> 3).
int significant_digits(std::string_view text) {
  std::string digits;
  bool seen_dot = false;
  for (char c : text) {
    if (c == '.') seen_dot = true;
    if (c == 'e' || c == 'E') break;
    if (std::isdigit(static_cast<unsigned char>(c))) digits += c;
  }
  size_t a = digits.find_first_not_of('0');
  if (a == std::string::npos) return 0;
  digits = digits.substr(a);
  if (!seen_dot) digits = digits.substr(0, digits.find_last_not_of('0') + 1);
  return static_cast<int>(digits.size());
}

bool same_to_3_digits(double a, double b) {
  if (a == 0 || b == 0) return false;
  double scale = std::pow(10.0, std::floor(std::log10(std::fabs(a))) - 2);
  return std::llround(a / scale) == std::llround(b / scale);
}

// A literal (`written`, or any literal when `written` is empty and the value has three or
// more significant digits) equal to an earlier result to three significant digits was
// retyped by hand: say which reference to use instead.
void check_retyped(double value, const std::string& written,
                   const std::map<std::string, const calc::Derivation*>& results, const std::string& file, int line,
                   const std::string& id, std::vector<Diagnostic>& diags) {
  if (!written.empty() && significant_digits(written) < 3) return;
  // Powers of two are sizes chosen on purpose (a context, a GPU count), not copies.
  if (value >= 1 && value == std::floor(value) && std::fmod(std::log2(value), 1.0) == 0) return;
  if (written.empty()) {
    // expr literals come in base units; a round constant (8, 1e6, 730) is not a copy.
    double m = std::fabs(value);
    if (m == 0) return;
    double scaled = m / std::pow(10.0, std::floor(std::log10(m)) - 2);
    if (std::fabs(scaled - std::round(scaled / 10) * 10) < 1e-6) return;  // two significant digits or fewer
  }
  for (const auto& [rid, d] : results) {
    if (d == nullptr) continue;
    for (const auto& r : d->results()) {
      if (r.unit == calc::Unit::kBool) continue;
      if (same_to_3_digits(value, r.value)) {
        diags.push_back({file, line, "calc " + id + ": the literal " + (written.empty() ? calc::format_significant(value, 4) : written) +
                                         " equals an earlier result: use {{" + rid + "." + r.key + "}}"});
        return;
      }
    }
  }
}

// Citation markers survive md4c as plain text and are turned into links afterwards.
constexpr std::string_view kCiteOpen = "@@cite:";
constexpr std::string_view kSourceOpen = "@@src:";

std::string mark_citations(std::string_view text) {
  std::string out;
  size_t pos = 0;
  while (true) {
    size_t open = text.find("[^", pos);
    if (open == std::string_view::npos) break;
    size_t close = text.find(']', open);
    if (close == std::string_view::npos) break;
    out.append(text.substr(pos, open - pos));
    std::string key(text.substr(open + 2, close - open - 2));
    bool definition = close + 1 < text.size() && text[close + 1] == ':' && (open == 0 || text[open - 1] == '\n');
    if (definition) {
      out += "- " + std::string(kSourceOpen) + key + "@@";
      pos = close + 2;
    } else {
      out += std::string(kCiteOpen) + key + "@@";
      pos = close + 1;
    }
  }
  out.append(text.substr(pos));
  return out;
}

std::string link_citations(std::string html, const std::vector<SourceEntry>& sources) {
  auto number = [&](const std::string& key) {
    for (size_t i = 0; i < sources.size(); ++i) {
      if (sources[i].key == key) return std::to_string(i + 1);
    }
    return std::string("?");
  };
  for (std::string_view marker : {kCiteOpen, kSourceOpen}) {
    for (size_t pos = 0; (pos = html.find(marker, pos)) != std::string::npos;) {
      size_t end = html.find("@@", pos + marker.size());
      if (end == std::string::npos) break;
      std::string key = html.substr(pos + marker.size(), end - pos - marker.size());
      std::string n = number(key);
      std::string repl = marker == kCiteOpen
                             ? "<sup class=\"cite\"><a href=\"#src-" + escape(key) + "\">[" + n + "]</a></sup>"
                             : "<span class=\"src\" id=\"src-" + escape(key) + "\">[" + n + "]</span>";
      html.replace(pos, end + 2 - pos, repl);
      pos += repl.size();
    }
  }
  return html;
}

// The words of a text, lower-cased, letters and digits only, for the seed-overlap check.
std::vector<std::string> words_of(std::string_view text) {
  std::vector<std::string> words;
  std::string w;
  for (char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c)) || (static_cast<unsigned char>(c) & 0x80)) {
      w += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!w.empty()) {
      words.push_back(std::move(w));
      w.clear();
    }
  }
  if (!w.empty()) words.push_back(std::move(w));
  return words;
}

constexpr size_t kSharedRun = 12;

std::string run_at(const std::vector<std::string>& words, size_t i) {
  std::string run;
  for (size_t k = i; k < i + kSharedRun; ++k) run += (k > i ? " " : "") + words[k];
  return run;
}

// Every run of 12 words in the seed pages.
std::set<std::string> seed_runs(const fs::path& dir) {
  std::set<std::string> runs;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() != ".txt") continue;
    std::vector<std::string> words = words_of(read_file(entry.path()));
    for (size_t i = 0; i + kSharedRun <= words.size(); ++i) runs.insert(run_at(words, i));
  }
  return runs;
}

void check_seed_overlap(std::string_view text, const std::string& file, const std::set<std::string>& runs,
                        std::vector<Diagnostic>& diags) {
  std::vector<std::string> words = words_of(text);
  for (size_t i = 0; i + kSharedRun <= words.size(); ++i) {
    std::string run = run_at(words, i);
    if (runs.count(run)) {
      diags.push_back({file, 1, "shares a run of 12 words with the seed pages (\"" + run +
                                    "\"): say it in our own words"});
      return;
    }
  }
}

}  // namespace

void parse_topics(std::string_view text, const std::string& file, Bank& bank, std::vector<Diagnostic>& diags) {
  auto table = parse_toml(text, file, 0, diags);
  if (!table) return;
  if (const toml::array* topics = table->get_as<toml::array>("topic")) {
    for (const auto& node : *topics) {
      const toml::table* t = node.as_table();
      if (!t) continue;
      FieldReader r{*t, file, line_of(&node, 0) - 1, diags};
      Topic topic{r.text("id", true), r.text("name", true), r.text("description", true),
                  static_cast<int>(t->get("target") ? t->get("target")->value_or<int64_t>(0) : 0)};
      bank.topics.push_back(std::move(topic));
    }
  }
  if (const toml::array* tracks = table->get_as<toml::array>("track")) {
    for (const auto& node : *tracks) {
      const toml::table* t = node.as_table();
      if (!t) continue;
      FieldReader r{*t, file, line_of(&node, 0) - 1, diags};
      Track track{r.text("id", true), r.text("name", true), r.text("description", true), {}};
      if (const toml::table* w = t->get_as<toml::table>("weights")) {
        for (const auto& [k, v] : *w) {
          std::string topic(k.str());
          if (!bank.find_topic(topic)) {
            diags.push_back({file, line_of(&v, 0), "track " + track.id + ": unknown topic '" + topic + "' in weights"});
          }
          track.weights[topic] = static_cast<int>(v.value_or<int64_t>(0));
        }
      }
      bank.tracks.push_back(std::move(track));
    }
  }
  if (bank.topics.empty()) diags.push_back({file, 1, "no [[topic]] entries"});
}

namespace {

using Results = std::map<std::string, const calc::Derivation*>;

// A document's parts: the front matter's text, the body, and the body's first line number.
struct Split {
  std::string_view front;
  size_t body_start = 0;
  int body_line = 1;
};

// Stage 1: the front matter between "+++" lines.
std::optional<Split> split_front_matter(std::string_view text, const std::string& file, std::vector<Diagnostic>& diags) {
  if (text.substr(0, 4) != "+++\n" && text.substr(0, 5) != "+++\r\n") {
    diags.push_back({file, 1, "a question starts with a '+++' line, then TOML front matter, then '+++'"});
    return std::nullopt;
  }
  size_t fm_start = text.find('\n') + 1;
  size_t fm_end = text.find("\n+++", fm_start - 1);
  if (fm_end == std::string_view::npos) {
    diags.push_back({file, 1, "front matter is never closed with a '+++' line"});
    return std::nullopt;
  }
  Split s;
  s.front = text.substr(fm_start, fm_end + 1 - fm_start);
  size_t body_start = text.find('\n', fm_end + 1);
  s.body_start = body_start == std::string_view::npos ? text.size() : body_start + 1;
  s.body_line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(s.body_start), '\n'));
  return s;
}

void check_keys(const toml::table& fm, bool is_concept, const std::string& file, std::vector<Diagnostic>& diags) {
  static const std::set<std::string, std::less<>> kKeys = {"title", "summary", "topic", "difficulty", "tracks", "concepts",
                                                           "companies", "free", "must_know", "tldr", "lab", "updated"};
  static const std::set<std::string, std::less<>> kConceptKeys = {"title", "summary", "topic", "prerequisites",
                                                                  "calculators", "updated"};
  for (const auto& [k, v] : fm) {
    if (!(is_concept ? kConceptKeys : kKeys).count(k.str())) {
      diags.push_back({file, line_of(&v, 1), "front matter: unknown key '" + std::string(k.str()) +
                                                 (is_concept ? "'; accepted: title, summary, topic, prerequisites, calculators, updated"
                                                             : "'; accepted: title, summary, topic, difficulty, tracks, concepts, "
                                                               "companies, free, must_know, tldr, lab, updated")});
    }
  }
}

void read_companies(const toml::table& fm, const std::string& file, const KnownIds& known, Question& q,
                    std::vector<Diagnostic>& diags) {
  const toml::node* companies = fm.get("companies");
  if (companies == nullptr) return;
  const toml::array* a = companies->as_array();
  if (!a) {
    diags.push_back({file, line_of(companies, 1), "front matter: 'companies' must be [[companies]] tables"});
    return;
  }
  for (const auto& node : *a) {
    const toml::table* t = node.as_table();
    if (!t) {
      diags.push_back({file, line_of(&node, 1), "front matter: each company is a table with id, source, confidence"});
      continue;
    }
    FieldReader cr{*t, file, line_of(&node, 1) - 1, diags};
    CompanyRef c{cr.text("id", true), cr.text("source", true), cr.text("confidence", true)};
    check_ids({c.id}, known.companies, "company", file, line_of(&node, 1), diags);
    if (!c.confidence.empty() && c.confidence != "documented" && c.confidence != "partial" && c.confidence != "limited") {
      diags.push_back({file, line_of(&node, 1), "company confidence '" + c.confidence +
                                                    "' is not one of documented, partial, limited"});
    }
    q.companies.push_back(std::move(c));
  }
}

// A coding question names the lab build that runs its code; the build must exist.
void read_lab(const toml::table& fm, const std::string& file, const KnownIds& known, bool lint, Question& q,
              std::vector<Diagnostic>& diags) {
  FieldReader r{fm, file, 1, diags};
  q.lab = r.text("lab", false);
  int line = line_of(fm.get("lab"), 1);
  if (q.lab.empty()) {
    if (lint && q.topic == "coding") diags.push_back({file, 2, "front matter: a coding question names its lab build: lab = \"ID\""});
    return;
  }
  if (!known.lab_builds.empty() && !known.lab_builds.count(q.lab)) {
    std::string accepted;
    for (const auto& id : known.lab_builds) accepted += (accepted.empty() ? "" : ", ") + id;
    diags.push_back({file, line, "front matter: lab build '" + q.lab + "' does not exist; accepted: " + accepted});
  }
}

// The ids of the lab's builds: each `lab_build(ID` call in lab/CMakeLists.txt.
std::set<std::string, std::less<>> lab_build_ids(const fs::path& cmake_file) {
  std::set<std::string, std::less<>> ids;
  std::error_code ec;
  if (!fs::exists(cmake_file, ec)) return ids;
  std::istringstream in(read_file(cmake_file));
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("lab_build(", 0) != 0) continue;
    size_t start = std::string_view("lab_build(").size();
    size_t end = std::min(line.find_first_of(" )\t\r", start), line.size());  // "lab_build(ID" may end the line
    if (end > start) ids.insert(line.substr(start, end - start));
  }
  return ids;
}

// Stage 2: the front matter's fields into `q`. Answers the raw (unsubstituted) TL;DR.
std::string read_front_matter(const toml::table& fm, const std::string& file, const KnownIds& known,
                              const calc::Registry& registry, const LoadOptions& options, DocKind doc, Question& q,
                              std::vector<Diagnostic>& diags) {
  const bool is_concept = doc == DocKind::kConcept;
  check_keys(fm, is_concept, file, diags);
  FieldReader r{fm, file, 1, diags};
  q.title = r.text("title", true);
  q.summary = r.text("summary", false);
  q.topic = r.text("topic", true);
  if (!q.topic.empty()) check_ids({q.topic}, known.topics, "topic", file, line_of(fm.get("topic"), 1), diags);
  if (is_concept) {
    q.concepts = r.list("prerequisites", false);
    check_ids(q.concepts, known.concepts, "prerequisite concept", file, line_of(fm.get("prerequisites"), 1), diags);
    q.tracks = r.list("calculators", false);  // a concept's calculators to try
    for (const auto& c : q.tracks) {
      if (registry.find(c) == nullptr) {
        diags.push_back({file, line_of(fm.get("calculators"), 1), "calculator '" + c + "' does not exist; accepted: " +
                                                                      registry.name_list()});
      }
    }
  } else {
    std::string difficulty = r.text("difficulty", true);
    if (auto d = parse_difficulty(difficulty)) {
      q.difficulty = *d;
    } else if (!difficulty.empty()) {
      diags.push_back({file, line_of(fm.get("difficulty"), 1),
                       "difficulty '" + difficulty + "' is not one of easy, medium, hard, expert"});
    }
    q.tracks = r.list("tracks", true);
    check_ids(q.tracks, known.tracks, "track", file, line_of(fm.get("tracks"), 1), diags);
    q.concepts = r.list("concepts", true);
    check_ids(q.concepts, known.concepts, "concept", file, line_of(fm.get("concepts"), 1), diags);
    q.free = r.boolean("free", true);
    q.must_know = r.boolean("must_know", false);
    read_lab(fm, file, known, options.lint, q, diags);
  }
  std::string tldr_raw = is_concept ? std::string() : r.text("tldr", true);
  if (const toml::node* u = fm.get("updated")) {
    if (auto d = u->as_date()) {
      std::ostringstream os;
      os << d->get();
      q.updated = os.str();
    } else {
      diags.push_back({file, line_of(u, 1), "front matter: 'updated' must be a TOML date such as 2026-11-30"});
    }
  } else {
    diags.push_back({file, 2, "front matter: 'updated' is required (a date such as 2026-11-30)"});
  }
  if (!is_concept) read_companies(fm, file, known, q, diags);
  return tldr_raw;
}

bool is_calc_block(const Block& b) {
  return b.fenced && b.info.rfind("calc", 0) == 0 && (b.info.size() == 4 || b.info[4] == ' ');
}

// The header "calc id=kv" or "calc id=kv hidden" into `cb`; false when it names no id.
bool read_calc_header(const Block& b, CalcBlock& cb, const std::string& file, std::vector<Diagnostic>& diags) {
  std::istringstream words(b.info.substr(4));
  std::string word;
  while (words >> word) {
    if (word.rfind("id=", 0) == 0) {
      cb.id = word.substr(3);
    } else if (word == "hidden") {
      cb.hidden = true;
    } else {
      diags.push_back({file, cb.line, "calc block header: '" + word + "' is not id=NAME or hidden"});
    }
  }
  if (cb.id.empty()) {
    diags.push_back({file, cb.line, "calc block needs an id: ```calc id=NAME"});
    return false;
  }
  return true;
}

// Arithmetic between results: references are resolved by the expr engine itself, so its
// steps show which result each number came from.
void evaluate_expr_block(const Block& b, const Results& results, const LoadOptions& options, const std::string& file,
                         CalcBlock& cb, std::vector<Diagnostic>& diags) {
  cb.call = std::string(b.text.substr(0, b.text.find_last_not_of(" \n") + 1));
  auto lookup = [&](std::string_view ref) -> std::optional<calc::Quantity> { return lookup_reference(ref, results); };
  std::vector<calc::Quantity> literals;
  auto d = calc::evaluate_expr_collecting(b.text, lookup, &literals);
  if (d) {
    cb.derivation = std::move(d).value();
  } else {
    for (const auto& e : d.errors()) diags.push_back({file, b.line, "calc " + cb.id + ": " + e.to_string()});
  }
  if (options.lint) {
    for (const auto& lit : literals) check_retyped(lit.value, "", results, file, b.line, cb.id, diags);
  }
}

// A calculator call: "fit model=... gpu=..." with {{id.key}} references substituted.
void evaluate_call_block(const Block& b, const Results& results, const calc::Registry& registry,
                         const calc::Catalog& catalog, const LoadOptions& options, const std::string& file, CalcBlock& cb,
                         std::vector<Diagnostic>& diags) {
  std::string call_text = substitute_references(b.text, results, b.line, file, diags, /*raw=*/true);
  cb.call = std::string(call_text.substr(0, call_text.find_last_not_of(" \n") + 1));
  if (options.lint) {
    // A literal input that equals an earlier result was copied by hand: pass it by reference.
    std::istringstream args(b.text);
    std::string arg;
    while (args >> arg) {
      size_t eq = arg.find('=');
      if (eq == std::string::npos || arg.find("{{") != std::string::npos) continue;
      std::string value = arg.substr(eq + 1);
      char* end = nullptr;
      double v = std::strtod(value.c_str(), &end);
      if (end == value.c_str()) continue;
      check_retyped(v, value.substr(0, static_cast<size_t>(end - value.c_str())), results, file, b.line, cb.id, diags);
    }
  }
  CalcCall call;
  std::string error;
  if (!parse_call(call_text, call, error)) {
    diags.push_back({file, b.line, "calc " + cb.id + ": " + error});
  } else if (registry.find(call.calculator) == nullptr) {
    diags.push_back({file, b.line, "calc " + cb.id + ": '" + call.calculator + "' is not a calculator; accepted: " +
                                       registry.name_list()});
  } else {
    auto d = registry.evaluate(call.calculator, call.args, catalog);
    if (d) {
      cb.derivation = std::move(d).value();
    } else {
      for (const auto& e : d.errors()) diags.push_back({file, b.line, "calc " + cb.id + ": " + e.to_string()});
    }
  }
}

// Stage 3: every calc block in order (a later block may use an earlier one's result).
Results evaluate_calcs(const std::vector<Block>& blocks, const calc::Registry& registry, const calc::Catalog& catalog,
                       const LoadOptions& options, const std::string& file, Question& q, std::vector<Diagnostic>& diags) {
  Results results;
  q.calcs.reserve(blocks.size());
  for (const Block& b : blocks) {
    if (!is_calc_block(b)) continue;
    CalcBlock cb;
    cb.line = b.line - 1;
    if (!read_calc_header(b, cb, file, diags)) continue;
    if (results.count(cb.id)) {
      diags.push_back({file, cb.line, "calc block id '" + cb.id + "' is used twice"});
      continue;
    }
    if (calc::is_expr_block(b.text)) {
      evaluate_expr_block(b, results, options, file, cb, diags);
    } else {
      evaluate_call_block(b, results, registry, catalog, options, file, cb, diags);
    }
    q.calcs.push_back(std::move(cb));
    results[q.calcs.back().id] = q.calcs.back().derivation ? &*q.calcs.back().derivation : nullptr;
  }
  return results;
}

// Stage 4: the body into HTML, collecting sections, sources, links and follow-ups on the way.
class BodyRenderer {
 public:
  BodyRenderer(const calc::Registry& registry, const calc::Catalog& catalog, const LoadOptions& options,
               const Results& results, bool is_concept, const std::string& file, Question& q,
               std::vector<Diagnostic>& diags)
      : registry_(registry), catalog_(catalog), options_(options), results_(results), is_concept_(is_concept),
        file_(file), q_(q), diags_(diags) {}

  std::string render(const std::vector<Block>& blocks) {
    for (const Block& b : blocks) {
      if (!b.fenced && b.text.find_first_not_of(" \t\n") == std::string::npos) continue;  // blank lines between fences
      if (!b.fenced) {
        prose(b);
        last_snippet_ = nullptr;
        continue;
      }
      std::istringstream info_words(b.info);
      std::string kind, mode;
      info_words >> kind >> mode;
      if (kind == "calc") {
        calc_block(b);
        last_snippet_ = nullptr;
      } else if (kind == "diagram") {
        diagram_block(b, mode, info_words);
        last_snippet_ = nullptr;
      } else if (kind == "output") {
        output_block(b);
        last_snippet_ = nullptr;
      } else if ((kind == "cpp" || kind == "python" || kind == "cuda") && (mode == "run" || mode == "compile")) {
        snippet_block(b, kind, mode);
      } else {
        html_ += "<pre><code" + (kind.empty() ? std::string() : " class=\"language-" + escape(kind) + "\"") + ">" +
                 escape(b.text) + "</code></pre>\n";
        last_snippet_ = nullptr;
      }
    }
    return std::move(html_);
  }

 private:
  void heading(const std::string& line, int ln) {
    current_section_ = line.substr(3);
    q_.sections.push_back(current_section_);
    if (is_concept_) {
      if (std::find(kConceptSections.begin(), kConceptSections.end(), current_section_) == kConceptSections.end()) {
        diags_.push_back({file_, ln, "section '" + current_section_ +
                                         "' is not one of What it is, How it works, Numbers to know, The misconception, Sources"});
      }
    } else if (std::find(kSections.begin(), kSections.end(), current_section_) == kSections.end()) {
      diags_.push_back({file_, ln, "section '" + current_section_ +
                                       "' is not one of Answer, Decision table, Signals, Diagram, Follow-ups, Sources"});
    }
  }

  void source_definition(const std::string& line, int ln) {
    size_t close = line.find("]:");
    std::string key = line.substr(2, close - 2);
    std::string rest = line.substr(close + 2);
    if (current_section_ != "Sources") diags_.push_back({file_, ln, "source [^" + key + "] is defined outside ## Sources"});
    if (std::any_of(q_.sources.begin(), q_.sources.end(), [&](const SourceEntry& s) { return s.key == key; })) {
      diags_.push_back({file_, ln, "source [^" + key + "] is defined twice"});
    }
    size_t first = rest.find_first_not_of(' ');
    q_.sources.push_back({key, first == std::string::npos ? std::string() : rest.substr(first), ln});
  }

  // Sections, sources, links and follow-ups come from the prose lines.
  void prose(const Block& b) {
    std::istringstream lines(b.text);
    std::string line;
    for (int ln = b.line; std::getline(lines, line); ++ln) {
      if (line.rfind("## ", 0) == 0) {
        heading(line, ln);
      } else if (line.rfind("### ", 0) == 0 && current_section_ == "Follow-ups") {
        q_.follow_ups.push_back(line.substr(4));
      } else if (line.rfind("[^", 0) == 0 && line.find("]:") != std::string::npos) {
        source_definition(line, ln);
      }
      for (size_t pos = 0; (pos = line.find("](/", pos)) != std::string::npos; ++pos) {
        size_t close = line.find(')', pos);
        if (close != std::string::npos) q_.links.emplace_back(line.substr(pos + 2, close - pos - 2), ln);
      }
    }
    if (options_.lint) {
      lint_prose(b.text, b.line, file_, diags_);
      lint_arithmetic(b.text, b.line, file_, diags_);
    }
    std::string text = substitute_references(b.text, results_, b.line, file_, diags_);
    q_.plain_text += text;
    html_ += markdown_to_html(mark_citations(text));
  }

  void calc_block(const Block& b) {
    if (calc_index_ < q_.calcs.size() && q_.calcs[calc_index_].line == b.line - 1) {
      const CalcBlock& cb = q_.calcs[calc_index_++];
      if (cb.derivation && !cb.hidden) html_ += calc::render_html(*cb.derivation);
    }
  }

  void diagram_block(const Block& b, const std::string& kind, std::istringstream& words) {
    DiagramBlock d;
    d.line = b.line - 1;
    d.kind = kind;
    std::string word;
    bool syntax_ok = true;
    while (words >> word) {
      size_t eq = word.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == word.size()) {
        diags_.push_back({file_, d.line, "diagram parameter '" + word + "' is not key=value"});
        syntax_ok = false;
        continue;
      }
      d.params[word.substr(0, eq)] = word.substr(eq + 1);
    }
    const calc::Derivation* from = nullptr;
    if (auto f = d.params.find("from"); f != d.params.end()) {
      auto found = results_.find(f->second);
      if (found == results_.end()) {
        diags_.push_back({file_, d.line, "diagram from=" + f->second + ": no calc block with that id"});
        syntax_ok = false;
      } else {
        from = found->second;
        if (from == nullptr) syntax_ok = false;  // that block's own error is reported
      }
    }
    if (syntax_ok) {
      calc::Given given(d.params.begin(), d.params.end());
      diagram::Options opts;
      opts.id = q_.slug + "-d" + std::to_string(q_.diagrams.size() + 1);
      auto drawn = diagram::draw(d.kind, given, registry_, catalog_, opts, from);
      if (drawn) {
        html_ += "<figure class=\"diagram\">" + drawn->svg + "<figcaption>" + escape(drawn->title) + "</figcaption></figure>\n";
      } else {
        for (const auto& e : drawn.errors()) diags_.push_back({file_, d.line, "diagram " + d.kind + ": " + e.to_string()});
      }
    }
    q_.diagrams.push_back(std::move(d));
  }

  void output_block(const Block& b) {
    if (last_snippet_ == nullptr) {
      diags_.push_back({file_, b.line - 1, "```output must follow a snippet (```cpp run, ```python run)"});
    } else {
      q_.snippets.back().expected_output = b.text;
    }
    html_ += "<pre class=\"output\"><code>" + escape(b.text) + "</code></pre>\n";
  }

  void snippet_block(const Block& b, const std::string& kind, const std::string& mode) {
    if (kind == "cuda" && mode == "run") {
      diags_.push_back({file_, b.line - 1, "```cuda run is not supported: use ```cuda compile (CI has no GPU)"});
    }
    q_.snippets.push_back({kind, mode, b.text, std::nullopt, b.line - 1});
    last_snippet_ = &q_.snippets.back();
    html_ += "<pre class=\"snippet\" data-lang=\"" + escape(kind) + "\"><code class=\"language-" + escape(kind) + "\">" +
             escape(b.text) + "</code></pre>\n";
  }

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
};

// Stage 5a: a concept's structure: the four teaching sections in order, Sources last if
// present, and enough words to teach (prose only: code and calc blocks do not count).
void check_concept_structure(Question& q, const std::string& file, int body_line, std::vector<Diagnostic>& diags) {
  std::vector<std::string> expected = {"What it is", "How it works", "Numbers to know", "The misconception"};
  std::vector<std::string> got = q.sections;
  if (!got.empty() && got.back() == "Sources") got.pop_back();
  if (got != expected) {
    diags.push_back({file, body_line, "a concept's sections are, in order: What it is, How it works, Numbers to know, "
                                      "The misconception (then Sources when anything is cited)"});
  }
  size_t words = 0;
  bool in_word = false;
  for (char c : q.plain_text) {
    bool w = std::isalnum(static_cast<unsigned char>(c)) || (static_cast<unsigned char>(c) & 0x80);
    if (w && !in_word) ++words;
    in_word = w;
  }
  q.word_count = static_cast<int>(words);
  if (words < 120) {
    diags.push_back({file, body_line, "a concept teaches in 150 to 400 words; this one has " + std::to_string(words) +
                                          " (at least 120 are required)"});
  }
}

// Stage 5b: the sections a question must have, in order.
void check_question_structure(const Question& q, const std::string& file, int body_line, std::vector<Diagnostic>& diags) {
  auto has = [&](std::string_view s) { return std::find(q.sections.begin(), q.sections.end(), s) != q.sections.end(); };
  if (q.sections.empty() || q.sections.front() != "Answer") diags.push_back({file, body_line, "the body starts with '## Answer'"});
  for (const char* required : {"Follow-ups", "Sources"}) {
    if (!has(required)) diags.push_back({file, body_line, "section '## " + std::string(required) + "' is missing"});
  }
  if (!has("Decision table") && !has("Signals") && !has("Diagram")) {
    diags.push_back({file, body_line, "a question needs at least one of '## Decision table', '## Signals', '## Diagram'"});
  }
  if (has("Sources") && q.sections.back() != "Sources") diags.push_back({file, body_line, "'## Sources' is the last section"});
  if (has("Follow-ups") && (q.follow_ups.size() < 2 || q.follow_ups.size() > 4)) {
    diags.push_back({file, body_line, "'## Follow-ups' holds " + std::to_string(q.follow_ups.size()) +
                                          " '### ' questions; it needs 2 to 4"});
  }
}

// Stage 6: every [^key] used is defined, and every definition is used.
void check_citations(const Question& q, const std::string& tldr_raw, int tldr_line, int body_line,
                     const LoadOptions& options, const std::string& file, std::vector<Diagnostic>& diags) {
  std::string all_prose = tldr_raw + "\n" + q.body_markdown;
  for (size_t pos = 0; (pos = all_prose.find("[^", pos)) != std::string::npos; pos += 2) {
    size_t close = all_prose.find(']', pos);
    if (close == std::string::npos) break;
    std::string key = all_prose.substr(pos + 2, close - pos - 2);
    bool definition = close + 1 < all_prose.size() && all_prose[close + 1] == ':' && (pos == 0 || all_prose[pos - 1] == '\n');
    if (definition) continue;
    if (!std::any_of(q.sources.begin(), q.sources.end(), [&](const SourceEntry& s) { return s.key == key; })) {
      int ln = body_line - 1 + static_cast<int>(std::count(all_prose.begin() + static_cast<long>(tldr_raw.size()) + 1,
                                                           all_prose.begin() + static_cast<long>(std::max(pos, tldr_raw.size() + 1)), '\n'));
      diags.push_back({file, pos <= tldr_raw.size() ? tldr_line : ln + 1, "citation [^" + key + "] has no definition in ## Sources"});
    }
  }
  for (const auto& s : q.sources) {
    // Cited means mentioned somewhere other than at the start of a line (its definition).
    std::string marker = "[^" + s.key + "]";
    bool cited = false;
    for (size_t pos = all_prose.find(marker); pos != std::string::npos && !cited; pos = all_prose.find(marker, pos + 1)) {
      cited = pos > 0 && all_prose[pos - 1] != '\n';
    }
    if (!cited && options.lint) diags.push_back({file, s.line, "source [^" + s.key + "] is never cited"});
    if (s.text.empty()) diags.push_back({file, s.line, "source [^" + s.key + "] says nothing: what, who, when"});
  }
}

}  // namespace

bool parse_question(std::string_view text, const std::string& file, const KnownIds& known,
                    const calc::Registry& registry, const calc::Catalog& catalog, const LoadOptions& options,
                    Question& q, std::vector<Diagnostic>& diags) {
  return parse_document(text, file, known, registry, catalog, options, DocKind::kQuestion, q, diags);
}

// The stages in order: front matter, its fields, calc blocks, the body's HTML, structure, citations.
bool parse_document(std::string_view text, const std::string& file, const KnownIds& known,
                    const calc::Registry& registry, const calc::Catalog& catalog, const LoadOptions& options,
                    DocKind doc, Question& q, std::vector<Diagnostic>& diags) {
  const bool is_concept = doc == DocKind::kConcept;
  size_t before = diags.size();
  q.file = file;
  q.slug = fs::path(file).stem().string();
  if (options.lint) lint_em_dashes(text, file, diags);

  std::optional<Split> split = split_front_matter(text, file, diags);
  if (!split) return false;
  auto fm = parse_toml(split->front, file, 1, diags);
  if (!fm) return false;
  std::string tldr_raw = read_front_matter(*fm, file, known, registry, options, doc, q, diags);
  int tldr_line = line_of(fm->get("tldr"), 1);

  q.body_markdown = std::string(text.substr(split->body_start));
  std::vector<Block> blocks = split_blocks(q.body_markdown, split->body_line, file, diags);
  Results results = evaluate_calcs(blocks, registry, catalog, options, file, q, diags);

  q.tldr = substitute_references(tldr_raw, results, tldr_line, file, diags);
  if (options.lint) {
    lint_prose(tldr_raw, tldr_line, file, diags);
    lint_arithmetic(tldr_raw, tldr_line, file, diags);
    lint_arithmetic(q.title, line_of(fm->get("title"), 1), file, diags);
    lint_arithmetic(q.summary, line_of(fm->get("summary"), 1), file, diags);
  }

  BodyRenderer renderer(registry, catalog, options, results, is_concept, file, q, diags);
  q.html = link_citations(renderer.render(blocks), q.sources);

  if (is_concept) {
    check_concept_structure(q, file, split->body_line, diags);
  } else {
    check_question_structure(q, file, split->body_line, diags);
  }
  check_citations(q, tldr_raw, tldr_line, split->body_line, options, file, diags);
  if (options.lint) {
    if (!is_concept) check_flip_cells(q.body_markdown, split->body_line, file, diags);
    check_retired_names(text, 1, file, known.policy, diags);
    check_source_kinds(q.sources, file, known.policy, diags);
    for (const auto& ref : q.companies) {
      if (const RefusedSource* r = refused_source(ref.source, known.policy)) {
        diags.push_back({file, 1, "[[companies]] " + ref.id + ": source cites " + r->domain + " (" + r->kind +
                                      "): cite the company's own page or a first-hand report"});
      }
    }
  }
  return diags.size() == before || !q.title.empty();
}

LoadResult load_bank(const fs::path& root, const calc::Registry& registry, const calc::Catalog& catalog,
                     const LoadOptions& options) {
  LoadResult result;
  Bank& bank = result.bank;
  auto& diags = result.errors;
  std::error_code ec;
  if (!fs::is_directory(root, ec)) {
    diags.push_back({root.string(), 0, "is not a directory (the content root holds topics.toml and questions/)"});
    return result;
  }
  auto rel = [&](const fs::path& p) { return fs::relative(p, root.parent_path().empty() ? "." : root.parent_path(), ec).string(); };
  fs::path topics_file = root / "topics.toml";
  if (!fs::exists(topics_file, ec)) {
    diags.push_back({rel(topics_file), 0, "is missing"});
    return result;
  }
  parse_topics(read_file(topics_file), rel(topics_file), bank, diags);

  KnownIds known;
  for (const auto& t : bank.topics) known.topics.insert(t.id);
  for (const auto& t : bank.tracks) known.tracks.insert(t.id);
  known.lab_builds = lab_build_ids(fs::weakly_canonical(root, ec).parent_path() / "lab" / "CMakeLists.txt");
  if (options.lint) {
    if (fs::path p = root / "retired-names.toml"; fs::exists(p, ec)) {
      parse_retired_names(read_file(p), rel(p), known.policy, diags);
    }
    if (fs::path p = root / "source-kinds.toml"; fs::exists(p, ec)) {
      parse_source_kinds(read_file(p), rel(p), known.policy, diags);
    }
  }
  // Concepts: ids first (prerequisites refer to each other), bodies after companies.
  std::vector<fs::path> concept_files;
  for (const auto& entry : fs::directory_iterator(root / "concepts", ec)) {
    if (entry.path().extension() != ".md") continue;
    concept_files.push_back(entry.path());
    known.concepts.insert(entry.path().stem().string());
  }
  std::sort(concept_files.begin(), concept_files.end());
  for (const auto& entry : fs::directory_iterator(root / "companies", ec)) {
    if (entry.path().extension() != ".toml") continue;
    std::string id = entry.path().stem().string();
    std::vector<Diagnostic> local;
    std::string company_text = read_file(entry.path());
    Company c = parse_company(company_text, id, rel(entry.path()), known, local);
    check_company_sources(c, known.policy, local);
    check_retired_names(company_text, 1, c.file, known.policy, local);
    if (options.lint) diags.insert(diags.end(), local.begin(), local.end());
    known.companies.insert(id);
    bank.companies.emplace(id, std::move(c));
  }

  std::map<std::string, Question> concept_docs;
  for (const auto& path : concept_files) {
    std::string id = path.stem().string();
    Question doc;
    Concept c{id, id};
    c.file = rel(path);
    // The server (no lint) serves what is written and shows a stub as "being written"; the
    // checker holds every concept to the bar.
    std::vector<Diagnostic> local;
    parse_document(read_file(path), c.file, known, registry, catalog, options, DocKind::kConcept, doc, local);
    if (options.lint) diags.insert(diags.end(), local.begin(), local.end());
    if (!doc.title.empty()) c.title = doc.title;
    c.summary = doc.summary;
    c.topic = doc.topic;
    c.updated = doc.updated;
    c.prerequisites = doc.concepts;
    c.calculators = doc.tracks;
    c.html = doc.html;
    c.stub = doc.word_count < 120;
    bank.concepts.emplace(id, std::move(c));
    concept_docs.emplace(id, std::move(doc));
  }
  // Prerequisites form no cycle (a depth-first walk that meets a concept on its own path).
  {
    std::map<std::string, int> state;  // 0 unseen, 1 on the path, 2 done
    std::vector<std::string> path;
    std::function<void(const std::string&)> visit = [&](const std::string& id) {
      state[id] = 1;
      path.push_back(id);
      auto it = bank.concepts.find(id);
      if (it != bank.concepts.end()) {
        for (const auto& p : it->second.prerequisites) {
          if (state[p] == 1) {
            std::string cycle;
            for (auto k = std::find(path.begin(), path.end(), p); k != path.end(); ++k) cycle += *k + " -> ";
            diags.push_back({it->second.file, 1, "prerequisites form a cycle: " + cycle + p});
          } else if (state[p] == 0 && bank.concepts.count(p)) {
            visit(p);
          }
        }
      }
      path.pop_back();
      state[id] = 2;
    };
    for (const auto& [id, c] : bank.concepts) {
      if (options.lint && state[id] == 0) visit(id);
    }
  }

  std::vector<fs::path> files;
  for (auto it = fs::recursive_directory_iterator(root / "questions", ec); it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (it->path().extension() == ".md") files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());
  bank.questions.reserve(files.size());
  std::map<std::string, std::string> slugs;
  for (const auto& path : files) {
    std::string file = rel(path);
    Question q;
    if (!parse_question(read_file(path), file, known, registry, catalog, options, q, diags)) continue;
    std::string dir_topic = path.parent_path().filename().string();
    if (!q.topic.empty() && dir_topic != q.topic) {
      diags.push_back({file, 1, "is in questions/" + dir_topic + "/ but its topic is '" + q.topic + "'"});
    }
    if (auto [it, inserted] = slugs.emplace(q.slug, file); !inserted) {
      diags.push_back({file, 1, "slug '" + q.slug + "' is already used by " + it->second});
      continue;
    }
    result.calc_blocks += static_cast<int>(q.calcs.size());
    result.snippets += static_cast<int>(q.snippets.size());
    bank.questions.push_back(std::move(q));
  }
  // A company page's question tags join the questions' own, with the source that justifies them.
  for (const auto& [cid, c] : bank.companies) {
    for (const auto& tag : c.questions) {
      auto it = std::find_if(bank.questions.begin(), bank.questions.end(), [&](const Question& q) { return q.slug == tag.slug; });
      if (it == bank.questions.end()) {
        if (options.lint) diags.push_back({c.file, 1, "question tag '" + tag.slug + "' is not a question in the bank"});
        continue;
      }
      const CompanySource* src = c.find_source(tag.source);
      std::string confidence = src == nullptr ? "limited" : src->kind == "company" ? "documented" : src->kind == "candidate" ? "partial" : "limited";
      std::string source_text = src == nullptr ? tag.source : src->title + " (" + src->url + ", read " + src->read + ")";
      if (std::none_of(it->companies.begin(), it->companies.end(), [&](const CompanyRef& r) { return r.id == cid; })) {
        it->companies.push_back({cid, source_text, confidence});
      }
    }
  }
  bank.build_indexes();

  if (options.lint && !options.seeds_dir.empty() && fs::is_directory(options.seeds_dir, ec)) {
    std::set<std::string> runs = seed_runs(options.seeds_dir);
    for (const auto& q : bank.questions) {
      check_seed_overlap(q.title + "\n" + q.summary + "\n" + q.tldr + "\n" + q.plain_text, q.file, runs, diags);
    }
    if (fs::exists(root / "README.md", ec)) check_seed_overlap(read_file(root / "README.md"), rel(root / "README.md"), runs, diags);
  }

  // Courses, once questions and concepts are known.
  for (const auto& entry : fs::directory_iterator(root / "courses", ec)) {
    if (entry.path().extension() != ".toml") continue;
    std::vector<Diagnostic> local;
    std::string course_text = read_file(entry.path());
    Course c = parse_course(course_text, entry.path().stem().string(), rel(entry.path()), bank, registry,
                            catalog, options, local);
    check_retired_names(course_text, 1, c.file, known.policy, local);
    if (options.lint) diags.insert(diags.end(), local.begin(), local.end());
    bank.courses.emplace(c.id, std::move(c));
  }

  // Every concept is used by a question (its page lists them; an unused concept teaches
  // nothing the bank practises).
  {
    std::set<std::string> used;
    for (const auto& q : bank.questions) used.insert(q.concepts.begin(), q.concepts.end());
    for (const auto& [id, c] : bank.concepts) {
      if (options.lint && !used.count(id)) diags.push_back({c.file, 1, "concept '" + id + "' is used by no question (tag it in a question's concepts)"});
    }
  }

  // Internal links resolve (questions and concept pages).
  std::vector<const Question*> linked;
  for (const auto& q : bank.questions) linked.push_back(&q);
  if (options.lint) {
    for (const auto& [id, doc] : concept_docs) linked.push_back(&doc);
  }
  for (const Question* qp : linked) {
    const Question& q = *qp;
    for (const auto& [target, line] : q.links) {
      std::string_view t = target;
      auto after = [&](std::string_view prefix) { return std::string(t.substr(prefix.size())); };
      bool ok = true;
      if (t.rfind("/q/", 0) == 0) {
        ok = bank.find(after("/q/")) != nullptr;
      } else if (t.rfind("/concepts/", 0) == 0) {
        ok = bank.concepts.count(after("/concepts/")) > 0;
      } else if (t.rfind("/topics/", 0) == 0) {
        ok = bank.find_topic(after("/topics/")) != nullptr;
      } else if (t.rfind("/tracks/", 0) == 0) {
        ok = bank.find_track(after("/tracks/")) != nullptr;
      } else if (t.rfind("/calc/", 0) == 0) {
        ok = registry.find(after("/calc/")) != nullptr;
      } else {
        diags.push_back({q.file, line, "link " + target + " is not /q/, /concepts/, /topics/, /tracks/ or /calc/"});
        continue;
      }
      if (!ok) diags.push_back({q.file, line, "link " + target + " points to nothing in the bank"});
    }
  }
  return result;
}

}  // namespace ridge::bank
