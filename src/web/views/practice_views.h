// The practice pages' bodies (review, dashboard, drill, readiness, settings) as functions of
// plain view structs, rendered from web/templates (review, dashboard, drill, readiness_start,
// readiness_check, readiness_result, settings): no store, no Request, no clock. The templates
// escape every text from a user or the bank; the only raw insertion is a derivation the engine
// rendered (calc::render_html, `derivation_html` and `chain_html`). The route wraps the body
// in layout(). Thread safety: every function may be called from any thread (see template.h).
#pragma once

#include <cstdint>
#include <optional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "web/services/drill_service.h"
#include "web/services/readiness_service.h"
#include "web/services/review_service.h"

namespace ridge::web::views {

// "12.3%": a ratio as the progress pages show it (three significant digits).
std::string percent(double ratio);

struct ReviewPageView {
  std::string csrf;
  services::ReviewQueue queue;
};
std::string review_page(const ReviewPageView& v);

struct ProgressRow {
  std::string id, name;  // a topic or track
  services::ProgressCounts counts;
  int questions = 0;     // the questions it holds: "seen 12 of 40"
};
struct QuestionLink {
  std::string slug, title;
};
struct ReadinessRow {
  std::string track;  // the track's name
  double score = 0;
  int64_t finished_at = 0;
};
struct DashboardView {
  std::string email;
  std::vector<ProgressRow> tracks, topics;  // in the bank's order
  std::vector<QuestionLink> bookmarks;
  std::vector<ReadinessRow> readiness;
};
std::string dashboard_page(const DashboardView& v);

struct TopicOption {
  std::string id, name;
};
struct DrillView {
  std::vector<TopicOption> topics;  // the picker, in the drills' order
  std::string topic;                // the chosen one ("" for any)
  std::string shown_topic;          // the drill's topic, by name
  const practice::Drill* drill = nullptr;  // not null
  std::string answer;               // as given ("" before an answer)
  std::optional<services::DrillCheck> check;  // with an answer
  bool signed_in = false;
  std::string csrf;
};
std::string drill_page(const DrillView& v);

struct TrackOption {
  std::string id, name;
};
// The readiness check's three pages: choose a track, answer, the score.
std::string readiness_start_page(const std::vector<TrackOption>& tracks, const std::string& csrf);
struct ReadinessCheckView {
  std::string track_name;
  const services::StartedCheck* check = nullptr;  // not null
  std::string csrf;
  int64_t now = 0;                                // for the time left, in words
  std::map<std::string, std::string> topic_names; // topic id to name (an id without one shows as is)
};
std::string readiness_check_page(const ReadinessCheckView& v);
struct ReadinessResultView {
  const services::ScoredCheck* result = nullptr;  // not null
  std::vector<TopicOption> study_next;            // the weakest topics, up to three
  std::vector<double> study_next_scores;          // their scores, in the same order
  std::map<std::string, std::string> topic_names; // topic id to name
};
std::string readiness_result_page(const ReadinessResultView& v);

struct SettingsView {
  std::string message;       // the outcome of the last change ("" for none)
  int64_t access_until = 0;  // unix seconds, 0 for never paid
  int64_t now = 0;
  bool paid = false;         // back from the provider's page (?paid=1)
  std::string email;
  bool verified = false;
  std::string csrf;
  double retention = 0.9;
  int new_per_day = 20;
};
std::string settings_page(const SettingsView& v);

// The API's JSON of a graded card (POST /api/reviews) and of progress (GET /api/progress).
nlohmann::json graded_card_json(const services::GradedCard& card);
nlohmann::json progress_json(const services::Progress& progress);

}  // namespace ridge::web::views
