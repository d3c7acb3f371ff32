// Practice pages of the App: review, dashboard, drills, the readiness check, settings.
// Rendered per request (they depend on the visitor); every form that changes state carries
// the session's CSRF token.
#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "account/security.h"
#include "billing/billing.h"
#include "practice/card_state.h"
#include "practice/drills.h"
#include "practice/fsrs.h"
#include "web/app.h"
#include "web/log.h"
#include "web/pages.h"
#include "web/routes/response.h"
#include "web/views/practice_views.h"

namespace ridge::web {

using routes::redirect;

namespace {

std::string e(std::string_view s) { return calc::html_escape(s); }

std::string value_of(const std::vector<std::pair<std::string, std::string>>& form, const std::string& key) {
  for (const auto& [k, v] : form) {
    if (k == key) return v;
  }
  return {};
}

}  // namespace

std::optional<Response> App::read_post_form(const Request& req, const Visitor& v,
                                            std::vector<std::pair<std::string, std::string>>& form) const {
  if (!parse_form(req.body, form)) return plain_error(400, "malformed form");
  if (!csrf_ok(req, v, value_of(form, "csrf"))) return plain_error(403, "missing or wrong CSRF token");
  return std::nullopt;
}

Response App::review_page(const Request& req) const {
  Site site{bank_, catalog_, registry_, assets_};
  Visitor v = visitor(req);
  if (v.user_id == 0) return redirect("/signin?next=/review");
  if (req.method == "POST") {
    std::vector<std::pair<std::string, std::string>> form;
    if (auto refused = read_post_form(req, v, form)) return *refused;
    int g = std::atoi(value_of(form, "grade").c_str());
    auto graded = reviews_->grade(v.user_id, v.retention, value_of(form, "slug"), g);
    if (!graded) {
      const auto& f = graded.error();
      return f.kind == services::Failure::Kind::kUnavailable ? failure(req, f) : plain_error(400, f.message());
    }
    return redirect("/review");
  }
  auto until = access_until(v.user_id);
  if (!until) return store_unavailable(req, "entitlement lookup failed");
  auto queue = reviews_->queue(v.user_id, v.new_per_day, *until > now());
  if (!queue) return failure(req, queue.error());
  Response r = routes::html(200, layout(site, "Reviews", "Questions due for review", views::review_page({v.csrf, std::move(queue).value()})));
  r.set("Cache-Control", "no-store");
  return r;
}

Response App::dashboard(const Request& req) const {
  Site site{bank_, catalog_, registry_, assets_};
  Visitor v = visitor(req);
  if (v.user_id == 0) return redirect("/signin?next=/dashboard");
  services::Progress progress = reviews_->progress(v.user_id, v.retention);
  views::DashboardView view;
  view.email = v.email;
  for (const auto& t : bank_.tracks) view.tracks.push_back({t.id, t.name, progress.tracks[t.id]});
  for (const auto& t : bank_.topics) view.topics.push_back({t.id, t.name, progress.topics[t.id]});
  // The lists are extras: a failed read leaves one empty rather than failing the page.
  if (auto marks = options_.store->bookmarks(v.user_id); marks.ok()) {
    for (const auto& slug : *marks) {
      if (const bank::Question* q = bank_.find(slug)) view.bookmarks.push_back({slug, q->title});
    }
  }
  if (auto history = options_.store->readiness_history(v.user_id); history.ok()) {
    for (const auto& r : *history) view.readiness.push_back({r.track, r.score, r.finished_at});
  }
  Response r = routes::html(200, layout(site, "Progress", "Your progress", views::dashboard_page(view)));
  r.set("Cache-Control", "no-store");
  return r;
}

Response App::drill(const Request& req) const {
  Site site{bank_, catalog_, registry_, assets_};
  Visitor v = visitor(req);
  std::vector<std::pair<std::string, std::string>> form = req.query;
  if (req.method == "POST") {
    if (auto refused = read_post_form(req, v, form)) return *refused;
  }
  views::DrillView view;
  view.topic = value_of(form, "topic");
  auto drill = drills_->generate(view.topic, value_of(form, "seed"));
  if (!drill) return failure(req, drill.error());
  for (const auto& id : services::DrillService::topics()) {
    const bank::Topic* t = bank_.find_topic(id);
    view.topics.push_back({id, t ? t->name : id});
  }
  const bank::Topic* shown = bank_.find_topic(drill->topic);
  view.shown_topic = shown ? shown->name : drill->topic;
  view.drill = &*drill;
  view.answer = value_of(form, "answer");
  view.signed_in = v.user_id != 0;
  view.csrf = v.csrf;
  if (!view.answer.empty()) {
    view.check = drills_->check(*drill, view.answer, v.user_id, req.method == "POST");
    if (view.check->recorded == services::DrillCheck::Recorded::kFailed) log::error("drill not recorded: " + view.check->store_error);
  }
  Response r = routes::html(200, layout(site, "Drill", "A numeric drill from the engine", views::drill_page(view)));
  r.set("Cache-Control", "no-store");
  return r;
}

Response App::readiness(const Request& req) const {
  Site site{bank_, catalog_, registry_, assets_};
  Visitor v = visitor(req);
  if (v.user_id == 0) return redirect("/signin?next=/readiness");
  std::vector<std::pair<std::string, std::string>> form;
  if (req.method == "POST") {
    if (auto refused = read_post_form(req, v, form)) return *refused;
  }
  std::string action = value_of(form, "action"), body;
  if (action == "start") {
    auto check = readiness_->start(v.user_id, value_of(form, "track"));
    if (!check) return failure(req, check.error());
    body = views::readiness_check_page({check->track->name, &*check, v.csrf});
  } else if (action == "finish") {
    auto scored = readiness_->finish(v.user_id, value_of(form, "payload"), value_of(form, "mac"),
                                     [&](int n) { return value_of(form, "a" + std::to_string(n)); });
    if (!scored) {
      // An altered or malformed check is answered in plain text, as it always was.
      const auto& f = scored.error();
      return f.kind == services::Failure::Kind::kInvalid ? plain_error(400, f.message()) : failure(req, f);
    }
    views::ReadinessResultView view{&*scored, {}, {}};
    for (size_t i = 0; i < scored->ranked.size() && i < 3; ++i) {
      if (const bank::Topic* t = bank_.find_topic(scored->ranked[i].second)) {
        view.study_next.push_back({t->id, t->name});
        view.study_next_scores.push_back(scored->ranked[i].first);
      }
    }
    body = views::readiness_result_page(view);
  } else {
    std::vector<views::TrackOption> tracks;
    for (const auto& t : bank_.tracks) tracks.push_back({t.id, t.name});
    body = views::readiness_start_page(tracks, v.csrf);
  }
  Response r = routes::html(200, layout(site, "Readiness check", "A timed readiness check", body));
  r.set("Cache-Control", "no-store");
  return r;
}

Response App::settings(const Request& req) const {
  Site site{bank_, catalog_, registry_, assets_};
  Visitor v = visitor(req);
  if (v.user_id == 0) return redirect("/signin?next=/settings");
  std::string message;
  if (req.method == "POST") {
    std::vector<std::pair<std::string, std::string>> form;
    if (auto refused = read_post_form(req, v, form)) return *refused;
    std::string action = value_of(form, "action");
    auto user = options_.store->get_user(v.user_id);
    if (!user.ok() || !user->has_value()) return plain_error(500, "account not found");
    if (action == "retention") {
      char* end = nullptr;
      std::string text = value_of(form, "retention");
      double r = std::strtod(text.c_str(), &end);
      if (text.empty() || *end != 0 || !(r >= 0.7 && r <= 0.97)) {
        message = "Desired retention '" + text + "' is out of range; accepted: 0.70 to 0.97.";
      } else {
        if (auto done = options_.store->set_retention(v.user_id, r); !done.ok()) return store_unavailable(req, done.error().message);
        v.retention = r;
        message = "Desired retention set to " + views::percent(r) + ".";
      }
    } else if (action == "new-per-day") {
      char* end = nullptr;
      std::string text = value_of(form, "new_per_day");
      long n = std::strtol(text.c_str(), &end, 10);
      if (text.empty() || *end != 0 || n < 0 || n > practice::kMaxNewPerDay) {
        message = "New questions a day '" + text + "' is out of range; accepted: a whole number from 0 to " +
                  std::to_string(practice::kMaxNewPerDay) + ".";
      } else {
        if (auto done = options_.store->set_new_per_day(v.user_id, static_cast<int>(n)); !done.ok()) return store_unavailable(req, done.error().message);
        v.new_per_day = static_cast<int>(n);
        message = "The review page offers up to " + std::to_string(n) + " new question" + (n == 1 ? "" : "s") + " a day.";
      }
    } else if (action == "password") {
      std::string current = value_of(form, "current"), next = value_of(form, "new");
      if (!account::verify_password((*user)->password_hash, current)) {
        message = "The current password is wrong.";
      } else if (auto why = account::check_password(next); !why.empty()) {
        message = "The new password " + why + ".";
      } else {
        if (auto done = options_.store->set_password(v.user_id, account::hash_password(next)); !done.ok()) {
          return store_unavailable(req, done.error().message);
        }
        // The other sessions end with the old password; a failure here leaves them open: say so.
        if (auto done = options_.store->delete_sessions_of(v.user_id); !done.ok()) return store_unavailable(req, done.error().message);
        return start_session(v.user_id, false, "/settings");
      }
    } else if (action == "verify") {
      if (v.email_verified_at == 0) send_account_mail(v.user_id, v.email, false);
      message = "A new verification link is on its way to " + v.email + " (it works once, for 30 minutes).";
    } else if (action == "delete") {
      if (!account::verify_password((*user)->password_hash, value_of(form, "current"))) {
        message = "The password is wrong; nothing was deleted.";
      } else {
        if (auto done = options_.store->delete_user(v.user_id); !done.ok()) return store_unavailable(req, done.error().message);
        Response r = redirect("/");
        r.set("Set-Cookie", "ridge_session=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0");
        return r;
      }
    }
  }
  auto until = access_until(v.user_id);
  if (!until) return store_unavailable(req, "entitlement lookup failed");
  std::string access = *until > now() ? "<p id=\"access\">Paid access until <time datetime=\"" + billing::rfc3339(*until) + "\">" +
                                            billing::rfc3339(*until) + "</time>.</p>"
                       : *until > 0   ? "<p id=\"access\">Paid access ended on " + billing::rfc3339(*until) + ". <a href=\"/pricing\">Renew</a>.</p>"
                                      : "<p id=\"access\">No paid access: the free questions are open. <a href=\"/pricing\">Pricing</a>.</p>";
  if (req.param("paid")) access += "<p class=\"muted\">Thank you: access starts as soon as the provider confirms the payment (usually seconds).</p>";
  std::string body = "<h1>Settings</h1>" + (message.empty() ? "" : "<p role=\"status\" id=\"settings-message\">" + e(message) + "</p>") +
                     "<h2>Access</h2>" + access + "<p>Account: " + e(v.email) + (v.email_verified_at ? " (verified)</p>" :
                     " (not verified yet)</p><form method=\"post\" class=\"calc\">" + views::csrf_field(v.csrf) +
                     "<input type=\"hidden\" name=\"action\" value=\"verify\"><button type=\"submit\" id=\"resend-verification\">"
                     "Send a new verification link</button></form>") +
                     "<h2>Review schedule</h2><form method=\"post\" class=\"calc\">" + views::csrf_field(v.csrf) +
                     "<input type=\"hidden\" name=\"action\" value=\"retention\"><div class=\"field\"><label for=\"retention\">Desired retention</label>"
                     "<input id=\"retention\" name=\"retention\" value=\"" + calc::format_significant(v.retention, 3) +
                     "\" inputmode=\"decimal\"><span class=\"hint\">0.70 to 0.97; higher means more frequent reviews</span></div>"
                     "<div class=\"field\"><button type=\"submit\">Save</button></div></form>"
                     "<form method=\"post\" class=\"calc\">" + views::csrf_field(v.csrf) +
                     "<input type=\"hidden\" name=\"action\" value=\"new-per-day\"><div class=\"field\"><label for=\"new-per-day\">New questions a day</label>"
                     "<input id=\"new-per-day\" name=\"new_per_day\" value=\"" + std::to_string(v.new_per_day) +
                     "\" inputmode=\"numeric\" aria-describedby=\"new-per-day-hint\"><span class=\"hint\" id=\"new-per-day-hint\">0 to " +
                     std::to_string(practice::kMaxNewPerDay) + "; how many questions you have not graded yet the review page offers each day "
                     "(days start at midnight UTC). Questions you grade on their own page count too.</span></div>"
                     "<div class=\"field\"><button type=\"submit\">Save</button></div></form>"
                     "<h2>Password</h2><form method=\"post\" class=\"calc\">" + views::csrf_field(v.csrf) +
                     "<input type=\"hidden\" name=\"action\" value=\"password\"><div class=\"field\"><label for=\"cur\">Current password</label>"
                     "<input id=\"cur\" name=\"current\" type=\"password\" autocomplete=\"current-password\"></div><div class=\"field\"><label for=\"new\">New password</label>"
                     "<input id=\"new\" name=\"new\" type=\"password\" autocomplete=\"new-password\"></div><div class=\"field\"><button type=\"submit\">Change</button></div></form>"
                     "<h2>Delete the account</h2><p>Deletes your reviews, notes, bookmarks, drills and readiness history.</p><form method=\"post\" class=\"calc\">" +
                     views::csrf_field(v.csrf) + "<input type=\"hidden\" name=\"action\" value=\"delete\"><div class=\"field\"><label for=\"del\">Password</label>"
                     "<input id=\"del\" name=\"current\" type=\"password\" autocomplete=\"current-password\"></div><div class=\"field\"><button type=\"submit\">Delete everything</button></div></form>"
                     "<h2>Sign out</h2><form method=\"post\" action=\"/signout\">" + views::csrf_field(v.csrf) + "<button type=\"submit\">Sign out</button></form>";
  Response r;
  r.body = layout(site, "Settings", "Account settings", body);
  r.set("Cache-Control", "no-store");
  return r;
}

}  // namespace ridge::web
