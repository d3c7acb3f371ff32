#include "web/services/rehearsal.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <random>

#include "calc/derivation.h"
#include "practice/misconceptions.h"
#include "practice/workit.h"
#include "web/services/work_service.h"

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

Outcome<Plan> plan_company(const bank::Bank& bank, const std::string& company_id, const History& history, uint64_t seed,
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

Outcome<Plan> plan_track(const bank::Bank& bank, const std::string& track_id, const History& history, uint64_t seed,
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

RoundContent question_round(const bank::Question& q) {
  RoundContent c;
  c.title = q.title;
  c.prompt = q.summary.empty() ? q.title : q.summary;
  c.follow_ups = q.follow_ups;
  return c;
}

// Until Work it (issue 34) is merged: a question whose answer carries the engine's figures,
// self-scored. When it lands, this returns the exercise's prompt and self_scored = false.
RoundContent numeric_round(const bank::Question& q) {
  RoundContent c = question_round(q);
  c.note = "Work it exercises are not wired in yet: this numeric round uses a question whose answer works its figures through "
           "the engine, and you score the numbers yourself against the worked answer.";
  return c;
}

// Work it (issue 34) in a numeric round: the exercise's prompt and drawn inputs; the answer
// names each step's result on its own line, and the engine scores the "numbers right" line.
RoundContent numeric_round(const bank::Question& q, const practice::Exercise& ex) {
  RoundContent c;
  c.title = q.title;
  c.prompt = ex.prompt;
  if (!ex.inputs.empty()) {
    c.prompt += " Inputs:";
    for (size_t i = 0; i < ex.inputs.size(); ++i) {
      c.prompt += std::string(i ? ", " : " ") + ex.inputs[i].block + "." + ex.inputs[i].param + " = " + ex.inputs[i].drawn;
    }
    c.prompt += ".";
  }
  c.follow_ups = q.follow_ups;
  for (const auto& s : ex.steps) {
    c.steps.emplace_back(s.ref, s.label + (s.unit_hint.empty() ? "" : " (" + s.unit_hint + ")"));
  }
  c.self_scored = false;
  c.note = "A Work it exercise: write each result on its own line as NAME = VALUE with its unit (e.g. " +
           (ex.steps.empty() ? std::string("fit.max_sequences = 12") : ex.steps[0].ref + " = ...") +
           "); other lines are your notes. The engine grades each step within " +
           std::to_string(static_cast<int>(ex.tolerance * 100 + 0.5)) + "% and scores the numbers-right line: " +
           kNumericScoreRule;
  return c;
}

// Until design rounds (issue 35) are merged: a system-design question, self-scored.
RoundContent design_round(const bank::Question& q) {
  RoundContent c = question_round(q);
  c.note = "Design challenges graded by the model are not wired in yet: this design round uses a system-design question, and "
           "you score it yourself against the worked answer.";
  return c;
}

RoundContent coding_round(const bank::Question& q) {
  RoundContent c = question_round(q);
  if (!q.lab.empty()) {
    c.lab = q.lab;
    c.test_command = "ridge lab test " + q.lab + " --impl your_file.cc";
  } else {
    c.note = "This question has no lab build: sketch the code in the box and score it yourself.";
  }
  return c;
}

RoundContent round_content(const bank::Question& q, Kind kind) {
  switch (kind) {
    case Kind::kNumeric: return numeric_round(q);
    case Kind::kDesign: return design_round(q);
    case Kind::kCoding: return coding_round(q);
    case Kind::kQuestion: return question_round(q);
  }
  return question_round(q);
}

// The numbers-right line from the steps right: all of them is 4 (figures right, the chain
// shown step by step); at least half is 3; at least one is 2; none (or nothing readable) is 1.
// With 3 steps: 3 right 4, 2 right 3, 1 right 2, 0 right 1.
const char* const kNumericScoreRule =
    "every step right scores 4; at least half of the steps right, 3; at least one right, 2; none right, 1.";

int numeric_score(size_t right, size_t steps) {
  if (steps == 0 || right == 0) return 1;
  if (right >= steps) return 4;
  if (2 * right >= steps) return 3;
  return 2;
}

namespace {
std::string_view trim(std::string_view s, std::string_view also = "") {
  auto drop = [also](char c) { return std::isspace(static_cast<unsigned char>(c)) || also.find(c) != std::string_view::npos; };
  while (!s.empty() && drop(s.front())) s.remove_prefix(1);
  while (!s.empty() && drop(s.back())) s.remove_suffix(1);
  return s;
}

// The `name SEP value` lines of an answer (SEP any of `separators`), in order, name and value
// trimmed of spaces and of the characters in `quotes`; other lines are notes and skipped. One
// pass over the answer (at most kMaxAnswerBytes), used by numeric and design rounds alike.
std::vector<std::pair<std::string_view, std::string_view>> assignments(std::string_view answer, std::string_view separators,
                                                                        std::string_view quotes = "") {
  std::vector<std::pair<std::string_view, std::string_view>> out;
  while (!answer.empty()) {
    const size_t nl = answer.find('\n');
    const std::string_view line = answer.substr(0, nl);
    answer = nl == std::string_view::npos ? std::string_view() : answer.substr(nl + 1);
    const size_t sep = line.find_first_of(separators);
    if (sep == std::string_view::npos) continue;
    out.emplace_back(trim(line.substr(0, sep), quotes), trim(line.substr(sep + 1), quotes));
  }
  return out;
}
}  // namespace

NumericGrade grade_numeric(const practice::Exercise& ex, const std::string& answer, const WorkService& work) {
  NumericGrade out;
  std::vector<std::optional<std::string>> given(ex.steps.size());
  // The first line naming a step is its answer. Work per answer: one grade per step, whatever
  // the answer holds.
  for (const auto& [name, value] : assignments(answer, "=")) {
    for (size_t i = 0; i < ex.steps.size(); ++i) {
      if (!given[i] && ex.steps[i].ref == name) given[i] = std::string(value);
    }
  }
  for (size_t i = 0; i < ex.steps.size(); ++i) {
    const practice::WorkStep& s = ex.steps[i];
    NumericStep step{s.ref, s.label, given[i].value_or(""), false, calc::format_quantity(s.value, s.unit), "", s.value, ""};
    if (given[i] && !given[i]->empty()) {
      practice::StepGrade g = work.grade_step(ex, i, *given[i]);
      step.correct = g.correct;
      step.unreadable = g.message;
      if (g.misconception != nullptr) step.misconception = g.misconception->title;
    }
    out.right += step.correct ? 1 : 0;
    out.steps.push_back(std::move(step));
  }
  out.score = numeric_score(out.right, out.steps.size());
  return out;
}

// A numeric round drawn with Work it (a work_seed) is graded by the engine; one drawn without
// (no store when planned, or a plan from before Work it) stays self-scored.
std::optional<int> numeric_engine_score(const PlannedRound& round, const std::string& answer, const WorkService* work) {
  if (round.kind != Kind::kNumeric || round.work_seed == 0 || work == nullptr) return std::nullopt;
  auto ex = work->exercise_for(round.slug, round.work_seed);
  if (!ex.ok()) return std::nullopt;  // the question left the bank or stopped being workable
  return grade_numeric(*ex, answer, *work).score;
}

// Design rounds (issue 35): graded by the design grader.
const char* const kDesignScoreRule =
    "A design round's \"numbers right\" line is the design grader's: 4 when every objective passes, 3 when at least half "
    "pass, 2 when at least one passes, 1 when none passes or the design cannot run.";

const design::Challenge* design_challenge_for(const PlannedRound& round, const std::vector<design::Challenge>& challenges) {
  if (challenges.empty()) return nullptr;
  for (const auto& c : challenges) {
    if (std::find(c.questions.begin(), c.questions.end(), round.slug) != c.questions.end()) return &c;
  }
  for (const auto& c : challenges) {
    if (c.id == round.slug) return &c;
  }
  // FNV-1a over the slug: the same challenge for the same round on every server and restart.
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char ch : round.slug) h = (h ^ ch) * 1099511628211ULL;
  return &challenges[h % challenges.size()];
}

design::Design design_from_answer(const design::Challenge& c, const std::string& answer) {
  design::Design d;
  const auto open = DesignService::open_fields(c);
  for (const auto& [name, value] : assignments(answer, "=:", "\"'`")) {
    for (const design::FieldSpec* spec : open) {
      if (spec->name == name && !value.empty()) d[spec->name] = std::string(value.substr(0, 64));
    }
  }
  return d;
}

int design_score(const design::Verdict& v) {
  if (!v.runs || v.objectives.empty()) return 1;
  size_t passed = 0;
  for (const auto& o : v.objectives) passed += o.pass ? 1 : 0;
  if (passed == v.objectives.size()) return 4;
  if (2 * passed >= v.objectives.size()) return 3;
  return passed > 0 ? 2 : 1;
}

std::optional<int> design_engine_score(const PlannedRound& round, const std::string& answer, const DesignService* grader) {
  if (grader == nullptr) return std::nullopt;
  const design::Challenge* c = design_challenge_for(round, grader->challenges());
  if (c == nullptr) return std::nullopt;
  design::Design given = design_from_answer(*c, answer);
  // An open field left out: the answer is notes, not a design; the candidate scores it.
  if (given.size() < DesignService::open_fields(*c).size()) return std::nullopt;
  auto valid = design::validate_submission(*c, given);
  if (!valid) return 1;
  return design_score(grader->verdict(*c, *valid));
}

std::optional<int> engine_score(const PlannedRound& round, const std::string& answer, const WorkService* work,
                                const DesignService* grader) {
  switch (round.kind) {
    case Kind::kNumeric: return numeric_engine_score(round, answer, work);
    case Kind::kDesign: return design_engine_score(round, answer, grader);
    case Kind::kCoding:
    case Kind::kQuestion: return std::nullopt;
  }
  return std::nullopt;
}

std::string_view level_description(size_t line, int level) {
  static constexpr std::string_view kLevels[4][4] = {
      {"named the topic but not the mechanism behind it", "the mechanism, with gaps a follow-up exposed",
       "the mechanism and its main trade-off, held up under the follow-ups",
       "the mechanism, its trade-offs and where it breaks, ahead of the follow-ups"},
      {"no plan: jumped to an answer or stalled", "a plan, but lost it or needed hints to finish",
       "broke the problem down and reached a working answer", "broke it down, compared options and said why one wins"},
      {"hard to follow; the interviewer had to pull the answer out", "understandable, but assumptions left unsaid",
       "clear, with the assumptions stated", "clear and structured: stated assumptions, checked in, summarized"},
      {"no figures, or figures off by more than ten times", "figures within ten times, units or a step wrong",
       "figures within a factor of two, units right", "figures right, with the chain from inputs to answer shown"}};
  if (line >= 4 || level < 1 || level > 4) return "";
  return kLevels[line][level - 1];
}

std::optional<Scores> parse_scores(std::string_view text) {
  Scores s{};
  size_t k = 0, i = 0;
  while (k < 4) {
    if (i >= text.size() || text[i] < '1' || text[i] > '4') return std::nullopt;
    s[k++] = text[i++] - '0';
    if (k < 4) {
      if (i >= text.size() || text[i] != ',') return std::nullopt;
      ++i;
    }
  }
  if (i != text.size()) return std::nullopt;
  return s;
}

std::string format_scores(const Scores& s) {
  return std::to_string(s[0]) + "," + std::to_string(s[1]) + "," + std::to_string(s[2]) + "," + std::to_string(s[3]);
}

const char* const kRecommendationRule =
    "The mean is taken over every rubric line of every scored round (1 to 4). Hire: every round scored, a mean of at least "
    "3.25 and no line at 1. Lean hire: a mean of at least 2.75 and at most one line at 1. Lean no: a mean of at least 2.0. No: "
    "a lower mean, or fewer than half of the rounds scored.";

std::string recommend(double mean, int ones, size_t scored_rounds, size_t rounds) {
  if (rounds == 0 || scored_rounds * 2 < rounds) return "no";
  if (scored_rounds == rounds && mean >= 3.25 && ones == 0) return "hire";
  if (mean >= 2.75 && ones <= 1) return "lean hire";
  if (mean >= 2.0) return "lean no";
  return "no";
}

Report build_report(const bank::Bank& bank, const Plan& plan, const store::Rehearsal& r, int64_t now) {
  Report rep;
  rep.expired = r.finished_at == 0 && now >= r.expires_at;
  std::array<int, 4> sums{};
  std::set<std::string> concepts;
  int64_t round_start = r.started_at;
  for (size_t i = 0; i < plan.rounds.size(); ++i) {
    const PlannedRound& p = plan.rounds[i];
    const store::RehearsalRound* stored = i < r.rounds.size() ? &r.rounds[i] : nullptr;
    RoundReport rr;
    rr.name = p.name;
    rr.kind = std::string(kind_name(p.kind));
    rr.slug = p.slug;
    const bank::Question* q = bank.find(p.slug);
    rr.title = q ? q->title : p.slug;
    rr.minutes = p.minutes;
    if (stored && stored->answered_at) rr.seconds_used = std::max<int64_t>(0, stored->answered_at - round_start);
    if (stored && stored->scored_at) round_start = stored->scored_at;
    if (!stored || stored->answer.empty()) rr.missed.push_back("no answer written");
    if (rr.seconds_used > int64_t{p.minutes} * 60) {
      rr.missed.push_back("over the " + std::to_string(p.minutes) + "-minute length by " +
                          std::to_string((rr.seconds_used - int64_t{p.minutes} * 60 + 59) / 60) + " min");
    }
    if (stored) rr.scores = parse_scores(stored->scores);
    if (rr.scores) {
      ++rep.scored;
      int round_sum = 0;
      for (size_t l = 0; l < 4; ++l) {
        const int v = (*rr.scores)[l];
        sums[l] += v;
        round_sum += v;
        if (v == 1) ++rep.ones;
        if (v <= 2) rr.missed.push_back(std::string(kRubricLines[l]) + ": " + std::string(level_description(l, v)));
      }
      // Under 3 on average (12 of 16): the question goes back into the review queue.
      if (round_sum < 12) {
        rep.review_slugs.push_back(p.slug);
        if (q) concepts.insert(q->concepts.begin(), q->concepts.end());
      }
    } else {
      rr.missed.push_back("not scored");
    }
    rep.rounds.push_back(std::move(rr));
  }
  int total = 0;
  for (size_t l = 0; l < 4; ++l) {
    rep.line_means[l] = rep.scored ? static_cast<double>(sums[l]) / static_cast<double>(rep.scored) : 0;
    total += sums[l];
  }
  rep.mean = rep.scored ? static_cast<double>(total) / static_cast<double>(4 * rep.scored) : 0;
  rep.recommendation = recommend(rep.mean, rep.ones, rep.scored, plan.rounds.size());
  rep.review_concepts.assign(concepts.begin(), concepts.end());
  return rep;
}

nlohmann::json report_json(const Report& report) {
  nlohmann::json rounds = nlohmann::json::array();
  for (const auto& r : report.rounds) {
    nlohmann::json scores = nullptr;
    if (r.scores) {
      scores = nlohmann::json::object();
      for (size_t l = 0; l < 4; ++l) scores[std::string(kRubricLines[l])] = (*r.scores)[l];
    }
    rounds.push_back({{"name", r.name},
                      {"kind", r.kind},
                      {"slug", r.slug},
                      {"title", r.title},
                      {"scores", scores},
                      {"seconds_used", r.seconds_used},
                      {"minutes", r.minutes},
                      {"missed", r.missed}});
  }
  nlohmann::json means = nlohmann::json::object();
  for (size_t l = 0; l < 4; ++l) means[std::string(kRubricLines[l])] = report.line_means[l];
  return {{"rounds", rounds},
          {"line_means", means},
          {"mean", report.mean},
          {"lines_at_1", report.ones},
          {"scored_rounds", report.scored},
          {"recommendation", report.recommendation},
          {"rule", kRecommendationRule},
          {"review_questions", report.review_slugs},
          {"review_concepts", report.review_concepts},
          {"expired", report.expired}};
}

}  // namespace ridge::web::services::rehearsal
