// Stage 1 and 2 of loading a document: the front matter between "+++" lines and its fields;
// and topics.toml, which is front matter of the whole bank.
#include "bank/loader_stages.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <sstream>

namespace ridge::bank {

namespace fs = std::filesystem;

namespace stages {

std::string read_file(const fs::path& path) {
  // open, fstat, one read of the size known, close: through an ifstream each file also cost
  // a stat by path, a buffer, a locale and a second read to see the end (issue 30: reading
  // the bank was 12% of start-up at 10,000 questions, half of it outside the kernel's copy).
  std::string text;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return text;  // as before: a file that cannot be opened reads as empty
  struct stat st {};
  const bool regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  // One byte more than its size: a read that fills it means the file grew since fstat.
  text.resize(regular ? static_cast<size_t>(st.st_size) + 1 : 4096);
  size_t got = 0;
  for (;;) {
    if (got == text.size()) text.resize(text.size() * 2);
    const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
    // A regular file's read returns less than asked only at its end: no second read to see it.
    if (regular && got < text.size()) break;
  }
  ::close(fd);
  text.resize(got);
  return text;
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

namespace {

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

}  // namespace

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

namespace {

void check_keys(const toml::table& fm, bool is_concept, const std::string& file, std::vector<Diagnostic>& diags) {
  static const std::set<std::string, std::less<>> kKeys = {"title", "summary", "topic", "difficulty", "tracks", "concepts",
                                                           "companies", "free", "must_know", "tldr", "lab", "updated",
                                                           "work"};
  static const std::set<std::string, std::less<>> kConceptKeys = {"title", "summary", "topic", "prerequisites",
                                                                  "calculators", "updated"};
  for (const auto& [k, v] : fm) {
    if (!(is_concept ? kConceptKeys : kKeys).count(k.str())) {
      diags.push_back({file, line_of(&v, 1), "front matter: unknown key '" + std::string(k.str()) +
                                                 (is_concept ? "'; accepted: title, summary, topic, prerequisites, calculators, updated"
                                                             : "'; accepted: title, summary, topic, difficulty, tracks, concepts, "
                                                               "companies, free, must_know, tldr, lab, updated, work")});
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

}  // namespace

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

namespace {

// [work]: asked = ["id.key", ...], tolerance = 0.05, workable = false with reason = "...".
void read_work(const toml::table& fm, const std::string& file, Question& q, std::vector<Diagnostic>& diags) {
  const toml::node* node = fm.get("work");
  if (node == nullptr) return;
  const toml::table* t = node->as_table();
  if (t == nullptr) {
    diags.push_back({file, line_of(node, 1), "front matter: 'work' must be a table: [work]"});
    return;
  }
  for (const auto& [k, v] : *t) {
    if (k.str() != "asked" && k.str() != "tolerance" && k.str() != "workable" && k.str() != "reason") {
      diags.push_back({file, line_of(&v, 1), "front matter: unknown key 'work." + std::string(k.str()) +
                                                 "'; accepted: asked, tolerance, workable, reason"});
    }
  }
  FieldReader r{*t, file, 1, diags};
  q.work.asked = r.list("asked", false);
  for (const auto& ref : q.work.asked) {
    if (ref.find('.') == std::string::npos) {
      diags.push_back({file, line_of(t->get("asked"), 1), "front matter: work.asked '" + ref + "' is not ID.KEY (a calc block's result)"});
    }
  }
  if (const toml::node* tol = t->get("tolerance")) {
    auto v = tol->value<double>();
    if (!v || !(*v > 0 && *v <= 0.5)) {
      diags.push_back({file, line_of(tol, 1), "front matter: work.tolerance must be a number greater than 0 and at most 0.5 (0.05 = 5%)"});
    } else {
      q.work.tolerance = *v;
    }
  }
  if (t->get("workable") != nullptr) q.work.workable = r.boolean("workable", false);
  q.work.reason = r.text("reason", !q.work.workable);
}

}  // namespace

// Stage 2: the front matter's fields into `q`. Answers the raw (unsubstituted) TL;DR.
std::string read_front_matter(const toml::table& fm, const std::string& file, const KnownIds& known,
                              const calc::Registry& registry, const LoadOptions& options, DocKind doc, Question& q,
                              std::vector<Diagnostic>& diags) {
  const bool is_concept = doc == DocKind::kConcept;
  check_keys(fm, is_concept, file, diags);
  FieldReader r{fm, file, 1, diags};
  q.title = r.text("title", true);
  // A title is shown as text everywhere (lists, the tab's <title>, the weekly mail, search):
  // Markdown in it would show its markers (issue 33 item 7), so a title is written in words.
  for (std::string_view marker : {"`", "**", "[^"}) {
    if (q.title.find(marker) != std::string::npos) {
      diags.push_back({file, line_of(fm.get("title"), 1),
                       "title carries Markdown ('" + std::string(marker) +
                           "'): titles are shown as plain text; write the code's name in words"});
      break;
    }
  }
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
  if (!is_concept) read_work(fm, file, q, diags);
  q.tldr_markdown = tldr_raw;
  return tldr_raw;
}

}  // namespace stages

using stages::FieldReader;
using stages::line_of;
using stages::parse_toml;

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

}  // namespace ridge::bank
