// Mock loops: what each kind of round shows (its prompt, follow-ups, lab build) and how the
// engine scores it: a numeric round by Work it, a design round by the design grader.
#include "web/services/rehearsal.h"

#include <algorithm>
#include <cctype>

#include "calc/derivation.h"
#include "practice/misconceptions.h"
#include "practice/workit.h"
#include "web/services/work_service.h"

namespace ridge::web::services::rehearsal {

RoundContent question_round(const bank::Question& q) {
  RoundContent c;
  c.title = q.title;
  c.prompt = q.summary.empty() ? q.title : q.summary;
  c.follow_ups = q.follow_ups;
  return c;
}

// A numeric round whose question has no Work it exercise (the route uses the exercise when
// there is one): the answer carries the engine's figures, and the candidate scores the numbers.
RoundContent numeric_round(const bank::Question& q) {
  RoundContent c = question_round(q);
  c.note = "This round's question has no Work it exercise: its answer works the figures through the engine, and you score "
           "the numbers yourself against the worked answer.";
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

// A design round: a system-design question, graded by the model against a design challenge
// when the answer states the design (design_engine_score), else self-scored.
RoundContent design_round(const bank::Question& q) {
  RoundContent c = question_round(q);
  c.note = "Write your design as one \"name = value\" line per choice (gpu, tp, replicas, ...): the model grades it against "
           "a design challenge. Notes without them you score yourself against the worked answer.";
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

}  // namespace ridge::web::services::rehearsal
