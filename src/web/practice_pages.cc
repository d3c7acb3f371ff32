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
    using Kind = services::Failure::Kind;
    // A refusal the user can act on is shown on the page; a store failure is a 503.
    auto shown = [&](const services::Failure& f) -> std::optional<Response> {
      if (f.kind == Kind::kUnavailable) return store_unavailable(req, f.detail);
      if (f.kind == Kind::kInternal) return plain_error(500, f.message());
      message = f.message();
      return std::nullopt;
    };
    if (action == "retention") {
      auto r = accounts_->set_retention(v.user_id, value_of(form, "retention"));
      if (!r) {
        if (auto stop = shown(r.error())) return *stop;
      } else {
        v.retention = *r;
        message = "Desired retention set to " + views::percent(*r) + ".";
      }
    } else if (action == "new-per-day") {
      auto n = accounts_->set_new_per_day(v.user_id, value_of(form, "new_per_day"));
      if (!n) {
        if (auto stop = shown(n.error())) return *stop;
      } else {
        v.new_per_day = *n;
        message = "The review page offers up to " + std::to_string(*n) + " new question" + (*n == 1 ? "" : "s") + " a day.";
      }
    } else if (action == "password") {
      auto done = accounts_->change_password(v.user_id, value_of(form, "current"), value_of(form, "new"));
      if (done) return start_session(v.user_id, false, "/settings");
      if (auto stop = shown(done.error())) return *stop;
    } else if (action == "verify") {
      if (v.email_verified_at == 0) send_account_mail(v.user_id, v.email, false);
      message = "A new verification link is on its way to " + v.email + " (it works once, for 30 minutes).";
    } else if (action == "delete") {
      auto done = accounts_->delete_account(v.user_id, value_of(form, "current"));
      if (done) {
        Response r = redirect("/");
        r.set("Set-Cookie", "ridge_session=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0");
        return r;
      }
      if (auto stop = shown(done.error())) return *stop;
    }
  }
  auto until = access_until(v.user_id);
  if (!until) return store_unavailable(req, "entitlement lookup failed");
  views::SettingsView view{message, *until, now(), req.param("paid").has_value(), v.email, v.email_verified_at != 0, v.csrf, v.retention, v.new_per_day};
  Response r = routes::html(200, layout(site, "Settings", "Account settings", views::settings_page(view)));
  r.set("Cache-Control", "no-store");
  return r;
}

}  // namespace ridge::web
