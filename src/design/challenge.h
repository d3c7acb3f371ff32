// Design rounds (issue 35): a challenge is a scenario, the objectives a design must meet and
// what the candidate may choose; a submission is one design. Both are TOML, parsed here into
// plain values with every bad field named (file, field, value, what is accepted). Pure: no I/O
// except load_challenges, which reads one folder.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "calc/result.h"

namespace ridge::design {

// What the grader evaluates: a serving deployment, or a training plan (cluster challenges are
// training plans graded on power and the network as well).
enum class Kind { kServing, kTraining, kCluster };
const char* kind_name(Kind k);

// One objective: `metric` is one of objective_metrics(); the design passes it when the
// prediction is <= target (at_most) or >= target (!at_most). Targets in base units (seconds,
// tokens per second, USD, watts, a ratio).
struct Objective {
  std::string metric;
  double target = 0;
  bool at_most = true;
};
// The metrics a challenge may set, and the unit each is in.
const std::vector<std::string>& objective_metrics();
std::string metric_unit(const std::string& metric);
bool metric_at_most(const std::string& metric);  // the direction a metric is graded in

// A design: field -> value as text (numbers as written). The fields a kind accepts are
// submission_fields(kind).
using Design = std::map<std::string, std::string, std::less<>>;

struct FieldSpec {
  std::string name;
  std::string help;
  bool numeric = false;
  double min = 0, max = 0;                 // numeric range, inclusive
  std::vector<std::string> choices;        // text choices (empty for numeric)
  std::string default_value;               // "" = required
};
const std::vector<FieldSpec>& submission_fields(Kind k);

struct Challenge {
  std::string id, title, track, difficulty, file;
  Kind kind = Kind::kServing;
  std::string scenario;                    // the brief, own words, paragraphs separated by blank lines
  int minutes = 45;                        // the timer's default
  std::map<std::string, std::string, std::less<>> fixed;  // the scenario's givens (model, rate, ...)
  std::map<std::string, double, std::less<>> prices;      // USD per GPU-hour by GPU id
  // What the candidate may change: field -> allowed values (as text). A field not listed keeps
  // the reference's value and is refused in a submission that changes it.
  std::map<std::string, std::vector<std::string>, std::less<>> choices;
  // Or a whole-number range, for counts (replicas = { min = 1, max = 32 }).
  std::map<std::string, std::pair<double, double>, std::less<>> ranges;
  std::vector<Objective> objectives;
  std::vector<std::string> concepts, questions;
  Design reference, common_mistake;
  std::string mistake_why;                 // why the first design most candidates try fails
};

// Parses one challenge from TOML text; `file` names it in errors. Fields of [reference] and
// [common_mistake] are checked like a submission's.
calc::Result<Challenge> parse_challenge(const std::string& toml_text, const std::string& file);

// Every *.toml under `dir`, sorted by id; errors name the file. Duplicate ids are an error.
struct LoadedChallenges {
  std::vector<Challenge> challenges;
  calc::Errors errors;
};
LoadedChallenges load_challenges(const std::string& dir);

// Parses a submission (TOML text, a flat table of field = value) against the challenge: every
// field named, typed and within what the challenge allows; fields not given take the
// reference's value. Errors name the field, the value and what is accepted.
calc::Result<Design> parse_submission(const Challenge& c, const std::string& toml_text);
// The same from already-split fields (a web form, a JSON body's members).
calc::Result<Design> validate_submission(const Challenge& c, const Design& given);

}  // namespace ridge::design
