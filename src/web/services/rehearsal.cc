// Mock loops: the plan of a rehearsal (a company's reported loop or a track's), each round drawn
// from the bank and the candidate's history, and the plan as JSON.
#include "web/services/rehearsal.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <random>

namespace ridge::web::services::rehearsal {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}
bool has(const std::string& text, std::string_view word) { return text.find(word) != std::string::npos; }

// The kind of a reported round, from its name and format (the weighs line describes content,
// which often mentions design or numbers for a round that is a conversation).
Kind classify(const bank::CompanyRound& r) {
  const std::string head = lower(r.name + " " + r.format);
  if (has(head, "design") || has(head, "architecture")) return Kind::kDesign;
  if (has(head, "coding") || has(head, "take-home") || has(head, "programming") || has(head, "build") ||
      has(head, "implementation") || has(head, "kernel")) {
    return Kind::kCoding;
  }
  if (has(head, "napkin") || has(head, "estimat") || has(head, "capacity") || has(head, "sizing") || has(head, "math")) {
    return Kind::kNumeric;
  }
  return Kind::kQuestion;
}

// A round "with no reported content": the page says what it weighs was not described.
bool no_reported_content(const bank::CompanyRound& r) {
  const std::string w = lower(r.weighs);
  return w.empty() || w.rfind("not described", 0) == 0 || w.rfind("not reported", 0) == 0 || has(w, "no detail");
}

// "4 hours ... then 2 hours" -> 240; "45 minutes" -> 45; nothing -> nullopt. The first
// figure followed by a unit is the one the page leads with.
std::optional<int> reported_minutes(const std::string& length) {
  const std::string s = lower(length);
  for (size_t i = 0; i < s.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(s[i])) || (i > 0 && std::isdigit(static_cast<unsigned char>(s[i - 1])))) continue;
    size_t j = i;
    int n = 0;
    while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j])) && n < 10000) n = n * 10 + (s[j++] - '0');
    while (j < s.size() && (s[j] == ' ' || s[j] == '-')) ++j;
    std::string_view rest = std::string_view(s).substr(j);
    if (rest.rfind("hour", 0) == 0 || rest.rfind("hr", 0) == 0) return n * 60;
    if (rest.rfind("min", 0) == 0) return n;
  }
  return std::nullopt;
}

// Whether a question suits a round of `kind`: a numeric round needs calc blocks, and with
// Work it a workable chain.
bool fits(const bank::Question& q, Kind kind, const Workable& workable) {
  switch (kind) {
    case Kind::kDesign: return q.topic == "system-design";
    case Kind::kCoding: return !q.lab.empty() || q.topic == "coding";
    case Kind::kNumeric: return !q.calcs.empty() && (!workable || workable(q.slug));
    case Kind::kQuestion: return true;
  }
  return true;
}

// The topics a round of `kind` draws on when nothing is linked to it.
std::vector<std::string> kind_topics(Kind kind, const std::vector<std::string>& company_topics) {
  switch (kind) {
    case Kind::kDesign: return {"system-design"};
    case Kind::kCoding: return {"coding"};
    case Kind::kNumeric: return {"napkin-math"};
    case Kind::kQuestion: return company_topics;
  }
  return company_topics;
}

// Picks from `pool` (in order, no repeats of `used`): the candidates not seen or got wrong
// first, then the rest; among equals, by the seeded generator. Empty when nothing is left.
std::string pick(const std::vector<const bank::Question*>& pool, const History& h, const std::set<std::string>& used,
                 std::mt19937_64& rng) {
  std::vector<const bank::Question*> fresh, rest;
  for (const bank::Question* q : pool) {
    if (used.count(q->slug)) continue;
    (!h.seen.count(q->slug) || h.wrong.count(q->slug) ? fresh : rest).push_back(q);
  }
  const auto& from = fresh.empty() ? rest : fresh;
  if (from.empty()) return "";
  return from[std::uniform_int_distribution<size_t>(0, from.size() - 1)(rng)]->slug;
}

std::vector<const bank::Question*> questions_of(const bank::Bank& bank, const std::vector<std::string>& topics, Kind kind,
                                                bool require_fit, const Workable& workable) {
  std::vector<const bank::Question*> out;
  for (const auto& t : topics) {
    for (size_t i : bank.by_topic(t)) {
      const bank::Question& q = bank.questions[i];
      if (!require_fit || fits(q, kind, workable)) out.push_back(&q);
    }
  }
  return out;
}

// A topic drawn from a track's weights (weight w out of the sum: probability w / sum).
std::string weighted_topic(const bank::Track& track, std::mt19937_64& rng) {
  int total = 0;
  for (const auto& [topic, w] : track.weights) total += std::max(0, w);
  if (total == 0) return track.weights.empty() ? "" : track.weights.begin()->first;
  int x = std::uniform_int_distribution<int>(0, total - 1)(rng);
  for (const auto& [topic, w] : track.weights) {
    x -= std::max(0, w);
    if (x < 0) return topic;
  }
  return track.weights.begin()->first;
}

// A question for a round of `kind` from a track's weights: the kind's topic when the track
// has questions there, else a weighted topic; the first pool that yields one.
std::string from_track(const bank::Bank& bank, const bank::Track& track, Kind kind, const History& h,
                       const std::set<std::string>& used, std::mt19937_64& rng, const Workable& workable) {
  std::vector<std::vector<const bank::Question*>> pools;
  std::vector<const bank::Question*> on_track;
  for (size_t i : bank.by_track(track.id)) {
    if (fits(bank.questions[i], kind, workable)) on_track.push_back(&bank.questions[i]);
  }
  if (kind == Kind::kQuestion) pools.push_back(questions_of(bank, {weighted_topic(track, rng)}, kind, false, workable));
  pools.push_back(on_track);
  pools.push_back(questions_of(bank, {weighted_topic(track, rng)}, kind, false, workable));
  for (const auto& p : pools) {
    std::string s = pick(p, h, used, rng);
    if (!s.empty()) return s;
  }
  return "";
}

void set_length(PlannedRound& r, const std::string& reported) {
  auto m = reported_minutes(reported);
  const int d = default_minutes(r.kind);
  if (!m) {
    r.minutes = d;
    r.length_note = "length not reported; " + std::to_string(d) + " minutes, the default for a " + std::string(kind_name(r.kind)) +
                    " round";
    return;
  }
  // A rehearsal runs 10 to 120 minutes: a four-hour take-home is rehearsed as its first two.
  r.minutes = std::clamp(*m, 10, 120);
  r.length_note = "reported: " + reported + (r.minutes != *m ? " (rehearsed in " + std::to_string(r.minutes) + " minutes)" : "");
}

// A numeric round on a workable question gets its Work it exercise's seed: 1..2^31-1 as
// WorkService::start draws them (0 is the author's own inputs, which the answer shows).
void set_work_seed(PlannedRound& r, const Workable& workable, std::mt19937_64& rng) {
  if (r.kind == Kind::kNumeric && workable && workable(r.slug)) r.work_seed = (rng() & 0x7fffffffu) | 1u;
}

}  // namespace

std::string_view kind_name(Kind k) {
  switch (k) {
    case Kind::kQuestion: return "question";
    case Kind::kNumeric: return "numeric";
    case Kind::kDesign: return "design";
    case Kind::kCoding: return "coding";
  }
  return "question";
}
std::optional<Kind> parse_kind(std::string_view name) {
  for (Kind k : {Kind::kQuestion, Kind::kNumeric, Kind::kDesign, Kind::kCoding}) {
    if (kind_name(k) == name) return k;
  }
  return std::nullopt;
}

int default_minutes(Kind k) {
  switch (k) {
    case Kind::kNumeric: return 30;
    case Kind::kCoding: return 60;
    case Kind::kDesign:
    case Kind::kQuestion: return 45;
  }
  return 45;
}

History history_of(const std::vector<store::Card>& cards, const std::vector<store::ReviewLog>& reviews) {
  History h;
  for (const auto& c : cards) {
    h.seen.insert(c.slug);
    if (c.lapses > 0) h.wrong.insert(c.slug);
  }
  std::map<std::string, int> last;  // the reviews come oldest first: the last grade wins
  for (const auto& r : reviews) last[r.slug] = r.grade;
  for (const auto& [slug, grade] : last) {
    h.seen.insert(slug);
    if (grade <= 2) h.wrong.insert(slug);
  }
  return h;
}

Result<Plan> plan_company(const bank::Bank& bank, const std::string& company_id, const History& history, uint64_t seed,
                           const Workable& workable) {
  auto it = bank.companies.find(company_id);
  if (it == bank.companies.end()) {
    return Failure::invalid({"company", company_id, "is not a company page", "an id from /companies"});
  }
  const bank::Company& c = it->second;
  std::mt19937_64 rng(seed);
  Plan plan;
  plan.source = "company:" + c.id;
  plan.title = c.name;
  const bank::Track* track = c.tracks.empty() ? nullptr : bank.find_track(c.tracks.front());
  if (!track && !bank.tracks.empty()) track = &bank.tracks.front();
  if (c.rounds.empty()) {
    // No reported loop: the track's loop, drawn from its weights, under the company's name.
    if (!track) return Failure::invalid({"company", company_id, "has no rounds ridge can rehearse", "a company page with a track"});
    auto from = plan_track(bank, track->id, history, seed, workable);
    if (!from) return from;
    plan.rounds = std::move(from.value().rounds);
    plan.note = "The page reports no rounds for " + c.name + ": this loop is the " + track->name +
                " track's, every round drawn from its weights.";
    return plan;
  }
  std::set<std::string> used;
  const size_t n = std::min(c.rounds.size(), kMaxRounds);
  if (c.rounds.size() > n) {
    plan.note = "The page reports " + std::to_string(c.rounds.size()) + " rounds; this rehearsal runs the first " +
                std::to_string(n) + ".";
  }
  for (size_t i = 0; i < n; ++i) {
    const bank::CompanyRound& cr = c.rounds[i];
    PlannedRound r;
    r.name = cr.name;
    r.kind = classify(cr);
    set_length(r, cr.length);
    if (!no_reported_content(cr)) {
      // The questions the page links to this round's sources, those that suit the kind first.
      std::vector<const bank::Question*> linked, linked_fit;
      for (const auto& cq : c.questions) {
        if (std::find(cr.sources.begin(), cr.sources.end(), cq.source) == cr.sources.end()) continue;
        const bank::Question* q = bank.find(cq.slug);
        if (!q) continue;
        linked.push_back(q);
        if (fits(*q, r.kind, workable)) linked_fit.push_back(q);
      }
      r.slug = pick(linked_fit, history, used, rng);
      if (!r.slug.empty()) {
        r.drawn = "linked to this round's source on the company page";
      } else {
        r.slug = pick(questions_of(bank, kind_topics(r.kind, c.topics), r.kind, true, workable), history, used, rng);
        // A linked question that does not suit the kind: a numeric round on it is self-scored.
        if (r.slug.empty()) r.slug = pick(linked, history, used, rng);
        if (!r.slug.empty()) r.drawn = "from the round's topics";
      }
    }
    if (r.slug.empty() && track) {
      r.slug = from_track(bank, *track, r.kind, history, used, rng, workable);
      r.from_track_weights = true;
      r.drawn = no_reported_content(cr) ? "the page reports no content for this round: drawn from the " + track->name +
                                              " track's weights"
                                        : "drawn from the " + track->name + " track's weights";
    }
    if (r.slug.empty()) continue;  // an empty bank: nothing to ask
    set_work_seed(r, workable, rng);
    used.insert(r.slug);
    plan.rounds.push_back(std::move(r));
  }
  if (plan.rounds.empty()) {
    return Failure::invalid({"company", company_id, "has no rounds ridge can rehearse", "a company page with a reported loop"});
  }
  return plan;
}

Result<Plan> plan_track(const bank::Bank& bank, const std::string& track_id, const History& history, uint64_t seed,
                         const Workable& workable) {
  const bank::Track* track = bank.find_track(track_id);
  if (!track) return Failure::invalid({"track", track_id, "is not a track", "an id from /tracks"});
  std::mt19937_64 rng(seed);
  Plan plan;
  plan.source = "track:" + track->id;
  plan.title = track->name;
  std::set<std::string> used;
  const std::pair<const char*, Kind> rounds[] = {
      {"Coding", Kind::kCoding}, {"Napkin math", Kind::kNumeric}, {"System design", Kind::kDesign}, {"Deep dive", Kind::kQuestion}};
  for (const auto& [name, kind] : rounds) {
    PlannedRound r;
    r.name = name;
    r.kind = kind;
    r.minutes = default_minutes(kind);
    r.length_note = std::to_string(r.minutes) + " minutes, the default for a " + std::string(kind_name(kind)) + " round";
    r.slug = from_track(bank, *track, kind, history, used, rng, workable);
    r.from_track_weights = true;
    r.drawn = "drawn from the " + track->name + " track's weights";
    if (r.slug.empty()) continue;
    set_work_seed(r, workable, rng);
    used.insert(r.slug);
    plan.rounds.push_back(std::move(r));
  }
  if (plan.rounds.empty()) return Failure::invalid({"track", track_id, "has no questions to rehearse", "a track with questions"});
  return plan;
}

nlohmann::json plan_json(const Plan& plan) {
  nlohmann::json rounds = nlohmann::json::array();
  for (const auto& r : plan.rounds) {
    rounds.push_back({{"name", r.name},
                      {"kind", kind_name(r.kind)},
                      {"minutes", r.minutes},
                      {"length_note", r.length_note},
                      {"slug", r.slug},
                      {"drawn", r.drawn},
                      {"from_track_weights", r.from_track_weights},
                      {"work_seed", r.work_seed}});
  }
  return {{"source", plan.source}, {"title", plan.title}, {"note", plan.note}, {"rounds", rounds}};
}

std::optional<Plan> plan_from_json(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("rounds") || !j["rounds"].is_array()) return std::nullopt;
  try {
    Plan p;
    p.source = j.at("source").get<std::string>();
    p.title = j.at("title").get<std::string>();
    p.note = j.value("note", "");
    for (const auto& r : j["rounds"]) {
      PlannedRound pr;
      pr.name = r.at("name").get<std::string>();
      auto k = parse_kind(r.at("kind").get<std::string>());
      if (!k) return std::nullopt;
      pr.kind = *k;
      pr.minutes = r.at("minutes").get<int>();
      pr.length_note = r.at("length_note").get<std::string>();
      pr.slug = r.at("slug").get<std::string>();
      pr.drawn = r.at("drawn").get<std::string>();
      pr.from_track_weights = r.at("from_track_weights").get<bool>();
      pr.work_seed = r.value("work_seed", uint64_t{0});  // absent in a plan from before Work it
      p.rounds.push_back(std::move(pr));
    }
    return p;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

}  // namespace ridge::web::services::rehearsal
