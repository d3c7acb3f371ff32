#include "web/routes/rehearse_routes.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "bank/loader.h"
#include "calc/derivation.h"
#include "web/log.h"
#include "web/routes/response.h"
#include "web/services/rehearsal.h"

namespace ridge::web::routes {

namespace rh = services::rehearsal;
using Json = nlohmann::json;

namespace {

std::string esc(std::string_view s) { return calc::html_escape(s); }

std::string fixed(double v, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string minutes_text(int64_t seconds) {
  return std::to_string(seconds / 60) + " min " + std::to_string(seconds % 60) + " s";
}

// The rehearsal `id` of the visitor, with its plan; the refusal when there is none.
struct Loaded {
  store::Rehearsal r;
  rh::Plan plan;
};
std::optional<Response> load(const Request& req, const Context& ctx, int64_t user_id, const std::string& id_text, Loaded& out) {
  char* end = nullptr;
  const long long id = std::strtoll(id_text.c_str(), &end, 10);
  if (id_text.empty() || *end != '\0' || id <= 0) return error(req, ctx, 404, "There is no rehearsal " + id_text + ".");
  auto got = ctx.store()->get_rehearsal(user_id, id);
  if (!got.ok()) throw StoreUnavailable("get_rehearsal: " + got.error().detail);
  // Another account's rehearsal reads as none: its existence is not revealed.
  if (!got->has_value()) return error(req, ctx, 404, "There is no rehearsal " + id_text + " in your account.");
  auto plan = rh::plan_from_json(Json::parse((*got)->plan_json, nullptr, false));
  if (!plan) return error(req, ctx, 500, "This rehearsal's plan could not be read.");
  out.r = std::move(**got);
  out.plan = std::move(*plan);
  return std::nullopt;
}

// The first round not yet scored; rounds.size() when all are.
size_t current_round(const Loaded& l) {
  for (size_t i = 0; i < l.plan.rounds.size(); ++i) {
    if (i >= l.r.rounds.size() || l.r.rounds[i].scored_at == 0) return i;
  }
  return l.plan.rounds.size();
}

std::string expiry_line(const store::Rehearsal& r, int64_t now) {
  if (r.finished_at) return "";
  if (now >= r.expires_at) {
    return "<p class=\"warning\" id=\"expired\">This rehearsal expired (an open rehearsal closes 48 hours after it starts); its "
           "report shows what was done. Start a new one to go on.</p>";
  }
  return "<p class=\"muted\" id=\"expiry\">An open rehearsal expires 48 hours after it starts; this one in " +
         std::to_string((r.expires_at - now + 3599) / 3600) + " h.</p>";
}

std::string rubric_form(const std::string& csrf, int64_t id, size_t round) {
  std::string h = "<form method=\"post\" action=\"/rehearsals/" + std::to_string(id) +
                  "\" id=\"rubric\"><input type=\"hidden\" name=\"csrf\" value=\"" + esc(csrf) +
                  "\"><input type=\"hidden\" name=\"action\" value=\"score\"><input type=\"hidden\" name=\"round\" value=\"" +
                  std::to_string(round) + "\"><h2>Score yourself</h2>";
  static const char* const kFields[4] = {"d", "p", "c", "n"};
  for (size_t l = 0; l < 4; ++l) {
    h += "<fieldset class=\"rubric-line\"><legend>" + esc(rh::kRubricLines[l]) + "</legend>";
    for (int level = 1; level <= 4; ++level) {
      h += "<label><input type=\"radio\" name=\"" + std::string(kFields[l]) + "\" value=\"" + std::to_string(level) + "\"" +
           (level == 1 ? " required" : "") + "> " + std::to_string(level) + ": " + esc(rh::level_description(l, level)) +
           "</label><br>";
    }
    h += "</fieldset>";
  }
  return h + "<p><button type=\"submit\">Submit scores</button></p></form>";
}

// Design rounds (issue 35): the challenge this round is graded against, the fields to answer
// with, and the scoring rule.
std::string design_round_html(const Context& ctx, const rh::PlannedRound& p) {
  const design::Challenge* c = rh::design_challenge_for(p, ctx.design->challenges());
  if (c == nullptr) return "";
  std::string fields;
  for (const design::FieldSpec* spec : services::DesignService::open_fields(*c)) {
    fields += (fields.empty() ? "" : ", ") + std::string("<code>") + esc(spec->name) + "</code>";
  }
  std::string h = "<div class=\"card\" id=\"design-challenge\"><p>This round is graded by the design grader against the challenge <a "
                  "href=\"/design/" + esc(c->id) + "\">" + esc(c->title) + "</a>. Write your design in your answer as one <code>field "
                  "= value</code> line per field (" + fields + "); other lines are your notes.</p>";
  h += "<details><summary>The challenge's scenario and objectives</summary><p>" + esc(c->scenario) + "</p><ul>";
  for (const auto& o : c->objectives) {
    h += "<li><code>" + esc(o.metric) + "</code> " + (o.at_most ? "&le; " : "&ge; ") + esc(std::to_string(o.target)) + "</li>";
  }
  return h + "</ul></details><p class=\"muted\">" + esc(rh::kDesignScoreRule) + "</p></div>";
}

std::string round_html(const Context& ctx, const Loaded& l, size_t i, int shown, const std::string& csrf, bool paid, int64_t now) {
  const rh::PlannedRound& p = l.plan.rounds[i];
  const store::RehearsalRound& s = l.r.rounds.at(i);
  const bank::Question* q = ctx.bank.find(p.slug);
  std::string h = "<h1>Rehearsal: " + esc(l.plan.title) + "</h1>" + expiry_line(l.r, now);
  h += "<p class=\"muted\">Round " + std::to_string(i + 1) + " of " + std::to_string(l.plan.rounds.size()) + "</p>";
  if (!l.plan.note.empty()) h += "<p class=\"note\" id=\"plan-note\">" + esc(l.plan.note) + "</p>";
  h += "<section class=\"card\" id=\"round\" data-kind=\"" + std::string(rh::kind_name(p.kind)) + "\"><h2>" + esc(p.name) +
       " <span class=\"tag\">" + esc(rh::kind_name(p.kind)) + "</span></h2>";
  h += "<p class=\"muted\" id=\"drawn\">" + esc(p.drawn) + ". " + esc(p.length_note) + ".</p>";
  if (!q) return h + "<p>This round's question is no longer in the bank.</p></section>";
  // Work it (issue 34): a numeric round with a seed is its exercise, graded by the engine.
  std::optional<practice::Exercise> ex;
  if (p.kind == rh::Kind::kNumeric && p.work_seed != 0 && ctx.work != nullptr) {
    if (auto made = ctx.work->exercise_for(p.slug, p.work_seed); made.ok()) ex = std::move(made).value();
  }
  rh::RoundContent c = ex ? rh::numeric_round(*q, *ex) : rh::round_content(*q, p.kind);
  // Issue 35: a design round is graded by the design grader (its stand-in note no longer applies).
  const bool graded_design = p.kind == rh::Kind::kDesign && ctx.design != nullptr && !ctx.design->challenges().empty();
  if (!c.note.empty() && !graded_design) h += "<p class=\"note\" id=\"kind-note\">" + esc(c.note) + "</p>";
  if (graded_design) h += design_round_html(ctx, p);
  h += "<h3 id=\"prompt-title\">" + esc(c.title) + "</h3><p id=\"prompt\">" + esc(c.prompt) + "</p>";
  if (!c.steps.empty()) {
    h += "<ol id=\"work-steps\">";
    for (const auto& [ref, label] : c.steps) h += "<li><code>" + esc(ref) + "</code>: " + esc(label) + "</li>";
    h += "</ol>";
  }
  if (!c.lab.empty()) {
    h += "<p id=\"lab\">Build <code>lab/" + esc(c.lab) + "</code> and test your implementation with <code>" + esc(c.test_command) +
         "</code>.</p>";
  }
  // The round's clock starts when the previous round was scored (or the rehearsal started).
  int64_t start = l.r.started_at;
  if (i > 0 && i - 1 < l.r.rounds.size() && l.r.rounds[i - 1].scored_at) start = l.r.rounds[i - 1].scored_at;
  const int64_t deadline = start + int64_t{p.minutes} * 60;
  h += "<p id=\"deadline\" data-deadline=\"" + std::to_string(deadline) + "\">" + std::to_string(p.minutes) +
       " minutes for this round. <strong id=\"countdown\" aria-live=\"polite\"></strong></p>";
  const bool open = l.r.finished_at == 0 && now < l.r.expires_at;
  // A Work it round's box starts with one "NAME = " line per step, the form the grader reads.
  std::string answer_text = s.answer;
  if (answer_text.empty() && s.answered_at == 0) {
    for (const auto& step : c.steps) answer_text += step.first + " = \n";
  }
  h += "<form method=\"post\" action=\"/rehearsals/" + std::to_string(l.r.id) + "\" id=\"answer-form\"><input type=\"hidden\" "
       "name=\"csrf\" value=\"" + esc(csrf) + "\"><input type=\"hidden\" name=\"action\" value=\"answer\"><input type=\"hidden\" "
       "name=\"round\" value=\"" + std::to_string(i) + "\"><label for=\"answer\">Your answer or notes (kept, private, at most 20,000 "
       "bytes)</label><br><textarea id=\"answer\" name=\"answer\" rows=\"10\" cols=\"80\" maxlength=\"20000\">" + esc(answer_text) +
       "</textarea><br>" + (open ? "<button type=\"submit\">" + std::string(s.answered_at ? "Update answer" : "Submit answer") +
                                     "</button>" : "") + "</form></section>";
  if (s.answered_at == 0) return h;
  // The interviewer's ladder: one follow-up at a time, then the worked answer and the rubric.
  const int total = static_cast<int>(c.follow_ups.size());
  shown = std::clamp(shown, 1, std::max(total, 1));
  if (total > 0) {
    h += "<section class=\"card\" id=\"follow-ups\"><h2>Follow-ups</h2><ol>";
    for (int k = 0; k < shown && k < total; ++k) h += "<li class=\"follow-up\">" + esc(c.follow_ups[static_cast<size_t>(k)]) + "</li>";
    h += "</ol>";
    if (shown < total) {
      h += "<p><a id=\"next-follow-up\" href=\"/rehearsals/" + std::to_string(l.r.id) + "?f=" + std::to_string(shown + 1) +
           "\">Next follow-up</a></p></section>";
      return h;
    }
    h += "</section>";
  }
  h += "<section class=\"card\" id=\"worked\"><h2>The worked answer</h2>";
  if (q->free || paid) {
    h += answer_html(ctx, *q);  // md4c's: the program's own HTML
  } else {
    h += "<p class=\"tldr\">" + esc(q->tldr()) + "</p><p>The full worked answer comes with <a href=\"/pricing\">access</a>.</p>";
  }
  h += "</section>";
  if (ex) {
    // The engine's grade of the steps, and the score it gives the numbers-right line.
    const rh::NumericGrade g = rh::grade_numeric(*ex, s.answer, *ctx.work);
    h += "<section class=\"card\" id=\"engine-grade\" data-score=\"" + std::to_string(g.score) + "\"><h2>The engine's grade</h2><ul>";
    for (const auto& st : g.steps) {
      char value[40];
      std::snprintf(value, sizeof value, "%.17g", st.value);  // exact, in the step's base unit
      h += std::string("<li class=\"work-grade ") + (st.correct ? "right\"" : "wrong\"") + " data-value=\"" + value + "\">" +
           (st.correct ? "Right" : "Wrong") + ": <code>" + esc(st.ref) + "</code> " +
           (st.given.empty() ? std::string("not answered") : "you wrote " + esc(st.given)) +
           (st.unreadable.empty() ? "" : " (could not be read: " + esc(st.unreadable) + ")") + "; the engine has " + esc(st.expected) +
           "." + (st.misconception.empty() ? "" : " That is the mistake <strong>" + esc(st.misconception) + "</strong>.") + "</li>";
    }
    h += "</ul><p>" + std::to_string(g.right) + " of " + std::to_string(g.steps.size()) + " steps right: numbers right scores <strong>" +
         std::to_string(g.score) + "</strong> (" + esc(rh::kNumericScoreRule) + " It replaces your own score on that line.)</p></section>";
  }
  if (open) h += rubric_form(csrf, l.r.id, i);
  return h;
}

std::string report_html(const Context& ctx, const Loaded& l, const rh::Report& rep, int64_t now) {
  std::string h = "<h1>Rehearsal report: " + esc(l.plan.title) + "</h1>" + expiry_line(l.r, now);
  h += "<p id=\"recommendation\" data-recommendation=\"" + esc(rep.recommendation) + "\">Recommendation: <strong>" +
       esc(rep.recommendation) + "</strong> (mean " + fixed(rep.mean, 2) + " over " + std::to_string(rep.scored) + " of " +
       std::to_string(rep.rounds.size()) + " rounds scored, " + std::to_string(rep.ones) + " lines at 1)</p>";
  h += "<p class=\"muted\" id=\"rule\">" + esc(rh::kRecommendationRule) + "</p>";
  if (!l.plan.note.empty()) h += "<p class=\"note\" id=\"plan-note\">" + esc(l.plan.note) + "</p>";
  h += "<table id=\"report-rounds\"><thead><tr><th>Round</th><th>Question</th>";
  for (auto line : rh::kRubricLines) h += "<th>" + esc(line) + "</th>";
  h += "<th>Time used</th><th>Missed</th></tr></thead><tbody>";
  for (const auto& r : rep.rounds) {
    h += "<tr class=\"report-round\"><td>" + esc(r.name) + " <span class=\"tag\">" + esc(r.kind) + "</span></td><td><a href=\"/q/" +
         esc(r.slug) + "\">" + esc(r.title) + "</a></td>";
    for (size_t k = 0; k < 4; ++k) h += "<td>" + (r.scores ? std::to_string((*r.scores)[k]) : std::string("-")) + "</td>";
    h += "<td>" + minutes_text(r.seconds_used) + " of " + std::to_string(r.minutes) + " min</td><td><ul>";
    for (const auto& m : r.missed) h += "<li>" + esc(m) + "</li>";
    h += "</ul></td></tr>";
  }
  h += "</tbody></table><h2>To review</h2><p>Rounds scored under 3 on average go back into your <a href=\"/review\">review "
       "queue</a> (graded Again or Hard in FSRS).</p><ul id=\"review-questions\">";
  for (const auto& slug : rep.review_slugs) {
    const bank::Question* q = ctx.bank.find(slug);
    h += "<li><a href=\"/q/" + esc(slug) + "\">" + esc(q ? q->title : slug) + "</a></li>";
  }
  h += "</ul><ul id=\"review-concepts\">";
  for (const auto& id : rep.review_concepts) {
    auto it = ctx.bank.concepts.find(id);
    h += "<li><a href=\"/concepts/" + esc(id) + "\">" + esc(it == ctx.bank.concepts.end() ? id : it->second.title) + "</a></li>";
  }
  return h + "</ul>";
}

// The store's rehearsal, the plan and the candidate's history, then 303 to round 1.
Response start(const Request& req, const Context& ctx, bool company, const std::string& id) {
  if (!ctx.store()) return error(req, ctx, 503, "No database is configured.");
  services::Visitor v = visitor(req, ctx);
  if (v.user_id == 0) return redirect("/signin?next=/rehearse?" + std::string(company ? "company=" : "track=") + id);
  Form form;
  if (auto refused = read_post_form(req, v, form)) return *refused;
  auto cards = ctx.store()->cards(v.user_id);
  auto reviews = ctx.store()->reviews(v.user_id);
  if (!cards.ok() || !reviews.ok()) return store_unavailable(req, ctx, "rehearsal history");
  const rh::History history = rh::history_of(*cards, *reviews);
  const uint64_t seed = ctx.options.random->next_u64();
  // Work it (issue 34): numeric rounds draw workable questions, graded by the engine.
  rh::Workable workable;
  if (ctx.work != nullptr) workable = [&ctx](const std::string& slug) { return ctx.work->workable(slug); };
  auto plan = company ? rh::plan_company(ctx.bank, id, history, seed, workable) : rh::plan_track(ctx.bank, id, history, seed, workable);
  if (!plan) return failure(req, ctx, plan.error());
  store::Rehearsal r;
  r.source = plan->source;
  r.plan_json = rh::plan_json(*plan).dump();
  r.started_at = ctx.now();
  r.expires_at = r.started_at + rh::kExpirySeconds;
  auto created = ctx.store()->create_rehearsal(v.user_id, r, static_cast<int>(plan->rounds.size()));
  if (!created.ok()) throw StoreUnavailable("create_rehearsal: " + created.error().detail);
  return redirect("/rehearsals/" + std::to_string(*created));
}

// Closes a rehearsal whose rounds are all scored, once, and puts the weak rounds' questions
// into FSRS (only the call that closed it grades them: a resent form grades nothing twice).
void finish_if_done(const Context& ctx, const services::Visitor& v, const Loaded& l) {
  if (l.r.finished_at || current_round(l) < l.plan.rounds.size()) return;
  rh::Report rep = rh::build_report(ctx.bank, l.plan, l.r, ctx.now());
  auto closed = ctx.store()->finish_rehearsal(v.user_id, l.r.id, rh::report_json(rep).dump(), ctx.now());
  if (!closed.ok()) throw StoreUnavailable("finish_rehearsal: " + closed.error().detail);
  if (!*closed || !ctx.reviews) return;
  for (const auto& round : rep.rounds) {
    if (std::find(rep.review_slugs.begin(), rep.review_slugs.end(), round.slug) == rep.review_slugs.end() || !round.scores) continue;
    int sum = 0;
    for (int s : *round.scores) sum += s;
    // A mean under 2 is Again (1), under 3 Hard (2): FSRS brings it back soon.
    auto graded = ctx.reviews->grade(v.user_id, v.retention, round.slug, sum < 8 ? 1 : 2);
    if (!graded) log::error("rehearsal review not recorded for " + round.slug + ": " + graded.error().message());
  }
}

}  // namespace

Response rehearse_start(const Request& req, const Context& ctx) {
  services::Visitor v = visitor(req, ctx);
  const std::string company = req.param("company").value_or(""), track = req.param("track").value_or("");
  const bool is_company = !company.empty();
  const std::string id = is_company ? company : track;
  std::string title, action;
  if (is_company) {
    auto it = ctx.bank.companies.find(company);
    if (it == ctx.bank.companies.end()) return error(req, ctx, 404, "There is no company page '" + company + "'.");
    title = it->second.name + "'s reported loop";
    action = "/companies/" + company + "/rehearse";
  } else {
    const bank::Track* t = ctx.bank.find_track(track);
    if (!t) return error(req, ctx, 404, "There is no track '" + track + "'.");
    title = "the " + t->name + " track";
    action = "/tracks/" + track + "/rehearse";
  }
  std::string h = "<h1>Rehearse " + esc(title) + "</h1><p>A timed mock loop: each round gives a prompt and a clock, keeps your "
                  "answer, then the interviewer's follow-ups one at a time, the worked answer and a four-line rubric you score "
                  "yourself. The report gives a recommendation by a stated rule and puts weak rounds into your reviews. An open "
                  "rehearsal expires 48 hours after it starts.</p>";
  if (v.user_id == 0) {
    h += "<p><a href=\"/signin?next=/rehearse?" + std::string(is_company ? "company=" : "track=") + esc(id) +
         "\">Sign in</a> to rehearse.</p>";
  } else {
    h += "<form method=\"post\" action=\"" + esc(action) + "\"><input type=\"hidden\" name=\"csrf\" value=\"" + esc(v.csrf) +
         "\"><button type=\"submit\" id=\"start-rehearsal\">Rehearse this loop</button></form>";
  }
  Response r = html(200, layout(ctx.site(), "Rehearse", "A timed mock loop", h));
  r.set("Cache-Control", "no-store");
  return r;
}

Response rehearse_company(const Request& req, const Params& p, const Context& ctx) { return start(req, ctx, true, p.at("id")); }
Response rehearse_track(const Request& req, const Params& p, const Context& ctx) { return start(req, ctx, false, p.at("id")); }

Response rehearsal_page(const Request& req, const Params& p, const Context& ctx) {
  if (!ctx.store()) return error(req, ctx, 503, "No database is configured.");
  services::Visitor v = visitor(req, ctx);
  if (v.user_id == 0) return redirect("/signin?next=/rehearsals/" + p.at("id"));
  Loaded l;
  if (auto refused = load(req, ctx, v.user_id, p.at("id"), l)) return *refused;
  const int64_t now = ctx.now();
  if (req.method == "POST") {
    Form form;
    if (auto refused = read_post_form(req, v, form)) return *refused;
    const std::string action = form_value(form, "action");
    const std::string round_text = form_value(form, "round");
    char* end = nullptr;
    const long round = std::strtol(round_text.c_str(), &end, 10);
    if (round_text.empty() || *end != '\0' || round < 0 || static_cast<size_t>(round) >= l.plan.rounds.size()) {
      return plain_error(400, "round '" + round_text + "' is not a round of this rehearsal; accepted: 0 to " +
                                  std::to_string(l.plan.rounds.size() - 1));
    }
    if (l.r.finished_at) return plain_error(409, "This rehearsal is finished; its report is at /rehearsals/" + p.at("id") + ".");
    if (now >= l.r.expires_at) {
      return plain_error(409, "This rehearsal expired (an open rehearsal closes 48 hours after it starts); start a new one.");
    }
    if (action == "answer") {
      // Only the round in progress takes an answer: the clock of a later round has not started.
      if (static_cast<size_t>(round) != current_round(l)) {
        return plain_error(409, "round " + round_text + " is not the round in progress; accepted: " + std::to_string(current_round(l)));
      }
      const std::string answer = form_value(form, "answer");
      if (answer.size() > rh::kMaxAnswerBytes) {
        return plain_error(413, "answer: " + std::to_string(answer.size()) + " bytes is too long; accepted: at most 20,000 bytes "
                                "of UTF-8 (about 20,000 characters of English, fewer of other scripts)");
      }
      auto kept = ctx.store()->answer_rehearsal_round(v.user_id, l.r.id, static_cast<int>(round), answer, now);
      if (!kept.ok()) throw StoreUnavailable("answer_rehearsal_round: " + kept.error().detail);
    } else if (action == "score") {
      std::string text = form_value(form, "d") + "," + form_value(form, "p") + "," + form_value(form, "c") + "," + form_value(form, "n");
      auto scores = rh::parse_scores(text);
      if (!scores) {
        return plain_error(400, "scores '" + text + "' are not four levels; accepted: d, p, c and n each 1, 2, 3 or 4");
      }
      // The engine's score of the numeric part, where the round's kind has one, replaces the
      // candidate's own on the "numbers right" line.
      if (auto engine = rh::engine_score(l.plan.rounds[static_cast<size_t>(round)], l.r.rounds.at(static_cast<size_t>(round)).answer,
                                         ctx.work, ctx.design)) {
        (*scores)[3] = *engine;
      }
      // A second submission (a resent form) changes nothing: the store counts the first.
      auto scored = ctx.store()->score_rehearsal_round(v.user_id, l.r.id, static_cast<int>(round), rh::format_scores(*scores), now);
      if (!scored.ok()) throw StoreUnavailable("score_rehearsal_round: " + scored.error().detail);
      Loaded after;
      if (auto refused = load(req, ctx, v.user_id, p.at("id"), after)) return *refused;
      finish_if_done(ctx, v, after);
    } else {
      return plain_error(400, "action '" + action + "' is not known; accepted: answer, score");
    }
    return redirect("/rehearsals/" + p.at("id"));
  }
  std::string body;
  const size_t cur = current_round(l);
  if (l.r.finished_at || cur >= l.plan.rounds.size() || now >= l.r.expires_at) {
    body = report_html(ctx, l, rh::build_report(ctx.bank, l.plan, l.r, now), now);
  } else {
    auto until = access_until(ctx, v.user_id);
    if (!until) return store_unavailable(req, ctx, "entitlement lookup failed");
    const int shown = std::atoi(req.param("f").value_or("1").c_str());
    body = round_html(ctx, l, cur, shown, v.csrf, *until > now, now);
  }
  Response r = html(200, layout(ctx.site(), "Rehearsal", "A timed mock loop", body));
  r.set("Cache-Control", "no-store");
  return r;
}

Response api_rehearsal(const Request& req, const Params& p, const Context& ctx) {
  if (!ctx.store()) return json_error(503, {"", "", "no database configured", ""});
  services::Visitor v = visitor(req, ctx);
  if (v.user_id == 0) return json_error(401, {"", "", "sign in to see your rehearsals", ""});
  Loaded l;
  if (auto refused = load(req, ctx, v.user_id, p.at("id"), l)) return *refused;
  const int64_t now = ctx.now();
  Json rounds = Json::array();
  for (size_t i = 0; i < l.plan.rounds.size(); ++i) {
    const auto& pr = l.plan.rounds[i];
    Json round = rh::plan_json(rh::Plan{"", "", "", {pr}})["rounds"][0];
    const store::RehearsalRound* s = i < l.r.rounds.size() ? &l.r.rounds[i] : nullptr;
    round["answered"] = s && s->answered_at != 0;
    round["scored"] = s && s->scored_at != 0;
    rounds.push_back(std::move(round));
  }
  const bool expired = l.r.finished_at == 0 && now >= l.r.expires_at;
  Json out = {{"id", l.r.id},
              {"source", l.r.source},
              {"title", l.plan.title},
              {"started_at", l.r.started_at},
              {"expires_at", l.r.expires_at},
              {"finished_at", l.r.finished_at},
              {"state", l.r.finished_at ? "finished" : expired ? "expired" : "open"},
              {"current_round", current_round(l)},
              {"rounds", rounds}};
  if (l.r.finished_at) out["report"] = Json::parse(l.r.report_json, nullptr, false);
  return json(200, out);
}

std::string rehearsals_dashboard_html(const Context& ctx, int64_t user_id) {
  if (!ctx.store()) return "";
  auto list = ctx.store()->rehearsals(user_id);
  if (!list.ok() || list->empty()) return "";
  std::string h = "<h2>Rehearsals</h2><table id=\"rehearsals\"><thead><tr><th>Loop</th><th>Recommendation</th>";
  for (auto line : rh::kRubricLines) h += "<th>" + esc(line) + "</th>";
  h += "</tr></thead><tbody>";
  std::vector<std::array<double, 4>> finished;
  for (const auto& r : *list) {
    auto plan = rh::plan_from_json(Json::parse(r.plan_json, nullptr, false));
    Json rep = r.finished_at ? Json::parse(r.report_json, nullptr, false) : Json();
    h += "<tr><td><a href=\"/rehearsals/" + std::to_string(r.id) + "\">" + esc(plan ? plan->title : r.source) + "</a></td><td>" +
         esc(rep.is_object() ? rep.value("recommendation", "") : (ctx.now() >= r.expires_at ? "expired" : "open")) + "</td>";
    std::array<double, 4> means{};
    for (size_t l = 0; l < 4; ++l) {
      const bool has = rep.is_object() && rep.contains("line_means") && rep["line_means"].contains(std::string(rh::kRubricLines[l]));
      means[l] = has ? rep["line_means"][std::string(rh::kRubricLines[l])].get<double>() : 0;
      h += "<td>" + (has ? fixed(means[l], 2) : std::string("-")) + "</td>";
    }
    if (rep.is_object()) finished.push_back(means);
    h += "</tr>";
  }
  // The trend per rubric line: the latest finished rehearsal against the first.
  if (finished.size() >= 2) {
    h += "<tr id=\"rehearsal-trend\"><td>Trend since the first</td><td></td>";
    for (size_t l = 0; l < 4; ++l) {
      const double d = finished.back()[l] - finished.front()[l];
      h += "<td>" + std::string(d >= 0 ? "+" : "") + fixed(d, 2) + "</td>";
    }
    h += "</tr>";
  }
  return h + "</tbody></table>";
}

}  // namespace ridge::web::routes
