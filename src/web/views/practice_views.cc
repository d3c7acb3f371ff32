#include "web/views/practice_views.h"

#include <algorithm>

#include "calc/derivation.h"
#include "billing/billing.h"
#include "calc/units.h"
#include "practice/card_state.h"
#include "web/http.h"

namespace ridge::web::views {

namespace {

std::string e(std::string_view s) { return calc::html_escape(s); }

// The review page's four grade buttons for one question (keys 1 to 4).
std::string grade_form(const std::string& csrf, const std::string& slug) {
  std::string out = "<form method=\"post\" action=\"/review\" class=\"grades\">" + csrf_field(csrf) +
                    "<input type=\"hidden\" name=\"slug\" value=\"" + e(slug) + "\">";
  const char* names[] = {"Again", "Hard", "Good", "Easy"};
  for (int g = 1; g <= 4; ++g) {
    out += "<button type=\"submit\" name=\"grade\" value=\"" + std::to_string(g) + "\" data-key=\"" + std::to_string(g) + "\">" +
           std::to_string(g) + " " + names[g - 1] + "</button> ";
  }
  return out + "</form>";
}

// "in 3 min", "in 2 h", "in 4 days": rounded up, so "due in 0 min" never shows.
std::string time_left(int64_t left) {
  int64_t days = (left + 86399) / 86400;
  return left < 3600    ? std::to_string(std::max<int64_t>(1, (left + 59) / 60)) + " min"
         : left < 86400 ? std::to_string((left + 3599) / 3600) + " h"
                        : std::to_string(days) + " day" + (days == 1 ? "" : "s");
}

std::string count_cell(int n) { return "<td>" + std::to_string(n) + "</td>"; }

std::string ratio_cell(const std::optional<double>& r) {
  return r ? "<td>" + percent(*r) + "</td>" : std::string("<td class=\"muted\">none</td>");
}

std::string progress_cells(const services::ProgressCounts& c) {
  return count_cell(c.seen) + count_cell(c.due) + ratio_cell(c.retention()) + count_cell(c.drills) + ratio_cell(c.drill_accuracy());
}

}  // namespace

std::string percent(double ratio) { return calc::format_significant(ratio * 100, 3) + "%"; }

std::string csrf_field(const std::string& token) { return "<input type=\"hidden\" name=\"csrf\" value=\"" + e(token) + "\">"; }

std::string review_page(const ReviewPageView& v) {
  const services::ReviewQueue& q = v.queue;
  std::string body = "<h1>Reviews due</h1>";
  for (const bank::Question* question : q.due) {
    body += "<section class=\"card review-item\" data-slug=\"" + e(question->slug) + "\"><h2><a href=\"/q/" + e(question->slug) + "\">" +
            e(question->title) + "</a></h2><details class=\"reveal\"><summary>Reveal the answer (space)</summary><p class=\"tldr\">" +
            e(question->tldr) + "</p><p><a href=\"/q/" + e(question->slug) + "\">The worked answer</a></p></details>" +
            grade_form(v.csrf, question->slug) + "</section>\n";
  }
  std::string items;
  for (const bank::Question* question : q.fresh) {
    items += "<section class=\"card review-item new-item\" data-slug=\"" + e(question->slug) + "\"><h3><a href=\"/q/" + e(question->slug) +
             "\">" + e(question->title) + "</a> <span class=\"tag\">new</span></h3><p class=\"muted\">" + e(question->summary) +
             "</p><details class=\"reveal\"><summary>Reveal the answer</summary><p class=\"tldr\">" + e(question->tldr) +
             "</p><p><a href=\"/q/" + e(question->slug) + "\">The worked answer</a></p></details>" +
             grade_form(v.csrf, question->slug) + "</section>\n";
  }
  int left = std::max(0, q.new_per_day - q.introduced_today);
  std::string new_section = "<h2>New today</h2><p class=\"muted\" id=\"new-today\">" + std::to_string(q.introduced_today) + " of " +
                            std::to_string(q.new_per_day) + " new questions started today (UTC); " + std::to_string(left) +
                            " more on offer. <a href=\"/settings\">Change the daily limit</a>.</p>" + items;
  if (q.due.empty()) {
    body += "<p id=\"nothing-due\">Nothing is due. Grade questions as you read them and they come back here when FSRS schedules them.</p>";
  }
  std::string upcoming;
  for (const auto& u : q.upcoming) {
    upcoming += "<li data-slug=\"" + e(u.question->slug) + "\"><a href=\"/q/" + e(u.question->slug) + "\">" + e(u.question->title) +
                "</a> <span class=\"muted\">in " + time_left(u.seconds_left) + "</span></li>";
  }
  if (!upcoming.empty()) body += "<h2>Coming up</h2><ol id=\"upcoming\" class=\"questions\">" + upcoming + "</ol>";
  body += new_section;
  return "<p class=\"muted\">" + std::to_string(q.due.size()) + " due · keys: space reveals, 1 to 4 grade</p>" + body;
}

std::string dashboard_page(const DashboardView& v) {
  constexpr const char* kHead =
      "<thead><tr><th>{}</th><th>Seen</th><th>Due</th><th>Retention</th><th>Drills</th><th>Drill accuracy</th></tr></thead><tbody>";
  auto head = [&](const std::string& first) {
    std::string h = kHead;
    return h.replace(h.find("{}"), 2, first);
  };
  std::string body = "<h1>Your progress</h1><p class=\"muted\">Signed in as " + e(v.email) +
                     ". <a href=\"/review\">Reviews</a> · <a href=\"/drill\">Drill</a> · <a href=\"/readiness\">Readiness check</a> · "
                     "<a href=\"/settings\">Settings</a></p>";
  body += "<h2>By track</h2><table id=\"by-track\" class=\"progress\">" + head("Track");
  for (const auto& t : v.tracks) {
    body += "<tr><td><a href=\"/tracks/" + e(t.id) + "\">" + e(t.name) + "</a></td>" + progress_cells(t.counts) + "</tr>";
  }
  body += "</tbody></table><h2>By topic</h2><table id=\"by-topic\" class=\"progress\">" + head("Topic");
  for (const auto& t : v.topics) {
    body += "<tr data-topic=\"" + e(t.id) + "\"><td><a href=\"/topics/" + e(t.id) + "\">" + e(t.name) + "</a></td>" +
            progress_cells(t.counts) + "</tr>";
  }
  body += "</tbody></table><h2>Bookmarks</h2><ul>";
  for (const auto& b : v.bookmarks) body += "<li><a href=\"/q/" + e(b.slug) + "\">" + e(b.title) + "</a></li>";
  body += "</ul><h2>Readiness checks</h2><ul>";
  for (const auto& r : v.readiness) {
    body += "<li>" + e(r.track) + ": " + percent(r.score) + " <span class=\"muted\">(" + http_date(r.finished_at) + ")</span></li>";
  }
  return body + "</ul>";
}

std::string drill_page(const DrillView& v) {
  const practice::Drill& d = *v.drill;
  // The topic picker: a plain GET form, so it works without script.
  std::string picker = "<form method=\"get\" action=\"/drill\" class=\"filters\" id=\"drill-topics\"><label for=\"drill-topic\">Topic</label> "
                       "<select id=\"drill-topic\" name=\"topic\"><option value=\"\">any topic</option>";
  for (const auto& t : v.topics) {
    picker += "<option value=\"" + e(t.id) + "\"" + (t.id == v.topic ? " selected" : "") + ">" + e(t.name) + "</option>";
  }
  picker += "</select> <button type=\"submit\">New drill</button></form>";
  std::string again = "/drill" + (v.topic.empty() ? "" : "?topic=" + e(v.topic));
  std::string body = "<h1>Drill</h1>" + picker + "<p class=\"muted\">Topic: <span id=\"drill-topic-name\">" + e(v.shown_topic) +
                     "</span> · <a href=\"" + again + "\">another one</a></p><p class=\"prose\" id=\"drill-prompt\">" + e(d.prompt) + "</p>";
  using Verdict = services::DrillCheck::Verdict;
  using Recorded = services::DrillCheck::Recorded;
  if (v.check && !v.check->read()) {
    body += "<p class=\"error\" role=\"alert\">'" + e(v.answer) + "' " + e(v.check->graded.message) + "</p>";
  } else if (v.check) {
    const practice::Graded& g = v.check->graded;
    bool correct = v.check->verdict == Verdict::kCorrect;
    body += std::string("<p id=\"drill-verdict\" class=\"") + (correct ? "good" : "bad") + "\"><strong>" +
            (correct ? "Correct" : "Not within 10%") + "</strong>: you said " + e(calc::format_quantity(g.given, d.unit)) +
            ", the engine says " + e(calc::format_quantity(g.expected, d.unit)) + " (" + percent(g.relative_error) + " off).</p>";
    body += calc::render_html(d.answer);  // raw: the engine's own rendering, escaped inside
    if (v.check->recorded == Recorded::kSaved) {
      body += "<p class=\"muted\">Saved to your progress.</p>";
    } else if (v.check->recorded == Recorded::kFailed) {
      body += "<p class=\"error\" role=\"alert\">Not saved to your progress: the database is unavailable. "
              "Answer again in a few seconds to count it.</p>";
    } else if (!v.signed_in) {
      body += "<p class=\"muted\"><a href=\"/signup\">Create an account</a> to count drills on your dashboard.</p>";
    }
    return body + "<p><a class=\"button\" href=\"" + again + "\">Next drill</a></p>";
  }
  // No answer yet, or one that could not be read: the form (again).
  return body + std::string("<form class=\"calc\" method=\"") + (v.signed_in ? "post" : "get") + "\" action=\"/drill\">" +
         (v.signed_in ? csrf_field(v.csrf) : "") + "<input type=\"hidden\" name=\"seed\" value=\"" + std::to_string(d.seed) +
         "\"><input type=\"hidden\" name=\"topic\" value=\"" + e(v.topic) + "\"><div class=\"field\"><label for=\"answer\">Your answer</label>"
         "<input id=\"answer\" name=\"answer\" type=\"text\" inputmode=\"decimal\" aria-describedby=\"answer-hint\" value=\"" + e(v.answer) +
         "\"><span class=\"hint\" id=\"answer-hint\">" + e(d.unit_hint) + "; within 10% counts</span></div>"
         "<div class=\"field\"><button type=\"submit\">Check</button></div></form>";
}

std::string readiness_start_page(const std::vector<TrackOption>& tracks, const std::string& csrf) {
  std::string body = "<h1>Readiness check</h1><p class=\"prose\">Fifteen minutes: five numeric drills and five questions from the track's "
                     "topics, weighted as the track weighs them. You get a score per topic and what to study next.</p>"
                     "<form method=\"post\" action=\"/readiness\" class=\"calc\">" + csrf_field(csrf) +
                     "<input type=\"hidden\" name=\"action\" value=\"start\"><div class=\"field\"><label for=\"track\">Track</label><select id=\"track\" name=\"track\">";
  for (const auto& t : tracks) body += "<option value=\"" + e(t.id) + "\">" + e(t.name) + "</option>";
  return body + "</select></div><div class=\"field\"><button type=\"submit\">Start</button></div></form>";
}

std::string readiness_check_page(const ReadinessCheckView& v) {
  const services::StartedCheck& c = *v.check;
  std::string items;
  for (const auto& item : c.items) {
    std::string n = std::to_string(item.number), name = "a" + n;
    if (item.drill) {
      items += "<section class=\"card\"><h2>Drill " + n + " <span class=\"tag\">" + e(item.drill->topic) + "</span></h2><p>" +
               e(item.drill->prompt) + "</p><label for=\"" + name + "\">Answer (" + e(item.drill->unit_hint) + ")</label> <input id=\"" + name +
               "\" name=\"" + name + "\" type=\"text\" inputmode=\"decimal\"></section>";
    } else {
      const bank::Question* q = item.question;
      items += "<section class=\"card\"><h2>Question " + n + " <span class=\"tag\">" + e(q->topic) + "</span></h2><p>" +
               e(q->title) + "</p><details class=\"reveal\"><summary>Answer it aloud, then reveal</summary><p class=\"tldr\">" + e(q->tldr) +
               "</p></details><fieldset><legend>How did you do?</legend>"
               "<label><input type=\"radio\" name=\"" + name + "\" value=\"1\"> had it</label> "
               "<label><input type=\"radio\" name=\"" + name + "\" value=\"0.5\"> partly</label> "
               "<label><input type=\"radio\" name=\"" + name + "\" value=\"0\" checked> missed it</label></fieldset></section>";
    }
  }
  return "<h1>Readiness check: " + e(v.track_name) + "</h1><p id=\"deadline\" data-deadline=\"" + std::to_string(c.deadline) +
         "\">You have 15 minutes; answers after that count as missed. <strong id=\"countdown\" aria-live=\"polite\"></strong></p>"
         "<form method=\"post\" action=\"/readiness\">" + csrf_field(v.csrf) +
         "<input type=\"hidden\" name=\"action\" value=\"finish\"><input type=\"hidden\" name=\"payload\" value=\"" + e(c.payload) +
         "\"><input type=\"hidden\" name=\"mac\" value=\"" + e(c.mac) + "\">" + items + "<p><button type=\"submit\">Finish</button></p></form>";
}

std::string readiness_result_page(const ReadinessResultView& v) {
  const services::ScoredCheck& r = *v.result;
  std::string body = "<h1>Your readiness: <span id=\"readiness-score\">" + percent(r.score) + "</span></h1>" +
                     (r.late ? "<p class=\"error\">Finished after the 15 minutes: the answers counted as missed.</p>" : "") +
                     "<table id=\"readiness-topics\"><thead><tr><th>Topic</th><th>Score</th></tr></thead><tbody>";
  for (const auto& [score, topic] : r.ranked) body += "<tr><td>" + e(topic) + "</td><td>" + percent(score) + "</td></tr>";
  body += "</tbody></table><h2>Study next</h2><ul>";
  for (size_t i = 0; i < v.study_next.size(); ++i) {
    body += "<li><a href=\"/topics/" + e(v.study_next[i].id) + "\">" + e(v.study_next[i].name) + "</a> (" + percent(v.study_next_scores[i]) + ")</li>";
  }
  body += "</ul><h2>Your answers</h2>";
  // Feedback per answer, with the engine's worked chain.
  for (const auto& f : r.drills) {
    body += "<section class=\"card feedback\"><h3>Drill " + std::to_string(f.number) + ": " + std::string(f.correct ? "correct" : "missed") +
            "</h3><p>" + e(f.drill.prompt) + "</p><p>You said " + (f.answer.empty() ? std::string("nothing") : "'" + e(f.answer) + "'") +
            "; the engine says <strong>" + e(calc::format_quantity(f.drill.expected, f.drill.unit)) +
            "</strong>.</p><details><summary>The worked chain</summary>" + calc::render_html(f.drill.answer) + "</details></section>";
  }
  return body + "<p><a href=\"/dashboard\">Your progress</a></p>";
}

std::string settings_page(const SettingsView& v) {
  std::string access = v.access_until > v.now ? "<p id=\"access\">Paid access until <time datetime=\"" + billing::rfc3339(v.access_until) + "\">" +
                                            billing::rfc3339(v.access_until) + "</time>.</p>"
                       : v.access_until > 0   ? "<p id=\"access\">Paid access ended on " + billing::rfc3339(v.access_until) + ". <a href=\"/pricing\">Renew</a>.</p>"
                                      : "<p id=\"access\">No paid access: the free questions are open. <a href=\"/pricing\">Pricing</a>.</p>";
  if (v.paid) access += "<p class=\"muted\">Thank you: access starts as soon as the provider confirms the payment (usually seconds).</p>";
  std::string body = "<h1>Settings</h1>" + (v.message.empty() ? "" : "<p role=\"status\" id=\"settings-message\">" + e(v.message) + "</p>") +
                     "<h2>Access</h2>" + access + "<p>Account: " + e(v.email) + (v.verified ? " (verified)</p>" :
                     " (not verified yet)</p><form method=\"post\" class=\"calc\">" + csrf_field(v.csrf) +
                     "<input type=\"hidden\" name=\"action\" value=\"verify\"><button type=\"submit\" id=\"resend-verification\">"
                     "Send a new verification link</button></form>") +
                     "<h2>Review schedule</h2><form method=\"post\" class=\"calc\">" + csrf_field(v.csrf) +
                     "<input type=\"hidden\" name=\"action\" value=\"retention\"><div class=\"field\"><label for=\"retention\">Desired retention</label>"
                     "<input id=\"retention\" name=\"retention\" value=\"" + calc::format_significant(v.retention, 3) +
                     "\" inputmode=\"decimal\"><span class=\"hint\">0.70 to 0.97; higher means more frequent reviews</span></div>"
                     "<div class=\"field\"><button type=\"submit\">Save</button></div></form>"
                     "<form method=\"post\" class=\"calc\">" + csrf_field(v.csrf) +
                     "<input type=\"hidden\" name=\"action\" value=\"new-per-day\"><div class=\"field\"><label for=\"new-per-day\">New questions a day</label>"
                     "<input id=\"new-per-day\" name=\"new_per_day\" value=\"" + std::to_string(v.new_per_day) +
                     "\" inputmode=\"numeric\" aria-describedby=\"new-per-day-hint\"><span class=\"hint\" id=\"new-per-day-hint\">0 to " +
                     std::to_string(practice::kMaxNewPerDay) + "; how many questions you have not graded yet the review page offers each day "
                     "(days start at midnight UTC). Questions you grade on their own page count too.</span></div>"
                     "<div class=\"field\"><button type=\"submit\">Save</button></div></form>"
                     "<h2>Password</h2><form method=\"post\" class=\"calc\">" + csrf_field(v.csrf) +
                     "<input type=\"hidden\" name=\"action\" value=\"password\"><div class=\"field\"><label for=\"cur\">Current password</label>"
                     "<input id=\"cur\" name=\"current\" type=\"password\" autocomplete=\"current-password\"></div><div class=\"field\"><label for=\"new\">New password</label>"
                     "<input id=\"new\" name=\"new\" type=\"password\" autocomplete=\"new-password\"></div><div class=\"field\"><button type=\"submit\">Change</button></div></form>"
                     "<h2>Delete the account</h2><p>Deletes your reviews, notes, bookmarks, drills and readiness history.</p><form method=\"post\" class=\"calc\">" +
                     csrf_field(v.csrf) + "<input type=\"hidden\" name=\"action\" value=\"delete\"><div class=\"field\"><label for=\"del\">Password</label>"
                     "<input id=\"del\" name=\"current\" type=\"password\" autocomplete=\"current-password\"></div><div class=\"field\"><button type=\"submit\">Delete everything</button></div></form>"
                     "<h2>Sign out</h2><form method=\"post\" action=\"/signout\">" + csrf_field(v.csrf) + "<button type=\"submit\">Sign out</button></form>";
  return body;
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
