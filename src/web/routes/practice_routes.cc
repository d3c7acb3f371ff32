#include "web/routes/practice_routes.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <optional>

#include <nlohmann/json.hpp>

#include "practice/card_state.h"
#include "web/log.h"
#include "web/routes/rehearse_routes.h"
#include "web/routes/response.h"
#include "web/routes/work_routes.h"
#include "web/views/practice_views.h"

namespace ridge::web::routes {

using Json = nlohmann::json;

Response api_review(const Request& req, const Context& ctx) {
  if (!ctx.store()) return json_error(503, {"", "", "no database configured", ""});
  services::Visitor v = visitor(req, ctx);
  if (v.user_id == 0) return json_error(401, {"", "", "sign in to save reviews", ""});
  if (!csrf_ok(req, v)) return json_error(403, {"csrf", "", "missing or wrong X-CSRF-Token", ""});
  Json body = Json::parse(req.body, nullptr, false);
  if (!body.is_object() || !body["slug"].is_string() || !body["grade"].is_number_integer()) {
    return json_error(400, {"body", "", "expected {\"slug\": \"...\", \"grade\": 1..4}", ""});
  }
  auto graded = ctx.reviews->grade(v.user_id, v.retention, body["slug"], body["grade"].get<int>());
  if (!graded) return failure(req, ctx, graded.error());
  return json(200, views::graded_card_json(*graded));
}

Response api_due(const Request& req, const Context& ctx) {
  services::Visitor v = visitor(req, ctx);
  if (v.user_id == 0) return json_error(401, {"", "", "sign in to see your reviews", ""});
  auto cards = ctx.store()->cards(v.user_id);
  if (!cards.ok()) return failure(req, ctx, cards.error());
  // ?all=1 lists every card with its state (new, due, seen, mastered) and the bookmarks, for
  // the lists' marks and filters; without it, only what is due.
  bool all = req.param("all").value_or("") == "1";
  const int64_t now = ctx.now();
  Json due = Json::array();
  for (const auto& c : *cards) {
    if (!all && c.due > now) continue;
    const bank::Question* q = ctx.bank.find(c.slug);
    due.push_back({{"slug", c.slug}, {"title", q ? q->title : c.slug}, {"due", c.due}, {"stability", c.stability},
                   {"state", practice::state_name(practice::card_state(&c, now))}});
  }
  Json out = {{"due", due}, {"now", now}};
  if (all) {
    auto marks = ctx.store()->bookmarks(v.user_id);
    if (!marks.ok()) return failure(req, ctx, marks.error());
    out["bookmarks"] = *marks;
    out["mastered_stability_days"] = practice::kMasteredStabilityDays;
  }
  return json(200, out);
}

Response api_progress(const Request& req, const Context& ctx) {
  services::Visitor v = visitor(req, ctx);
  if (v.user_id == 0) return json_error(401, {"", "", "sign in to see your progress", ""});
  return json(200, views::progress_json(ctx.reviews->progress(v.user_id, v.retention)));
}

Response api_bookmark(const Request& req, const Context& ctx) {
  services::Visitor v = visitor(req, ctx);
  if (v.user_id == 0) return json_error(401, {"", "", "sign in to bookmark", ""});
  if (!csrf_ok(req, v)) return json_error(403, {"csrf", "", "missing or wrong X-CSRF-Token", ""});
  Json body = Json::parse(req.body, nullptr, false);
  if (!body.is_object() || !body["slug"].is_string() || !body["on"].is_boolean()) {
    return json_error(400, {"body", "", "expected {\"slug\": \"...\", \"on\": true|false}", ""});
  }
  if (!ctx.bank.find(body["slug"].get<std::string>())) return json_error(400, {"slug", body["slug"], "is not a question", "a slug from /api/questions"});
  auto r = ctx.store()->set_bookmark(v.user_id, body["slug"], body["on"], ctx.now());
  if (!r.ok()) throw StoreUnavailable("set_bookmark: " + r.error().detail);
  auto marks = ctx.store()->bookmarks(v.user_id);
  if (!marks.ok()) throw StoreUnavailable("bookmarks: " + marks.error().detail);
  return json(200, Json{{"bookmarks", *marks}});
}

Response api_note(const Request& req, const Params& p, const Context& ctx) {
  services::Visitor v = visitor(req, ctx);
  if (v.user_id == 0) return json_error(401, {"", "", "sign in to keep notes", ""});
  const std::string& slug = p.at("slug");
  if (!ctx.bank.find(slug)) return json_error(404, {"slug", slug, "is not a question", "a slug from /api/questions"});
  if (req.method == "PUT") {
    if (!csrf_ok(req, v)) return json_error(403, {"csrf", "", "missing or wrong X-CSRF-Token", ""});
    Json body = Json::parse(req.body, nullptr, false);
    if (!body.is_object() || !body["body"].is_string()) return json_error(400, {"body", "", "expected {\"body\": \"...\"}", ""});
    std::string text = body["body"];
    if (text.size() > 20000) return json_error(413, {"body", "", "a note holds at most 20,000 bytes of UTF-8 (about 20,000 characters of English, fewer of other scripts)", "at most 20,000 bytes"});
    auto r = ctx.store()->put_note(v.user_id, slug, text, ctx.now());
    if (!r.ok()) throw StoreUnavailable("put_note: " + r.error().detail);
  }
  auto note = ctx.store()->get_note(v.user_id, slug);
  if (!note.ok()) throw StoreUnavailable("get_note: " + note.error().detail);
  return json(200, Json{{"slug", slug}, {"body", note->value_or("")}});
}

Response review_page(const Request& req, const Context& ctx) {
  services::Visitor v = visitor(req, ctx);
  if (v.user_id == 0) return redirect("/signin?next=/review");
  if (req.method == "POST") {
    Form form;
    if (auto refused = read_post_form(req, v, form)) return *refused;
    int g = std::atoi(form_value(form, "grade").c_str());
    auto graded = ctx.reviews->grade(v.user_id, v.retention, form_value(form, "slug"), g);
    if (!graded) {
      const auto& f = graded.error();
      return f.kind == Failure::Kind::kUnavailable ? failure(req, ctx, f) : plain_error(400, f.message());
    }
    return redirect("/review");
  }
  auto until = access_until(ctx, v.user_id);
  if (!until) return store_unavailable(req, ctx, "entitlement lookup failed");
  auto queue = ctx.reviews->queue(v.user_id, v.new_per_day, *until > ctx.now());
  if (!queue) return failure(req, ctx, queue.error());
  Response r = html(200, layout(ctx.site(), "Reviews", "Questions due for review", views::review_page({v.csrf, std::move(queue).value()})));
  r.set("Cache-Control", "no-store");
  return r;
}

Response dashboard(const Request& req, const Context& ctx) {
  services::Visitor v = visitor(req, ctx);
  if (v.user_id == 0) return redirect("/signin?next=/dashboard");
  services::Progress progress = ctx.reviews->progress(v.user_id, v.retention);
  views::DashboardView view;
  view.email = v.email;
  // Counts with their denominators (issue 33 item 10: "Seen 12" said nothing of how many).
  // A track's counts are the sum of its topics' (ReviewService::progress), so is its total.
  std::map<std::string, int> per_topic;
  for (const auto& q : ctx.bank.questions) ++per_topic[q.topic];
  for (const auto& t : ctx.bank.tracks) {
    int total = 0;
    for (const auto& [topic, weight] : t.weights) total += per_topic[topic];
    view.tracks.push_back({t.id, t.name, progress.tracks[t.id], total});
  }
  for (const auto& t : ctx.bank.topics) view.topics.push_back({t.id, t.name, progress.topics[t.id], per_topic[t.id]});
  // The lists are extras: a failed read leaves one empty rather than failing the page.
  if (auto marks = ctx.store()->bookmarks(v.user_id); marks.ok()) {
    for (const auto& slug : *marks) {
      if (const bank::Question* q = ctx.bank.find(slug)) view.bookmarks.push_back({slug, q->title});
    }
  }
  if (auto history = ctx.store()->readiness_history(v.user_id); history.ok()) {
    for (const auto& r : *history) {
      const bank::Track* track = ctx.bank.find_track(r.track);
      view.readiness.push_back({track ? track->name : r.track, r.score, r.finished_at});
    }
  }
  std::string body = views::dashboard_page(view);
  // Work it (issue 34): the named mistakes, before the page's end.
  const std::string mistakes = work_mistakes_section(ctx, v.user_id);
  if (size_t end = body.rfind("</main>"); !mistakes.empty()) body.insert(end == std::string::npos ? body.size() : end, mistakes);
  // Mock loops (issue 36): past rehearsals with the trend per rubric line.
  Response r = html(200, layout(ctx.site(), "Progress", "Your progress", body + rehearsals_dashboard_html(ctx, v.user_id)));
  r.set("Cache-Control", "no-store");
  return r;
}

Response drill(const Request& req, const Context& ctx) {
  services::Visitor v = visitor(req, ctx);
  Form form = req.query;
  if (req.method == "POST") {
    if (auto refused = read_post_form(req, v, form)) return *refused;
  }
  views::DrillView view;
  view.topic = form_value(form, "topic");
  auto drill = ctx.drills.generate(view.topic, form_value(form, "seed"), form_value(form, "template"));
  if (!drill) return failure(req, ctx, drill.error());
  for (const auto& id : services::DrillService::topics()) {
    const bank::Topic* t = ctx.bank.find_topic(id);
    view.topics.push_back({id, t ? t->name : id});
  }
  const bank::Topic* shown = ctx.bank.find_topic(drill->topic);
  view.shown_topic = shown ? shown->name : drill->topic;
  view.drill = &*drill;
  view.answer = form_value(form, "answer");
  view.signed_in = v.user_id != 0;
  view.csrf = v.csrf;
  if (!view.answer.empty()) {
    view.check = ctx.drills.check(*drill, view.answer, v.user_id, req.method == "POST");
    if (view.check->recorded == services::DrillCheck::Recorded::kFailed) log::error("drill not recorded: " + view.check->store_error);
  }
  std::string body = views::drill_page(view);
  // Work it (issue 34): a set aimed at the user's most frequent named mistake, under the title.
  if (std::string set = work_mistake_set_section(ctx, v.user_id); !set.empty()) {
    const size_t at = body.find("</h1>");
    body.insert(at == std::string::npos ? 0 : at + 5, set);
  }
  Response r = html(200, layout(ctx.site(), "Drill", "A numeric drill from the engine", body));
  r.set("Cache-Control", "no-store");
  return r;
}

Response readiness(const Request& req, const Context& ctx) {
  services::Visitor v = visitor(req, ctx);
  if (v.user_id == 0) return redirect("/signin?next=/readiness");
  Form form;
  if (req.method == "POST") {
    if (auto refused = read_post_form(req, v, form)) return *refused;
  }
  std::map<std::string, std::string> topic_names;
  for (const auto& t : ctx.bank.topics) topic_names[t.id] = t.name;
  auto check_page = [&](const services::StartedCheck& check) {
    return views::readiness_check_page({check.track->name, &check, v.csrf, ctx.now(), topic_names});
  };
  std::string action = form_value(form, "action"), body;
  if (action == "start") {
    auto check = ctx.readiness->start(v.user_id, form_value(form, "track"));
    if (!check) return failure(req, ctx, check.error());
    body = check_page(*check);
  } else if (action == "finish") {
    auto scored = ctx.readiness->finish(v.user_id, form_value(form, "payload"), form_value(form, "mac"),
                                        [&](int n) { return form_value(form, 'a' + std::to_string(n)); });
    if (!scored) {
      // An altered or malformed check is answered in plain text, as it always was.
      const auto& f = scored.error();
      return f.kind == Failure::Kind::kInvalid ? plain_error(400, f.message()) : failure(req, ctx, f);
    }
    views::ReadinessResultView view{&*scored, {}, {}, topic_names};
    for (size_t i = 0; i < scored->ranked.size() && i < 3; ++i) {
      if (const bank::Topic* t = ctx.bank.find_topic(scored->ranked[i].second)) {
        view.study_next.push_back({t->id, t->name});
        view.study_next_scores.push_back(scored->ranked[i].first);
      }
    }
    body = views::readiness_result_page(view);
  } else {
    // A check in progress comes back with the time it has left (a refresh, a visit later, a
    // restart or another server: it is kept in the store); "abandon" closes it.
    std::optional<services::StartedCheck> open;
    if (action == "abandon") {
      if (auto closed = ctx.readiness->abandon(v.user_id); !closed) return failure(req, ctx, closed.error());
    } else {
      auto resumed = ctx.readiness->resume(v.user_id);
      if (!resumed) return failure(req, ctx, resumed.error());
      open = std::move(resumed).value();
    }
    if (open) {
      body = check_page(*open);
    } else {
      std::vector<views::TrackOption> tracks;
      for (const auto& t : ctx.bank.tracks) tracks.push_back({t.id, t.name});
      body = views::readiness_start_page(tracks, v.csrf);
    }
  }
  Response r = html(200, layout(ctx.site(), "Readiness check", "A timed readiness check", body));
  r.set("Cache-Control", "no-store");
  return r;
}

}  // namespace ridge::web::routes
