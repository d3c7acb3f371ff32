// Mock loops: the rubric (four lines scored 1 to 4), the recommendation and the report of a
// finished or expired rehearsal.
#include "web/services/rehearsal.h"

#include <algorithm>
#include <set>

namespace ridge::web::services::rehearsal {

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
