#include "web/views/practice_views.h"

#include <algorithm>

#include "bank/markdown.h"
#include "billing/billing.h"
#include "calc/dates.h"
#include "calc/derivation.h"
#include "calc/units.h"
#include "practice/card_state.h"
#include "web/http.h"
#include "web/template.h"

namespace ridge::web::views {

namespace {

// "in 3 min", "in 2 h", "in 4 days": rounded up, so "due in 0 min" never shows.
std::string time_left(int64_t left) {
  int64_t days = (left + 86399) / 86400;
  return left < 3600    ? std::to_string(std::max<int64_t>(1, (left + 59) / 60)) + " min"
         : left < 86400 ? std::to_string((left + 3599) / 3600) + " h"
                        : std::to_string(days) + " day" + (days == 1 ? "" : "s");
}

// A ratio or none: the flag says which (progress_cells.mustache shows "none" muted).
void put_ratio(View& d, const std::string& name, const std::optional<double>& ratio) {
  put(d, "has_" + name, ratio.has_value());
  put(d, name, ratio ? percent(*ratio) : std::string());
}

// One row of a progress table: its link and the fields of progress_cells.mustache.
View progress_row(const ProgressRow& row) {
  View d;
  put(d, "id", row.id);
  put(d, "name", row.name);
  put(d, "seen", std::to_string(row.counts.seen));
  put(d, "questions", std::to_string(row.questions));
  put(d, "due", std::to_string(row.counts.due));
  put_ratio(d, "retention", row.counts.retention());
  put(d, "drills", std::to_string(row.counts.drills));
  put_ratio(d, "drill_accuracy", row.counts.drill_accuracy());
  return d;
}

// A question on the review page (review.mustache's due and fresh items).
View review_item(const bank::Question& q) {
  View d;
  put(d, "slug", q.slug);
  put(d, "title", q.title);
  put(d, "summary_html", bank::inline_markdown_html(q.summary));
  put(d, "tldr_html", bank::inline_markdown_html(q.listed_tldr()));
  return d;
}

// "6 December 2026" (UTC): a date as a reader writes it, not an HTTP header's.
std::string date_in_words(int64_t unix_seconds) {
  // Civil date from days since 1970-01-01 (H. Hinnant, "chrono-Compatible Low-Level Date
  // Algorithms", days_from_civil's inverse), then the words calc::date_in_words gives an ISO date.
  int64_t z = (unix_seconds >= 0 ? unix_seconds : unix_seconds - 86399) / 86400 + 719468;
  int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  int64_t doe = z - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153;
  int64_t day = doy - (153 * mp + 2) / 5 + 1;
  int64_t month = mp < 10 ? mp + 3 : mp - 9;
  int64_t year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  auto two = [](int64_t v) {
    std::string t = std::to_string(v);
    if (v < 10) t.insert(0, 1, '0');
    return t;
  };
  return calc::date_in_words(std::to_string(year) + "-" + two(month) + "-" + two(day));
}

std::string name_of(const std::map<std::string, std::string>& names, const std::string& id) {
  auto it = names.find(id);
  return it == names.end() ? id : it->second;
}

View topic_option(const TopicOption& t) {
  View d;
  put(d, "id", t.id);
  put(d, "name", t.name);
  return d;
}

}  // namespace

std::string percent(double ratio) { return calc::format_significant(ratio * 100, 3) + "%"; }

std::string review_page(const ReviewPageView& v) {
  const services::ReviewQueue& q = v.queue;
  View d;
  put(d, "csrf", v.csrf);
  put(d, "due_count", std::to_string(q.due.size()));
  ViewList due, fresh, upcoming;
  for (const bank::Question* question : q.due) due.push_back(review_item(*question));
  for (const bank::Question* question : q.fresh) fresh.push_back(review_item(*question));
  for (const auto& u : q.upcoming) {
    View item;
    put(item, "slug", u.question->slug);
    put(item, "title", u.question->title);
    put(item, "time_left", time_left(u.seconds_left));
    upcoming.push_back(std::move(item));
  }
  put(d, "nothing_due", q.due.empty());
  put(d, "has_upcoming", !upcoming.empty());
  put(d, "due", std::move(due));
  put(d, "fresh", std::move(fresh));
  put(d, "upcoming", std::move(upcoming));
  put(d, "introduced_today", std::to_string(q.introduced_today));
  put(d, "new_per_day", std::to_string(q.new_per_day));
  put(d, "new_left", std::to_string(std::max(0, q.new_per_day - q.introduced_today)));
  return render("review", d);
}

std::string dashboard_page(const DashboardView& v) {
  View d;
  put(d, "email", v.email);
  ViewList tracks, topics, bookmarks, readiness;
  for (const auto& t : v.tracks) tracks.push_back(progress_row(t));
  for (const auto& t : v.topics) topics.push_back(progress_row(t));
  for (const auto& b : v.bookmarks) {
    View item;
    put(item, "slug", b.slug);
    put(item, "title", b.title);
    bookmarks.push_back(std::move(item));
  }
  for (const auto& r : v.readiness) {
    View item;
    put(item, "track", r.track);
    put(item, "score", percent(r.score));
    put(item, "finished", date_in_words(r.finished_at));
    readiness.push_back(std::move(item));
  }
  put(d, "tracks", std::move(tracks));
  put(d, "topics", std::move(topics));
  put(d, "bookmarks", std::move(bookmarks));
  put(d, "readiness", std::move(readiness));
  return render("dashboard", d);
}

std::string drill_page(const DrillView& v) {
  const practice::Drill& drill = *v.drill;
  View d;
  ViewList topics;
  for (const auto& t : v.topics) {
    View item = topic_option(t);
    put(item, "selected", t.id == v.topic);
    topics.push_back(std::move(item));
  }
  put(d, "topics", std::move(topics));
  put(d, "has_topic", !v.topic.empty());
  put(d, "topic", v.topic);
  put(d, "shown_topic", v.shown_topic);
  put(d, "prompt", drill.prompt);
  put(d, "answer", v.answer);
  put(d, "seed", std::to_string(drill.seed));
  put(d, "unit_hint", drill.unit_hint);
  put(d, "signed_in", v.signed_in);
  put(d, "csrf", v.csrf);
  bool checked = v.check && v.check->read();
  put(d, "unread", v.check && !v.check->read());
  put(d, "unread_message", v.check ? v.check->graded.message : std::string());
  put(d, "checked", checked);
  if (checked) {
    using Recorded = services::DrillCheck::Recorded;
    const practice::Graded& g = v.check->graded;
    put(d, "correct", v.check->verdict == services::DrillCheck::Verdict::kCorrect);
    put(d, "given", calc::format_quantity(g.given, drill.unit));
    put(d, "expected", calc::format_quantity(g.expected, drill.unit));
    put(d, "relative_error", percent(g.relative_error));
    put(d, "derivation_html", calc::render_html(drill.answer));  // the engine's own rendering, escaped inside
    put(d, "saved", v.check->recorded == Recorded::kSaved);
    put(d, "save_failed", v.check->recorded == Recorded::kFailed);
    put(d, "invite", v.check->recorded == Recorded::kNotAsked && !v.signed_in);
  }
  return render("drill", d);
}

std::string readiness_start_page(const std::vector<TrackOption>& tracks, const std::string& csrf) {
  View d;
  ViewList options;
  for (const auto& t : tracks) options.push_back(topic_option({t.id, t.name}));
  put(d, "tracks", std::move(options));
  put(d, "csrf", csrf);
  return render("readiness_start", d);
}

std::string readiness_check_page(const ReadinessCheckView& v) {
  const services::StartedCheck& c = *v.check;
  View d;
  put(d, "track_name", v.track_name);
  put(d, "deadline", std::to_string(c.deadline));
  const int64_t left = std::max<int64_t>(0, c.deadline - v.now);
  put(d, "seconds_left", std::to_string(left));
  put(d, "time_left", time_left(left));
  put(d, "resumed", c.resumed);
  put(d, "csrf", v.csrf);
  put(d, "payload", c.payload);
  put(d, "mac", c.mac);
  ViewList items;
  for (const auto& item : c.items) {
    if (!item.drill && item.question == nullptr) continue;  // gone from the bank since the check began
    View i;
    put(i, "number", std::to_string(item.number));
    put(i, "drill", item.drill.has_value());
    if (item.drill) {
      put(i, "topic", name_of(v.topic_names, item.drill->topic));
      put(i, "prompt", item.drill->prompt);
      put(i, "unit_hint", item.drill->unit_hint);
    } else {
      put(i, "topic", name_of(v.topic_names, item.question->topic));
      put(i, "title", item.question->title);
      put(i, "tldr_html", bank::inline_markdown_html(item.question->listed_tldr()));
    }
    items.push_back(std::move(i));
  }
  put(d, "items", std::move(items));
  return render("readiness_check", d);
}

std::string readiness_result_page(const ReadinessResultView& v) {
  const services::ScoredCheck& r = *v.result;
  View d;
  put(d, "score", percent(r.score));
  put(d, "late", r.late);
  ViewList ranked, study_next, drills;
  for (const auto& [score, topic] : r.ranked) {
    View row;
    put(row, "topic", name_of(v.topic_names, topic));
    put(row, "score", percent(score));
    ranked.push_back(std::move(row));
  }
  for (size_t i = 0; i < v.study_next.size(); ++i) {
    View item = topic_option(v.study_next[i]);
    put(item, "score", percent(v.study_next_scores[i]));
    study_next.push_back(std::move(item));
  }
  // Feedback per answer, with the engine's worked chain.
  for (const auto& f : r.drills) {
    View item;
    put(item, "number", std::to_string(f.number));
    put(item, "correct", f.correct);
    put(item, "prompt", f.drill.prompt);
    put(item, "has_answer", !f.answer.empty());
    put(item, "answer", f.answer);
    put(item, "expected", calc::format_quantity(f.drill.expected, f.drill.unit));
    put(item, "chain_html", calc::render_html(f.drill.answer));  // the engine's own rendering, escaped inside
    drills.push_back(std::move(item));
  }
  put(d, "ranked", std::move(ranked));
  put(d, "study_next", std::move(study_next));
  put(d, "drills", std::move(drills));
  return render("readiness_result", d);
}

std::string settings_page(const SettingsView& v) {
  View d;
  put(d, "has_message", !v.message.empty());
  put(d, "message", v.message);
  put(d, "access_active", v.access_until > v.now);
  put(d, "access_ended", v.access_until <= v.now && v.access_until > 0);
  put(d, "access_never", v.access_until <= v.now && v.access_until <= 0);
  put(d, "access_until", v.access_until > 0 ? billing::rfc3339(v.access_until) : std::string());
  put(d, "paid", v.paid);
  put(d, "email", v.email);
  put(d, "verified", v.verified);
  put(d, "csrf", v.csrf);
  put(d, "retention", calc::format_significant(v.retention, 3));
  put(d, "new_per_day", std::to_string(v.new_per_day));
  put(d, "max_new_per_day", std::to_string(practice::kMaxNewPerDay));
  return render("settings", d);
}

nlohmann::json graded_card_json(const services::GradedCard& c) {
  return {{"slug", c.slug}, {"due", c.due}, {"due_in_seconds", c.due_in_seconds},
          {"interval_days", static_cast<double>(c.due_in_seconds) / 86400}, {"stability", c.stability}, {"difficulty", c.difficulty}};
}

nlohmann::json progress_json(const services::Progress& p) {
  auto row = [](const services::ProgressCounts& a) {
    auto or_null = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
    return nlohmann::json{{"seen", a.seen}, {"due", a.due}, {"drills", a.drills}, {"retention", or_null(a.retention())},
                          {"reviews", a.reviews}, {"predicted_recall", or_null(a.predicted_recall())},
                          {"drill_accuracy", or_null(a.drill_accuracy())}};
  };
  nlohmann::json out = {{"topics", nlohmann::json::object()}, {"tracks", nlohmann::json::object()}};
  for (const auto& [id, a] : p.topics) out["topics"][id] = row(a);
  for (const auto& [id, a] : p.tracks) out["tracks"][id] = row(a);
  return out;
}

}  // namespace ridge::web::views
