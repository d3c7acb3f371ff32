// Work it: a question's calc chain as an exercise. A seed draws new inputs of the same shape
// (another catalog model of the same kind, another accelerator, numbers scaled within the
// parameter's declared range), the chain is re-run through the engine (references between
// blocks keep working), and the candidate is asked the results the author marks (the
// front matter's [work] asked list; by default the results the TL;DR quotes). Answers are
// graded with the drills' unit parsing; a wrong answer that matches a named misconception
// (practice/misconceptions.h) names it. Deterministic per (slug, seed).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bank/question.h"
#include "calc/registry.h"

namespace ridge::practice {

struct Misconception;

// One calc block of a question as written (references unresolved).
struct ChainBlock {
  std::string id;
  bool expr = false;
  std::string text;        // the expr text, for expr blocks
  std::string calculator;  // for call blocks
  calc::Given args;        // as written: literals and {{id.key}} references
};

// What a question offers Work it, prepared once per question.
struct WorkPlan {
  std::string slug;
  std::vector<ChainBlock> blocks;
  std::vector<std::string> asked;  // "fit.max_sequences"
  double tolerance = 0.05;
  bool workable = false;
  std::string reason;  // why not workable
  // The chain's yes/no results as written ("fit.fits" = 1): the story every draw keeps.
  std::vector<std::pair<std::string, double>> story;
};

struct DrawnInput {
  std::string block, param, original, drawn;  // drawn in the parameter's base unit
};

struct WorkStep {
  std::string ref;    // "fit.max_sequences"
  std::string label;  // "max sequences (fit)"
  calc::Unit unit = calc::Unit::kNone;
  double value = 0;   // the engine's answer for the drawn inputs
  std::string unit_hint;
};

// The evaluated chain: one entry per block, the block's call with inputs as run.
struct ChainRun {
  std::vector<std::string> ids;
  std::vector<std::string> calls;
  std::vector<calc::Derivation> derivations;
  const calc::Derivation* find(std::string_view id) const;
  std::optional<double> value(std::string_view ref) const;
};

struct Exercise {
  std::string slug;
  uint64_t seed = 0;
  std::string prompt;                  // the question's title and the inputs that changed
  std::vector<ChainBlock> blocks;      // with the drawn literals
  std::vector<DrawnInput> inputs;      // the literals that changed
  std::vector<WorkStep> steps;
  ChainRun chain;
  double tolerance = 0.05;
  int attempts = 0;                    // draws tried before a valid one (at most kMaxDraws)
};

inline constexpr int kMaxDraws = 16;  // one chain evaluation each: bounded work per exercise

// The plan of `q`: its calc blocks and asked results, or not workable with a reason.
// Runs the chain once as written (at most one engine evaluation per block).
WorkPlan plan_question(const bank::Question& q, const calc::Registry& registry, const calc::Catalog& catalog);

// A block's call as the engine evaluates it (references substituted with `run`'s results).
// Runs every block of `blocks` in order; nullopt with `error` naming the block on failure.
std::optional<ChainRun> run_chain(const std::vector<ChainBlock>& blocks, const calc::Registry& registry,
                                  const calc::Catalog& catalog, std::string* error);

// The exercise for `seed` (0: the inputs as the author wrote them), or nullopt with `error` when no valid draw was found in kMaxDraws.
std::optional<Exercise> make_exercise(const WorkPlan& plan, const std::string& title, uint64_t seed,
                                      const calc::Registry& registry, const calc::Catalog& catalog,
                                      std::string* error);

struct StepGrade {
  std::string ref;
  bool correct = false;
  double given = 0, expected = 0, relative_error = 0;
  std::string message;                       // why the answer could not be read
  const Misconception* misconception = nullptr;  // the named mistake it matches
};

// Grades `answer` for step `step` (checked by the caller: step < ex.steps.size()).
StepGrade grade_step(const Exercise& ex, size_t step, const std::string& answer, const calc::Registry& registry,
                     const calc::Catalog& catalog);

}  // namespace ridge::practice
