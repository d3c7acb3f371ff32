#include "web/routes/work_routes.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "calc/derivation.h"
#include "practice/misconceptions.h"
#include "web/routes/response.h"

namespace ridge::web::routes {
namespace {

using Json = nlohmann::json;
using calc::html_escape;

// The paid rules of routes/context.cc for a signed-in visitor: a paid question needs access.
std::optional<Response> refuse_paid(const Request& req, const Context& ctx, const services::Visitor& v, const bank::Question& q) {
  if (q.free) return std::nullopt;
  auto until = access_until(ctx, v.user_id);
  if (!until) return store_unavailable(req, ctx, "entitlement lookup failed");
  if (*until <= ctx.now()) return error(req, ctx, 402, "Working this question is part of paid access.");
  return std::nullopt;
}

Json exercise_json(const services::WorkTicket& t) {
  const practice::Exercise& ex = t.exercise;
  Json j{{"slug", ex.slug}, {"seed", std::to_string(ex.seed)}, {"signature", t.signature}, {"prompt", ex.prompt},
         {"tolerance", ex.tolerance}};
  j["inputs"] = Json::array();
  for (const auto& in : ex.inputs) j["inputs"].push_back({{"block", in.block}, {"param", in.param}, {"value", in.drawn}});
  j["steps"] = Json::array();
  for (const auto& s : ex.steps) {
    j["steps"].push_back({{"name", s.ref}, {"label", s.label}, {"unit", std::string(calc::unit_symbol(s.unit))}});
  }
  return j;
}

Json grade_json(const services::WorkGrade& g, const practice::Exercise& ex) {
  const practice::WorkStep& s = ex.steps[g.step];
  Json j{{"step", g.step}, {"name", s.ref}, {"correct", g.grade.correct}, {"value", s.value},
         {"unit", std::string(calc::unit_symbol(s.unit))}, {"given", g.grade.given}, {"finished", g.finished}};
  if (g.grade.misconception != nullptr) {
    j["misconception"] = {{"id", g.grade.misconception->id}, {"title", g.grade.misconception->title},
                          {"concept", "/concepts/" + g.grade.misconception->concept_id}};
  }
  if (g.finished) {
    j["fsrs_grade"] = g.fsrs_grade;
    if (g.scheduled) j["due"] = g.scheduled->due;
  }
  return j;
}

// The derivation of the block a step's result comes from.
const calc::Derivation* step_derivation(const practice::Exercise& ex, size_t step) {
  const std::string& ref = ex.steps[step].ref;
  return ex.chain.find(ref.substr(0, ref.find('.')));
}

std::string work_html(const services::WorkState& state, const Context& ctx, const std::string& csrf, const std::string& note) {
  const practice::Exercise& ex = state.ticket.exercise;
  std::string h = "<main class=\"work\"><h1>Work it</h1>\n<p class=\"work-prompt\">" + html_escape(ex.prompt) + "</p>\n";
  if (!ex.inputs.empty()) {
    h += "<ul class=\"work-inputs\">";
    for (const auto& in : ex.inputs) {
      h += "<li><code>" + html_escape(in.block + "." + in.param) + "</code> = " + html_escape(in.drawn) + "</li>";
    }
    h += "</ul>\n";
  }
  if (!note.empty()) h += "<p class=\"work-note\" role=\"alert\">" + html_escape(note) + "</p>\n";
  h += "<ol class=\"work-steps\">\n";
  for (size_t i = 0; i < ex.steps.size(); ++i) {
    const practice::WorkStep& s = ex.steps[i];
    const store::WorkAttempt* done = nullptr;
    for (const auto& g : state.graded) {
      if (g.step == static_cast<int>(i)) done = &g;
    }
    h += "<li class=\"work-step\" id=\"step-" + std::to_string(i) + "\"><p>" + html_escape(s.label) +
         (s.unit_hint.empty() ? "" : " <small>(" + html_escape(s.unit_hint) + ")</small>") + "</p>";
    if (done != nullptr) {
      h += std::string("<p class=\"work-grade ") + (done->right ? "right\">Right" : "wrong\">Wrong") + ": you answered " +
           html_escape(done->answer) + "; the engine has " + html_escape(calc::format_quantity(s.value, s.unit)) + ".</p>";
      if (const practice::Misconception* m = practice::find_misconception(done->misconception)) {
        h += "<p class=\"work-misconception\">That is the mistake <strong>" + html_escape(m->title) + "</strong>: see <a href=\"/concepts/" +
             html_escape(m->concept_id) + "\">the concept</a>.</p>";
      }
      if (const calc::Derivation* d = step_derivation(ex, i)) {
        h += "<details><summary>Show this step's derivation</summary>" + calc::render_html(*d) + "</details>";
      }
    } else {
      h += "<form method=\"post\" action=\"/q/" + html_escape(ex.slug) + "/work#step-" + std::to_string(i) + "\">" +
           "<input type=\"hidden\" name=\"csrf\" value=\"" + html_escape(csrf) + "\">" +
           "<input type=\"hidden\" name=\"seed\" value=\"" + std::to_string(ex.seed) + "\">" +
           "<input type=\"hidden\" name=\"sig\" value=\"" + html_escape(state.ticket.signature) + "\">" +
           "<input type=\"hidden\" name=\"step\" value=\"" + std::to_string(i) + "\">" +
           "<label>Your answer <input name=\"answer\" required autocomplete=\"off\"></label> <button>Check</button></form>";
    }
    h += "</li>\n";
  }
  h += "</ol>\n";
  if (state.finished()) {
    h += "<section class=\"work-chain\"><h2>The whole chain for these inputs</h2>";
    for (size_t i = 0; i < ex.chain.derivations.size(); ++i) {
      h += "<h3><code>" + html_escape(ex.chain.ids[i]) + "</code></h3>" + calc::render_html(ex.chain.derivations[i]);
    }
    h += "</section>\n<p><a href=\"/q/" + html_escape(ex.slug) + "/work\">Work it again with new inputs</a></p>\n";
  }
  (void)ctx;
  return h + "<p><a href=\"/q/" + html_escape(ex.slug) + "\">Back to the question</a></p></main>";
}

}  // namespace

Response work_page(const Request& req, const Params& p, const Context& ctx) {
  const std::string& slug = p.at("slug");
  const bank::Question* q = ctx.bank.find(slug);
  if (q == nullptr) return error(req, ctx, 404, "There is no question '" + slug.substr(0, 120) + "'.");
  if (ctx.work == nullptr) return error(req, ctx, 503, "Work it needs the database.");
  services::Visitor v = visitor(req, ctx);
  if (v.user_id == 0) return redirect("/signin?next=/q/" + slug + "/work");
  if (auto refused = refuse_paid(req, ctx, v, *q)) return *refused;
  std::string note;
  std::optional<services::WorkState> state;
  if (req.method == "POST") {
    Form form;
    if (auto refused = read_post_form(req, v, form)) return *refused;
    const std::string seed = form_value(form, "seed"), sig = form_value(form, "sig");
    auto graded = ctx.work->grade(v.user_id, v.retention, slug, seed, sig, form_value(form, "step"), form_value(form, "answer"));
    if (!graded) {
      const auto& f = graded.error();
      // An unreadable answer or a step graded already: the page again, saying why.
      if (f.kind != Failure::Kind::kInvalid && f.kind != Failure::Kind::kConflict) return failure(req, ctx, f);
      if (!f.errors.empty() && f.errors[0].field == "seed") return failure(req, ctx, f);
      note = f.message();
    }
    auto opened = ctx.work->open(v.user_id, slug, seed, sig);
    if (!opened) return failure(req, ctx, opened.error());
    state = std::move(opened).value();
  } else {
    auto started = ctx.work->start(v.user_id, slug);
    if (!started) return failure(req, ctx, started.error());
    state = services::WorkState{std::move(started).value(), {}};
  }
  Response r = html(200, layout(ctx.site(), "Work it: " + q->title, "The question's numbers with new inputs, graded step by step",
                                work_html(*state, ctx, v.csrf, note)));
  r.set("Cache-Control", "no-store");
  return r;
}

std::string work_mistakes_section(const Context& ctx, int64_t user_id) {
  if (ctx.work == nullptr) return "";
  auto mistakes = ctx.work->mistakes(user_id);
  if (!mistakes || mistakes->empty()) return "";
  std::string h = "<section class=\"work-mistakes\"><h2>Mistakes by kind</h2><ul>";
  for (const auto& m : *mistakes) {
    const int64_t days = std::max<int64_t>(0, ctx.now() - m.last_at) / 86400;
    h += "<li><a href=\"/concepts/" + html_escape(m.misconception->concept_id) + "\">" + html_escape(m.misconception->title) +
         "</a>: " + std::to_string(m.count) + (m.count == 1 ? " time" : " times") + ", last " +
         (days == 0 ? std::string("today") : std::to_string(days) + (days == 1 ? " day ago" : " days ago")) +
         " (<a href=\"/q/" + html_escape(m.practice_slug) + "/work\">work it again</a>)</li>";
  }
  return h + "</ul></section>";
}

std::string work_mistake_set_section(const Context& ctx, int64_t user_id) {
  if (ctx.work == nullptr || user_id == 0) return "";
  auto mistakes = ctx.work->mistakes(user_id);
  if (!mistakes || mistakes->empty()) return "";
  const services::MistakeSummary& top = mistakes->front();  // the most frequent (then the latest)
  // The question where the user made it first, then others whose chain it applies to; paid
  // ones only with access (Work it answers 402 otherwise).
  constexpr size_t kSet = 5;
  auto until = access_until(ctx, user_id);
  const bool paid = until && *until > ctx.now();
  std::vector<const bank::Question*> set;
  auto add = [&](const std::string& slug) {
    const bank::Question* q = ctx.bank.find(slug);
    if (q == nullptr || (!q->free && !paid) || set.size() >= kSet || std::find(set.begin(), set.end(), q) != set.end()) return;
    if (ctx.work->workable(slug)) set.push_back(q);
  };
  add(top.practice_slug);
  for (const auto& slug : ctx.work->trains(top.misconception->id, 4 * kSet)) add(slug);
  const int64_t days = std::max<int64_t>(0, ctx.now() - top.last_at) / 86400;
  std::string h = "<section class=\"card work-focus\" id=\"mistake-set\" data-misconception=\"" + html_escape(top.misconception->id) +
                  "\"><h2>A set for your most frequent mistake</h2><p>Your most frequent named mistake in Work it: <strong>" +
                  html_escape(top.misconception->title) + "</strong>, " + std::to_string(top.count) +
                  (top.count == 1 ? " time" : " times") + ", last " +
                  (days == 0 ? std::string("today") : std::to_string(days) + (days == 1 ? " day ago" : " days ago")) +
                  " (<a href=\"/concepts/" + html_escape(top.misconception->concept_id) +
                  "\">the concept</a>). These exercises train it, each with new inputs:</p><ul>";
  for (const bank::Question* q : set) {
    h += "<li><a href=\"/q/" + html_escape(q->slug) + "/work\">Work it: " + html_escape(q->title) + "</a></li>";
  }
  return h + "</ul></section>";
}

Response api_work_start(const Request& req, const Params& p, const Context& ctx) {
  if (ctx.work == nullptr) return json_error(503, {"", "", "no database configured", ""});
  services::Visitor v = visitor(req, ctx);
  if (v.user_id == 0) return json_error(401, {"", "", "sign in to work a question", ""});
  if (!csrf_ok(req, v)) return json_error(403, {"csrf", "", "missing or wrong X-CSRF-Token", ""});
  const bank::Question* q = ctx.bank.find(p.at("slug"));
  if (q == nullptr) return json_error(404, {"slug", p.at("slug").substr(0, 120), "no such question", "a question's slug"});
  if (auto refused = refuse_paid(req, ctx, v, *q)) return *refused;
  auto started = ctx.work->start(v.user_id, q->slug);
  if (!started) return failure(req, ctx, started.error());
  return json(200, exercise_json(*started));
}

Response api_work_grade(const Request& req, const Params& p, const Context& ctx) {
  if (ctx.work == nullptr) return json_error(503, {"", "", "no database configured", ""});
  services::Visitor v = visitor(req, ctx);
  if (v.user_id == 0) return json_error(401, {"", "", "sign in to work a question", ""});
  if (!csrf_ok(req, v)) return json_error(403, {"csrf", "", "missing or wrong X-CSRF-Token", ""});
  const bank::Question* q = ctx.bank.find(p.at("slug"));
  if (q == nullptr) return json_error(404, {"slug", p.at("slug").substr(0, 120), "no such question", "a question's slug"});
  if (auto refused = refuse_paid(req, ctx, v, *q)) return *refused;
  Json body = Json::parse(req.body, nullptr, false);
  if (!body.is_object() || !body["signature"].is_string() || !body["answer"].is_string() ||
      !(body["step"].is_number_unsigned() || body["step"].is_string())) {
    return json_error(400, {"body", "", "expected {\"signature\": \"...\", \"step\": 0, \"answer\": \"...\"}", ""});
  }
  const std::string step = body["step"].is_string() ? body["step"].get<std::string>() : std::to_string(body["step"].get<uint64_t>());
  auto graded = ctx.work->grade(v.user_id, v.retention, q->slug, p.at("seed"), body["signature"], step, body["answer"]);
  if (!graded) return failure(req, ctx, graded.error());
  // The exercise again for the step's value (the grade checked the signature already).
  auto state = ctx.work->open(v.user_id, q->slug, p.at("seed"), body["signature"]);
  if (!state) return failure(req, ctx, state.error());
  return json(200, grade_json(*graded, state->ticket.exercise));
}

}  // namespace ridge::web::routes
