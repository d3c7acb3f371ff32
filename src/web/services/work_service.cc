#include "web/services/work_service.h"

#include <charconv>
#include <cmath>

namespace ridge::web::services {
namespace {

constexpr const char* kPurpose = "work-it";

// A seed as the forms and the API carry it: decimal, 1 to 19 digits.
std::optional<uint64_t> parse_seed(const std::string& text) {
  if (text.empty() || text.size() > 19) return std::nullopt;
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

}  // namespace

std::shared_ptr<const practice::WorkPlan> WorkService::plan(const std::string& slug) const {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = plans_.find(slug); it != plans_.end()) return it->second;
  }
  const bank::Question* q = bank_.find(slug);
  if (q == nullptr) return nullptr;
  // Planned outside the lock (one chain evaluation); two threads planning one question at
  // once both compute the same plan and the first stored is kept.
  auto made = std::make_shared<const practice::WorkPlan>(practice::plan_question(*q, registry_, catalog_));
  std::lock_guard<std::mutex> lock(mu_);
  return plans_.emplace(slug, std::move(made)).first->second;
}

bool WorkService::workable(const std::string& slug) const {
  const bank::Question* q = bank_.find(slug);
  if (q == nullptr) return false;
  auto p = plan(slug);
  return p != nullptr && p->workable;
}

std::string WorkService::sign(int64_t user_id, const std::string& slug, uint64_t seed) const {
  return signer_.sign(kPurpose, {std::to_string(user_id), slug, std::to_string(seed)});
}

Result<practice::Exercise> WorkService::exercise(const std::string& slug, uint64_t seed) const {
  auto p = plan(slug);
  if (p == nullptr || !p->workable) {
    return Failure::invalid({"slug", slug.substr(0, 120), "question '" + slug.substr(0, 120) + "' cannot be worked",
                             "a workable question's slug (ridge work --list)"});
  }
  std::string error;
  auto ex = practice::make_exercise(*p, bank_.find(slug)->title, seed, registry_, catalog_, &error);
  // Every workable question has valid draws (ridge check draws 20); a seed without one is
  // the content's fault, not the caller's.
  if (!ex) return Failure::internal({"seed", std::to_string(seed), error, "a seed with a valid draw"});
  return std::move(*ex);
}

Result<WorkTicket> WorkService::start(int64_t user_id, const std::string& slug) const {
  // About 1% of seeds find no valid draw in kMaxDraws (workit_bench: 15 of 1,580), which was a
  // 500 for the visitor: another seed is tried, at most kStartSeeds in all (each at most
  // kMaxDraws chain evaluations: the work per request stays bounded).
  constexpr int kStartSeeds = 3;
  std::optional<Failure> last;
  for (int attempt = 0; attempt < kStartSeeds; ++attempt) {
    uint32_t raw = 0;
    random_.fill(&raw, sizeof raw);
    const uint64_t seed = (raw & 0x7fffffffu) | 1u;  // 1..2^31-1: never 0, the author's own inputs
    auto ex = exercise(slug, seed);
    if (ex.ok()) return WorkTicket{std::move(ex).value(), sign(user_id, slug, seed)};
    if (ex.error().kind != Failure::Kind::kInternal) return ex.error();  // not workable: no seed helps
    last = ex.error();
  }
  return *last;
}

Result<WorkState> WorkService::open(int64_t user_id, const std::string& slug, const std::string& seed_text,
                                     const std::string& signature) const {
  auto seed = parse_seed(seed_text);
  if (!seed) {
    return Failure::invalid({"seed", seed_text.substr(0, 20), "seed '" + seed_text.substr(0, 20) + "' is not an exercise seed",
                             "a whole number of up to 19 digits"});
  }
  if (!signer_.verify(kPurpose, {std::to_string(user_id), slug, std::to_string(*seed)}, signature)) {
    return Failure::forbidden({"signature", signature.substr(0, 16), "this exercise was not drawn for you (or it was changed)",
                               "the signature the exercise came with, for the account it came to"});
  }
  auto ex = exercise(slug, *seed);
  if (!ex.ok()) return ex.error();
  auto graded = store_.work_attempts(user_id, slug, static_cast<int64_t>(*seed));
  if (!graded.ok()) return graded.error();
  return WorkState{{std::move(ex).value(), signature}, std::move(*graded)};
}

Result<WorkGrade> WorkService::grade(int64_t user_id, double retention, const std::string& slug, const std::string& seed,
                                      const std::string& signature, const std::string& step_text,
                                      const std::string& answer) const {
  auto state = open(user_id, slug, seed, signature);
  if (!state.ok()) return state.error();
  const practice::Exercise& ex = state->ticket.exercise;
  auto step = parse_seed(step_text);
  if (!step || *step >= ex.steps.size()) {
    return Failure::invalid({"step", step_text.substr(0, 20), "step '" + step_text.substr(0, 20) + "' is not a step of this exercise",
                             "0 to " + std::to_string(ex.steps.size() - 1)});
  }
  for (const auto& g : state->graded) {
    if (g.step == static_cast<int>(*step)) {
      return Failure::conflict({"step", step_text, "step " + step_text + " of this exercise was graded already", "a step not yet graded"});
    }
  }
  WorkGrade out;
  out.step = *step;
  out.grade = practice::grade_step(ex, *step, answer, registry_, catalog_);
  if (!out.grade.message.empty()) {
    return Failure::invalid({"answer", answer.substr(0, 60), out.grade.message, "a number, with a unit where the step has one"});
  }
  const int64_t now = clock_.now();
  store::WorkAttempt attempt{slug, static_cast<int64_t>(ex.seed), static_cast<int>(*step), answer.substr(0, 200),
                             out.grade.correct, out.grade.misconception ? out.grade.misconception->id : "", now};
  auto saved = store_.record_work_step(user_id, attempt);
  if (!saved.ok()) return Failure::unavailable(saved.error().detail);
  // Another request graded it between our read and our write: the first grade stands.
  if (!*saved) {
    return Failure::conflict({"step", step_text, "step " + step_text + " of this exercise was graded already", "a step not yet graded"});
  }
  state.value().graded.push_back(attempt);
  if (!state->finished()) return out;
  out.finished = true;
  // The method, not the digits: every step right is Good; any wrong step (a named mistake
  // or not) is Again, so the question comes back soon, with new inputs.
  bool all_right = true;
  for (const auto& g : state->graded) all_right = all_right && g.right;
  out.fsrs_grade = all_right ? 3 : 1;
  auto scheduled = reviews_.grade(user_id, retention, slug, out.fsrs_grade);
  if (!scheduled.ok()) return scheduled.error();
  out.scheduled = *scheduled;
  return out;
}

std::vector<std::string> WorkService::trains(const std::string& id, size_t limit) const {
  const practice::Misconception* m = practice::find_misconception(id);
  if (m == nullptr) return {};
  std::vector<std::string> all;
  bool cached = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = trains_.find(id); it != trains_.end()) {
      all = it->second;
      cached = true;
    }
  }
  if (!cached) {
    // Computed outside the lock; two threads racing compute the same list.
    for (const auto& q : bank_.questions) {
      if (!workable(q.slug)) continue;
      auto ex = exercise(q.slug, 0);  // the author's own inputs: the chain as the question tells it
      if (!ex.ok()) continue;
      for (size_t step = 0; step < ex->steps.size(); ++step) {
        // As match_misconception tells a mistake apart: a finite wrong value further than the
        // tolerance from the right one.
        const double right = ex->steps[step].value;
        auto wrong = m->wrong(practice::MistakeContext{*ex, step, registry_, catalog_});
        if (!wrong || !std::isfinite(*wrong)) continue;
        const double rel = right == 0 ? std::fabs(*wrong) : std::fabs(*wrong - right) / std::fabs(right);
        if (rel > ex->tolerance) {
          all.push_back(q.slug);
          break;
        }
      }
    }
    std::lock_guard<std::mutex> lock(mu_);
    trains_.emplace(id, all);
  }
  if (all.size() > limit) all.resize(limit);
  return all;
}

Result<std::vector<MistakeSummary>> WorkService::mistakes(int64_t user_id) const {
  auto counts = store_.work_mistakes(user_id);
  if (!counts.ok()) return counts.error();
  std::vector<MistakeSummary> out;
  for (const auto& c : *counts) {
    const practice::Misconception* m = practice::find_misconception(c.misconception);
    if (m == nullptr) continue;  // a mistake a later release renamed: not shown
    out.push_back({m, c.count, c.last_at, c.slug});
  }
  return out;
}

}  // namespace ridge::web::services
