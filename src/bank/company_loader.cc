#include "bank/company_loader.h"

#include <toml++/toml.h>

#include <set>

namespace ridge::bank {
namespace {

constexpr std::string_view kConfidences = "documented, partial, limited";
constexpr std::string_view kKinds = "frontier lab, hyperscaler, chip maker, gpu cloud, inference provider, ai platform";
constexpr std::string_view kSourceKinds = "company, candidate, guide, posting";

bool one_of(std::string_view value, std::string_view list) {
  size_t pos = 0;
  while (pos <= list.size()) {
    size_t comma = list.find(", ", pos);
    std::string_view item = list.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
    if (item == value) return true;
    if (comma == std::string_view::npos) break;
    pos = comma + 2;
  }
  return false;
}

int line(const toml::node* n) { return n ? static_cast<int>(n->source().begin.line) : 1; }

struct Reader {
  const toml::table& t;
  const std::string& file;
  std::vector<Diagnostic>& diags;

  std::string text(const char* key, bool required) {
    const toml::node* n = t.get(key);
    if (!n) {
      if (required) diags.push_back({file, 1, '\'' + std::string(key) + "' is required"});
      return {};
    }
    if (auto s = n->value<std::string>()) return *s;
    if (auto d = n->as_date()) {
      std::ostringstream os;
      os << d->get();
      return os.str();
    }
    diags.push_back({file, line(n), '\'' + std::string(key) + "' must be a string"});
    return {};
  }
  std::vector<std::string> list(const char* key) {
    std::vector<std::string> out;
    const toml::node* n = t.get(key);
    if (!n) return out;
    const toml::array* a = n->as_array();
    if (!a) {
      diags.push_back({file, line(n), '\'' + std::string(key) + "' must be a list of strings"});
      return out;
    }
    for (const auto& item : *a) {
      if (auto s = item.value<std::string>()) out.push_back(*s);
    }
    return out;
  }
};

}  // namespace

Company parse_company(std::string_view text, const std::string& id, const std::string& file, const KnownIds& known,
                      std::vector<Diagnostic>& diags) {
  Company c;
  c.id = id;
  c.name = id;
  c.file = file;
  toml::table t;
  try {
    t = toml::parse(text, file);
  } catch (const toml::parse_error& e) {
    diags.push_back({file, static_cast<int>(e.source().begin.line), std::string("TOML: ") + std::string(e.description())});
    return c;
  }
  static const std::set<std::string, std::less<>> kKeys = {"name", "kind", "summary", "confidence", "tracks", "topics",
                                                           "updated", "stack", "note", "weights", "rounds", "sources",
                                                           "questions"};
  for (const auto& [k, v] : t) {
    if (!kKeys.count(k.str())) {
      diags.push_back({file, line(&v), "unknown key '" + std::string(k.str()) +
                                           "'; accepted: name, kind, summary, confidence, tracks, topics, updated, stack, "
                                           "note, weights, rounds, sources, questions"});
    }
  }
  Reader r{t, file, diags};
  c.name = r.text("name", true);
  c.kind = r.text("kind", true);
  if (!c.kind.empty() && !one_of(c.kind, kKinds)) {
    diags.push_back({file, line(t.get("kind")), "kind '" + c.kind + "' is not one of " + std::string(kKinds)});
  }
  c.summary = r.text("summary", true);
  c.confidence = r.text("confidence", true);
  if (!c.confidence.empty() && !one_of(c.confidence, kConfidences)) {
    diags.push_back({file, line(t.get("confidence")), "confidence '" + c.confidence + "' is not one of " + std::string(kConfidences)});
  }
  c.updated = r.text("updated", true);
  c.note = r.text("note", false);
  c.stack = r.list("stack");
  c.tracks = r.list("tracks");
  for (const auto& tr : c.tracks) {
    if (!known.tracks.count(tr)) diags.push_back({file, line(t.get("tracks")), "track '" + tr + "' does not exist"});
  }
  c.topics = r.list("topics");
  for (const auto& tp : c.topics) {
    if (!known.topics.count(tp)) diags.push_back({file, line(t.get("topics")), "topic '" + tp + "' does not exist"});
  }
  if (const toml::table* w = t["weights"].as_table()) {
    for (const auto& [k, v] : *w) {
      std::string key(k.str());
      if (key != "kernels" && key != "platform" && key != "distributed" && key != "design" && key != "cost") {
        diags.push_back({file, line(&v), "weight '" + key + "' is not one of kernels, platform, distributed, design, cost"});
        continue;
      }
      auto n = v.value<int64_t>();
      if (!n || *n < 0 || *n > 3) {
        diags.push_back({file, line(&v), "weight '" + key + "' must be an integer from 0 to 3"});
        continue;
      }
      c.weights[key] = static_cast<int>(*n);
    }
  }
  if (const toml::array* sources = t["sources"].as_array()) {
    for (const auto& node : *sources) {
      const toml::table* st = node.as_table();
      if (!st) continue;
      Reader sr{*st, file, diags};
      CompanySource s{sr.text("id", true), sr.text("title", true), sr.text("url", true), sr.text("read", true),
                      sr.text("kind", true), line(&node)};
      if (!s.url.empty() && s.url.rfind("https://", 0) != 0 && s.url.rfind("http://", 0) != 0) {
        diags.push_back({file, line(&node), "source '" + s.id + "': url '" + s.url.substr(0, 80) + "' is not an http(s) URL"});
      }
      if (!s.kind.empty() && !one_of(s.kind, kSourceKinds)) {
        diags.push_back({file, line(&node), "source '" + s.id + "': kind '" + s.kind + "' is not one of " + std::string(kSourceKinds)});
      }
      if (c.find_source(s.id)) diags.push_back({file, line(&node), "source id '" + s.id + "' is used twice"});
      c.sources.push_back(std::move(s));
    }
  }
  if (c.sources.empty()) diags.push_back({file, 1, "a company page needs at least one [[sources]] entry"});
  if (const toml::array* rounds = t["rounds"].as_array()) {
    for (const auto& node : *rounds) {
      const toml::table* rt = node.as_table();
      if (!rt) continue;
      Reader rr{*rt, file, diags};
      CompanyRound round{rr.text("name", true), rr.text("format", false), rr.text("length", false),
                         rr.text("weighs", false), rr.text("confidence", false), rr.list("sources")};
      if (round.confidence.empty()) {
        diags.push_back({file, line(&node), "round '" + round.name + "' has no confidence; accepted: " + std::string(kConfidences)});
      } else if (!one_of(round.confidence, kConfidences)) {
        diags.push_back({file, line(&node), "round '" + round.name + "': confidence '" + round.confidence + "' is not one of " +
                                                std::string(kConfidences)});
      }
      if (round.sources.empty()) diags.push_back({file, line(&node), "round '" + round.name + "' names no source"});
      for (const auto& sid : round.sources) {
        if (!c.find_source(sid)) diags.push_back({file, line(&node), "round '" + round.name + "': source '" + sid + "' is not in [[sources]]"});
      }
      c.rounds.push_back(std::move(round));
    }
  }
  if (const toml::array* questions = t["questions"].as_array()) {
    for (const auto& node : *questions) {
      const toml::table* qt = node.as_table();
      if (!qt) continue;
      Reader qr{*qt, file, diags};
      CompanyQuestion q{qr.text("slug", true), qr.text("source", false), qr.text("why", false)};
      if (q.source.empty()) {
        diags.push_back({file, line(&node), "question tag '" + q.slug + "' names no source (the source that justifies the tag)"});
      } else if (!c.find_source(q.source)) {
        diags.push_back({file, line(&node), "question tag '" + q.slug + "': source '" + q.source + "' is not in [[sources]]"});
      }
      c.questions.push_back(std::move(q));
    }
  }
  return c;
}

}  // namespace ridge::bank
