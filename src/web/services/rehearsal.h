// Mock loops (issue 36): a timed, scored rehearsal of a company's reported loop or of a
// track. Pure functions over the bank and the candidate's history: they assemble the plan
// (one question or challenge per round), give each round its prompt by kind, score a round
// by the rubric and build the report. The routes (routes/rehearse_routes.cc) keep the plan
// and the answers in the store (Store::create_rehearsal and the ops after it).
// The plan is drawn in rehearsal.cc, the rounds' content and engine scores are in
// rehearsal_rounds.cc, the rubric and the report in rehearsal_report.cc.
//
// A round has a kind, and each kind has one function that makes its content and one that
// gives its engine score. A numeric round is a Work it exercise graded by the engine (issue
// 34), or, for a question without one, numeric_round(q), self-scored; a design round is graded
// by the design grader (issue 35) when the answer states the design as name = value lines.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "bank/bank.h"
#include "store/store.h"
#include "web/services/design_service.h"
#include "common/result.h"

namespace ridge::practice {
struct Exercise;
}

namespace ridge::web::services {
class WorkService;
}

namespace ridge::web::services::rehearsal {

enum class Kind { kQuestion, kNumeric, kDesign, kCoding };
std::string_view kind_name(Kind k);  // "question", "numeric", "design", "coding"
std::optional<Kind> parse_kind(std::string_view name);

// An open rehearsal expires two days after it starts: long enough for a loop spread over an
// evening and a morning, short enough that a forgotten one does not count as a real attempt.
constexpr int64_t kExpirySeconds = 48 * 3600;
// An answer (the candidate's notes) holds at most this many bytes, as a note does.
constexpr size_t kMaxAnswerBytes = 20000;
// A loop longer than this rehearses its first kMaxRounds rounds (the longest reported loop
// has 8) and says so.
constexpr size_t kMaxRounds = 8;
// Default lengths in minutes when the page reports none: a typical 45-minute interview slot,
// a shorter numeric round and a longer build.
int default_minutes(Kind k);

// What the candidate has done before: questions reviewed, and those they got wrong (a lapse,
// or a last grade of Again or Hard).
struct History {
  std::set<std::string> seen, wrong;
};
History history_of(const std::vector<store::Card>& cards, const std::vector<store::ReviewLog>& reviews);

struct PlannedRound {
  std::string name;
  Kind kind = Kind::kQuestion;
  int minutes = 45;
  std::string length_note;  // what the page reported, or that the default applies
  std::string slug;         // the question drawn
  std::string drawn;        // how: linked to the round's source, the round's topics, the track's weights
  bool from_track_weights = false;
  // A numeric round on a workable question: the seed of its Work it exercise (issue 34), kept
  // in the user's own plan, so the exercise needs no signature. 0: self-scored (no Work it
  // service when it was planned, or a plan from before Work it).
  uint64_t work_seed = 0;
};
struct Plan {
  std::string source;  // "company:ID" or "track:ID"
  std::string title;   // "Anthropic", "Serving track"
  std::string note;    // e.g. the rounds left out past kMaxRounds
  std::vector<PlannedRound> rounds;
};

// Whether Work it can draw a question (WorkService::workable). With one, a numeric round
// draws only workable questions and gets a work_seed; without, any question with calc blocks.
using Workable = std::function<bool(const std::string& slug)>;

// The plan of a company's reported loop. Invalid: "company" (not a company page). `seed`
// picks among equally good questions.
Result<Plan> plan_company(const bank::Bank& bank, const std::string& company_id, const History& history, uint64_t seed,
                           const Workable& workable = {});
// A track's loop: a coding, a numeric, a design and a deep-dive round drawn from its weights.
Result<Plan> plan_track(const bank::Bank& bank, const std::string& track_id, const History& history, uint64_t seed,
                         const Workable& workable = {});

nlohmann::json plan_json(const Plan& plan);
// nullopt for JSON this module did not write.
std::optional<Plan> plan_from_json(const nlohmann::json& j);

// What a round shows: the prompt, the interviewer's follow-ups (revealed one at a time after
// the answer), the lab build of a coding round and its test command, and a note when the
// round stands in for a feature not merged yet.
struct RoundContent {
  std::string title, prompt;
  std::vector<std::string> follow_ups;
  std::string lab, test_command;
  std::string note;
  bool self_scored = true;
  // A Work it round's steps, in order: the result's name the answer uses, and what it is.
  std::vector<std::pair<std::string, std::string>> steps;
};
RoundContent question_round(const bank::Question& q);
RoundContent numeric_round(const bank::Question& q);
// A numeric round as a Work it exercise: its prompt and drawn inputs, the steps asked, and
// the engine's score on the "numbers right" line.
RoundContent numeric_round(const bank::Question& q, const practice::Exercise& ex);
RoundContent design_round(const bank::Question& q);
RoundContent coding_round(const bank::Question& q);
// The function of the round's kind.
RoundContent round_content(const bank::Question& q, Kind kind);

// A numeric round's answer graded by Work it: one line per step, "NAME = VALUE UNIT" (the
// first line naming a step counts; other lines are notes). Each step as the engine graded it.
struct NumericStep {
  std::string ref, label;
  std::string given;     // the text read for it; empty when no line named it
  bool correct = false;
  std::string expected;  // the engine's value with its unit
  std::string misconception;  // the named mistake's title, when the wrong value matches one
  double value = 0;           // the engine's value in the step's base unit
  std::string unreadable;     // why the text given could not be read as a number (counts as wrong)
};
struct NumericGrade {
  std::vector<NumericStep> steps;
  size_t right = 0;
  int score = 1;  // numeric_score(right, steps.size())
};
// The score from the steps right, as kNumericScoreRule states it.
int numeric_score(size_t right, size_t steps);
extern const char* const kNumericScoreRule;
NumericGrade grade_numeric(const practice::Exercise& ex, const std::string& answer, const WorkService& work);

// The engine's score of a round's numeric part, 1 to 4 on the "numbers right" line, replacing
// the candidate's own; nullopt when the kind has none (self-scored). A numeric round is scored
// by Work it when it has a work_seed and `work` is given.
std::optional<int> numeric_engine_score(const PlannedRound& round, const std::string& answer, const WorkService* work = nullptr);
// Design rounds (issue 35): with the design service, a design round is graded by the design
// grader against design_challenge_for(round); its answer holds the design as `field = value`
// lines (other lines are notes). kDesignScoreRule says how objectives passed become 1 to 4;
// nullopt (self-scored) without the service, or when the answer leaves an open field out.
std::optional<int> design_engine_score(const PlannedRound& round, const std::string& answer,
                                       const DesignService* grader = nullptr);
std::optional<int> engine_score(const PlannedRound& round, const std::string& answer, const WorkService* work = nullptr,
                                const DesignService* grader = nullptr);
// The challenge a design round is graded against: one that lists the round's question, else
// one whose id is the round's slug, else one picked by a hash of the slug (so the page and the
// score agree on it, on every server). nullptr when there are no challenges.
const design::Challenge* design_challenge_for(const PlannedRound& round, const std::vector<design::Challenge>& challenges);
// The design in an answer: `field = value` (or `field: value`) lines for the challenge's open
// fields, quotes and spaces trimmed; other lines ignored. The last line of a field wins.
design::Design design_from_answer(const design::Challenge& c, const std::string& answer);
// From the verdict: 4 every objective passes; 3 at least half pass; 2 at least one passes;
// 1 none passes, the design cannot run, or a field is not valid.
int design_score(const design::Verdict& v);
extern const char* const kDesignScoreRule;

// The rubric: four lines, each scored 1 to 4, each level described.
constexpr std::array<std::string_view, 4> kRubricLines = {"technical depth", "problem solving", "communication", "numbers right"};
// The description of `level` (1 to 4) on rubric line `line` (0 to 3).
std::string_view level_description(size_t line, int level);
using Scores = std::array<int, 4>;
// "3,2,4,1" -> scores; nullopt unless four whole numbers 1 to 4.
std::optional<Scores> parse_scores(std::string_view text);
std::string format_scores(const Scores& s);

// The recommendation from every rubric score of the loop, by the rule stated on the page
// (kRecommendationRule): the mean over every line of every scored round, and how many lines
// were scored 1.
std::string recommend(double mean, int ones, size_t scored_rounds, size_t rounds);
extern const char* const kRecommendationRule;

struct RoundReport {
  std::string name, kind, slug, title;
  std::optional<Scores> scores;
  int64_t seconds_used = 0;
  int minutes = 0;
  std::vector<std::string> missed;
};
struct Report {
  std::vector<RoundReport> rounds;
  std::array<double, 4> line_means{};  // over the scored rounds; 0 where none
  double mean = 0;
  int ones = 0;
  size_t scored = 0;
  std::string recommendation;
  std::vector<std::string> review_slugs;     // rounds whose mean is under 3: into FSRS
  std::vector<std::string> review_concepts;  // their concepts
  bool expired = false;
};
Report build_report(const bank::Bank& bank, const Plan& plan, const store::Rehearsal& r, int64_t now);
nlohmann::json report_json(const Report& report);

}  // namespace ridge::web::services::rehearsal
