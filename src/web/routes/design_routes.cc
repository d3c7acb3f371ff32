#include "web/routes/design_routes.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "calc/derivation.h"
#include "web/pages.h"
#include "web/routes/response.h"

namespace ridge::web::routes {
namespace {

using calc::html_escape;
using Json = nlohmann::json;

constexpr const char* kDifficulties[] = {"easy", "medium", "hard", "expert"};
// The most members a JSON submission may have (every kind has fewer fields than this): the
// work per request stays bounded by the challenge, not by what the client sends.
constexpr size_t kMaxJsonMembers = 32;

// 1,234,567 for large figures, three significant digits for small ones.
std::string figure(double v) {
  char buf[64];
  if (!std::isfinite(v)) return "unbounded";
  if (std::fabs(v) >= 1000) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
    std::string s = buf, out;
    const size_t digits = s.size() - (s[0] == '-' ? 1 : 0);
    for (size_t i = 0; i < s.size(); ++i) {
      out += s[i];
      const size_t left = s.size() - 1 - i;
      if (s[i] != '-' && left > 0 && left % 3 == 0 && digits > 3) out += ',';
    }
    return out;
  }
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

std::string objective_line(const design::Objective& o) {
  const std::string unit = design::metric_unit(o.metric);
  return "<code>" + html_escape(o.metric) + "</code> " + (o.at_most ? "&le; " : "&ge; ") + figure(o.target) +
         (unit.empty() ? "" : " " + html_escape(unit));
}

std::string paragraphs(const std::string& text) {
  std::string h;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find("\n\n", at);
    if (end == std::string::npos) end = text.size();
    std::string para = text.substr(at, end - at);
    for (char& ch : para) {
      if (ch == '\n') ch = ' ';
    }
    if (para.find_first_not_of(' ') != std::string::npos) h += "<p>" + html_escape(para) + "</p>";
    at = end + 2;
  }
  return h;
}

// The challenge's open fields as form controls, each filled in from `values` (the candidate's
// last submission, or what they just sent) and blank otherwise: the reference is never shown.
std::string design_form(const design::Challenge& c, const design::Design& values, const services::Visitor& v, int64_t started,
                        bool timer) {
  // The timer stays hidden after a submission when the candidate hid it.
  std::string h = "<form method=\"post\" action=\"/design/" + html_escape(c.id) + (timer ? "" : "?timer=off") + "\" id=\"design-form\" data-challenge=\"" +
                  html_escape(c.id) + "\" class=\"design-form\">";
  if (v.user_id != 0) h += "<input type=\"hidden\" name=\"csrf\" value=\"" + html_escape(v.csrf) + "\">";
  h += "<input type=\"hidden\" name=\"started\" value=\"" + std::to_string(started) + "\">";
  for (const design::FieldSpec* spec : services::DesignService::open_fields(c)) {
    const std::string id = "design-" + spec->name;
    auto given = values.find(spec->name);
    const std::string value = given == values.end() ? "" : given->second;
    h += "<p><label for=\"" + html_escape(id) + "\"><code>" + html_escape(spec->name) + "</code>: " + html_escape(spec->help) +
         "</label><br>";
    if (auto r = c.ranges.find(spec->name); r != c.ranges.end()) {
      h += "<input type=\"number\" id=\"" + html_escape(id) + "\" name=\"" + html_escape(spec->name) + "\" min=\"" +
           figure(r->second.first) + "\" max=\"" + figure(r->second.second) + "\" step=\"1\" value=\"" + html_escape(value) + "\">";
      h += " <small>(" + figure(r->second.first) + " to " + figure(r->second.second) + ")</small>";
    } else {
      h += "<select id=\"" + html_escape(id) + "\" name=\"" + html_escape(spec->name) + "\"><option value=\"\"" +
           (value.empty() ? " selected" : "") + ">choose</option>";
      for (const auto& choice : c.choices.at(spec->name)) {
        h += "<option" + std::string(choice == value ? " selected" : "") + ">" + html_escape(choice) + "</option>";
      }
      h += "</select>";
    }
    h += "</p>";
  }
  if (v.user_id != 0) {
    h += "<p><label><input type=\"checkbox\" name=\"show_name\" value=\"1\"> Show my name on the board</label> "
         "<label for=\"design-board-name\">as</label> <input id=\"design-board-name\" name=\"board_name\" maxlength=\"40\" "
         "placeholder=\"a name (at most 40 characters)\"> <small>(otherwise your design is listed as anonymous)</small></p>";
  } else {
    h += "<p><small>Graded, not kept: <a href=\"/signin?next=/design/" + html_escape(c.id) +
         "\">sign in</a> to keep your attempts and place a passing design on the board.</small></p>";
  }
  return h + "<p><button type=\"submit\">Grade my design</button></p></form>";
}

std::string verdict_html(const design::Verdict& vd) {
  std::string h = std::string("<section class=\"card design-verdict ") + (vd.pass ? "pass" : "fail") +
                  "\" id=\"verdict\"><h2>Verdict: " + (vd.pass ? "PASS" : "FAIL") + "</h2>";
  if (!vd.runs) h += "<p class=\"design-failure\">The design cannot run: " + html_escape(vd.failure) + "</p>";
  if (!vd.objectives.empty()) {
    h += "<table class=\"design-objectives\"><thead><tr><th>Objective</th><th>Predicted</th><th>Target</th><th>Result</th>"
         "<th>Binding constraint</th></tr></thead><tbody>";
    for (const auto& o : vd.objectives) {
      const std::string unit = o.unit.empty() ? "" : " " + html_escape(o.unit);
      h += "<tr class=\"" + std::string(o.pass ? "pass" : "fail") + "\"><td><code>" + html_escape(o.name) + "</code></td><td>" +
           (o.unbounded ? std::string("unbounded") : figure(o.predicted) + unit) + "</td><td>" + (o.at_most ? "&le; " : "&ge; ") +
           figure(o.target) + unit + "</td><td>" + (o.pass ? "pass" : "FAIL") + "</td><td>" + html_escape(o.binding) + "</td></tr>";
      h += "<tr class=\"design-derivation\"><td colspan=\"5\"><details><summary>How " + html_escape(o.name) +
           " was derived</summary><p>" + html_escape(o.derivation) + "</p></details></td></tr>";
    }
    h += "</tbody></table>";
  }
  if (vd.suggestion) {
    const auto& s = *vd.suggestion;
    h += "<p class=\"design-suggestion\" id=\"suggestion\" data-field=\"" + html_escape(s.field) + "\" data-to=\"" + html_escape(s.to) +
         "\"><strong>" +
         std::string(s.fixes ? "One change that fixes it" : "The change that comes closest") + ":</strong> set <code>" +
         html_escape(s.field) + "</code> from <code>" + html_escape(s.from) + "</code> to <code>" + html_escape(s.to) + "</code> (" +
         html_escape(s.effect) + (s.passes_all ? "; then every objective passes" : "") + ").</p>";
  }
  for (const auto& t : vd.trust) h += "<p class=\"design-trust\">How far to trust this: " + html_escape(t) + "</p>";
  h += "<p class=\"design-version\"><small>Graded by " + html_escape(vd.grader_version) + " in " + std::to_string(vd.evaluations) +
       " evaluations.</small></p>";
  return h + "</section>";
}

std::string board_html(const Context& ctx, const design::Challenge& c) {
  auto board = ctx.design->board(c.id);
  if (!board) return "";
  std::string h = "<section class=\"card\" id=\"board\"><h2>Board</h2><p>Each candidate's cheapest passing design, once; names "
                  "only for those who chose to show one.</p>";
  if (board->empty()) return h + "<p>No passing design yet.</p></section>";
  h += "<table><thead><tr><th>#</th><th>Who</th><th>Cost (USD)</th><th>Time taken</th></tr></thead><tbody>";
  int rank = 0;
  for (const auto& a : *board) {
    h += "<tr><td>" + std::to_string(++rank) + "</td><td>" +
         (a.show_name && !a.board_name.empty() ? html_escape(a.board_name) : std::string("anonymous")) + "</td><td>" +
         figure(a.cost_usd) + "</td><td>" + (a.seconds > 0 ? std::to_string((a.seconds + 59) / 60) + " min" : "") + "</td></tr>";
  }
  return h + "</tbody></table></section>";
}

std::string attempts_html(const Context& ctx, const design::Challenge& c, int64_t user_id) {
  auto attempts = ctx.design->attempts(user_id, c.id);
  if (!attempts || attempts->empty()) return "";
  std::string h = "<section class=\"card\" id=\"attempts\"><h2>Your attempts</h2>";
  if (auto best = ctx.design->best(user_id, c.id); best && best->has_value()) {
    h += "<p>Your best passing design costs " + figure((*best)->cost_usd) + " USD.</p>";
  }
  h += "<ol reversed>";
  for (const auto& a : *attempts) {
    h += "<li>" + std::string(a.pass ? "pass" : "fail") + ", " + figure(a.cost_usd) + " USD" +
         (a.seconds > 0 ? ", " + std::to_string((a.seconds + 59) / 60) + " min" : "") + ": <code>" + html_escape(a.submission) +
         "</code></li>";
  }
  return h + "</ol></section>";
}

// The challenge page: the verdict first when there is one, then the scenario, the form and
// the board. `note` lists the field errors of a refused submission.
Response challenge_page(const Request& req, const Context& ctx, const design::Challenge& c, const services::Visitor& v,
                        const design::Design& values, const design::Verdict* verdict, const std::vector<FieldError>& errors,
                        int status) {
  std::string h = "<main class=\"design\"><p><a href=\"/design\">Design rounds</a></p><h1>" + html_escape(c.title) + "</h1>";
  h += "<p class=\"meta\">" + html_escape(c.track) + " &middot; " + html_escape(c.difficulty) + " &middot; " +
       design::kind_name(c.kind) + " &middot; " + std::to_string(c.minutes) + " minutes</p>";
  if (!errors.empty()) {
    h += "<section class=\"card design-errors\" role=\"alert\" id=\"errors\"><h2>The design was not graded</h2><ul>";
    for (const auto& e : errors) {
      h += "<li><code>" + html_escape(e.field) + "</code> = \"" + html_escape(e.value) + "\" " + html_escape(e.message) +
           "; accepted: " + html_escape(e.accepted) + "</li>";
    }
    h += "</ul></section>";
  }
  if (verdict != nullptr) h += verdict_html(*verdict);
  // The timer: optional (?timer=off hides it); the script counts it down from the page's start.
  const bool timer = req.param("timer").value_or("") != "off";
  int64_t started = ctx.now();
  if (req.method == "POST") {
    Form form;
    if (parse_form(req.body, form)) {
      try {
        const long long s = std::stoll(form_value(form, "started"));
        if (s > 0 && s <= ctx.now()) started = s;
      } catch (const std::exception&) {
      }
    }
  }
  if (timer) {
    const int64_t left = std::max<int64_t>(0, int64_t{c.minutes} * 60 - (ctx.now() - started));
    char clock[32];
    std::snprintf(clock, sizeof clock, "%lld:%02lld", static_cast<long long>(left / 60), static_cast<long long>(left % 60));
    h += "<p class=\"design-timer\" id=\"design-timer\" data-seconds-left=\"" + std::to_string(left) + "\">Time left: <strong>" +
         clock + "</strong> of " + std::to_string(c.minutes) + " minutes <small>(<a href=\"/design/" + html_escape(c.id) +
         "?timer=off\">hide the timer</a>)</small></p>";
  }
  h += "<section class=\"card\"><h2>The scenario</h2>" + paragraphs(c.scenario);
  if (!c.fixed.empty()) {
    h += "<h3>Given</h3><ul>";
    for (const auto& [k, val] : c.fixed) h += "<li><code>" + html_escape(k) + "</code> = " + html_escape(val) + "</li>";
    h += "</ul>";
  }
  if (!c.prices.empty()) {
    h += "<h3>Prices</h3><ul>";
    for (const auto& [gpu, usd] : c.prices) h += "<li>" + html_escape(gpu) + ": " + figure(usd) + " USD per GPU-hour</li>";
    h += "</ul>";
  }
  h += "<h3>Objectives</h3><ul>";
  for (const auto& o : c.objectives) h += "<li>" + objective_line(o) + "</li>";
  h += "</ul></section>";
  h += "<section class=\"card\"><h2>Your design</h2>" + design_form(c, values, v, started, timer) +
       "<div id=\"design-live\" aria-live=\"polite\"></div></section>";
  if (!c.concepts.empty() || !c.questions.empty()) {
    h += "<section class=\"card\"><h2>What it draws on</h2><ul>";
    for (const auto& id : c.concepts) h += "<li><a href=\"/concepts/" + html_escape(id) + "\">" + html_escape(id) + "</a></li>";
    for (const auto& slug : c.questions) h += "<li><a href=\"/q/" + html_escape(slug) + "\">" + html_escape(slug) + "</a></li>";
    h += "</ul></section>";
  }
  if (v.user_id != 0) h += attempts_html(ctx, c, v.user_id);
  h += board_html(ctx, c) + "</main>";
  Response r = html(status, layout(ctx.site(), "Design round: " + c.title, "A design round graded by the performance model", h));
  r.set("Cache-Control", "no-store");
  r.personal = v.user_id != 0;
  return r;
}

// The key a client's grades are limited under: the account, or the address when anonymous.
std::string limit_key(const Request& req, const Context& ctx, const services::Visitor& v) {
  return v.user_id != 0 ? "u:" + std::to_string(v.user_id) : "a:" + client_address(req, ctx);
}

}  // namespace

Response design_index(const Request& req, const Context& ctx) {
  (void)req;
  std::string h = "<main class=\"design\"><h1>Design rounds</h1><p>Serve a model to a traffic within a budget, or train one by a "
                  "date: choose the design, and the performance model grades it objective by objective, says which constraint "
                  "binds and the one change that would fix the worst miss.</p>";
  std::vector<std::string> tracks;
  for (const auto& c : ctx.design->challenges()) {
    if (std::find(tracks.begin(), tracks.end(), c.track) == tracks.end()) tracks.push_back(c.track);
  }
  std::sort(tracks.begin(), tracks.end());
  for (const auto& track : tracks) {
    h += "<section class=\"card\"><h2>" + html_escape(track) + "</h2>";
    for (const char* d : kDifficulties) {
      std::string items;
      for (const auto& c : ctx.design->challenges()) {
        if (c.track != track || c.difficulty != d) continue;
        items += "<li><a href=\"/design/" + html_escape(c.id) + "\">" + html_escape(c.title) + "</a> <small>(" +
                 design::kind_name(c.kind) + ", " + std::to_string(c.minutes) + " min)</small></li>";
      }
      if (!items.empty()) h += "<h3>" + std::string(d) + "</h3><ul>" + items + "</ul>";
    }
    h += "</section>";
  }
  return html(200, layout(ctx.site(), "Design rounds", "Design challenges graded by the performance model", h + "</main>"));
}

Response design_page(const Request& req, const Params& p, const Context& ctx) {
  const design::Challenge* c = ctx.design->find(p.at("id"));
  if (c == nullptr) return error(req, ctx, 404, "There is no design challenge '" + p.at("id").substr(0, 120) + "'.");
  services::Visitor v = visitor(req, ctx);
  if (req.method != "POST") {
    design::Design last;
    if (v.user_id != 0) {
      auto attempts = ctx.design->attempts(v.user_id, c->id);
      if (!attempts) return failure(req, ctx, attempts.error());
      if (!attempts->empty()) last = services::DesignService::design_from_json(attempts->front().submission);
    }
    return challenge_page(req, ctx, *c, v, last, nullptr, {}, 200);
  }
  Form form;
  if (!parse_form(req.body, form)) return plain_error(400, "malformed form");
  // Signed in, the design is kept: the session's token is required. Anonymous, nothing is
  // written, so a cross-site post gains nothing.
  if (v.user_id != 0 && !csrf_ok(req, v, form_value(form, "csrf"))) return plain_error(403, "missing or wrong CSRF token");
  design::Design given;
  for (const design::FieldSpec* spec : services::DesignService::open_fields(*c)) given[spec->name] = form_value(form, spec->name);
  auto graded = ctx.design->grade(*c, given, limit_key(req, ctx, v));
  if (!graded) {
    const auto& f = graded.error();
    if (f.kind != Failure::Kind::kInvalid) return failure(req, ctx, f);
    return challenge_page(req, ctx, *c, v, given, nullptr, f.errors, 400);
  }
  if (v.user_id != 0) {
    int64_t seconds = 0;
    try {
      const long long started = std::stoll(form_value(form, "started"));
      // A day at most: a page left open overnight says nothing about the round.
      if (started > 0 && started <= ctx.now() && ctx.now() - started <= 86400) seconds = ctx.now() - started;
    } catch (const std::exception&) {
    }
    auto kept = ctx.design->keep(v.user_id, *c, *graded, seconds, form_value(form, "show_name") == "1", form_value(form, "board_name"));
    if (!kept) {
      const auto& f = kept.error();
      if (f.kind != Failure::Kind::kInvalid) return failure(req, ctx, f);
      return challenge_page(req, ctx, *c, v, graded->design, &graded->verdict, f.errors, 400);
    }
  }
  return challenge_page(req, ctx, *c, v, graded->design, &graded->verdict, {}, 200);
}

Response api_design(const Request& req, const Params& p, const Context& ctx) {
  const design::Challenge* c = ctx.design->find(p.at("id"));
  if (c == nullptr) {
    return json_error(404, {"id", p.at("id").substr(0, 120), "is not a design challenge", "an id of GET /design (ridge design --list)"});
  }
  services::Visitor v = visitor(req, ctx);
  if (v.user_id != 0 && !csrf_ok(req, v)) return json_error(403, {"csrf", "", "missing or wrong X-CSRF-Token", "the session's CSRF token"});
  Json body = Json::parse(req.body, nullptr, false);
  if (!body.is_object()) {
    return json_error(400, {"body", req.body.substr(0, 64), "is not a JSON object", "{\"field\": value, ...}, e.g. {\"replicas\": 4}"});
  }
  if (body.size() > kMaxJsonMembers) {
    return json_error(400, {"body", std::to_string(body.size()) + " members", "has too many members",
                            "at most " + std::to_string(kMaxJsonMembers) + " (one per field of the design)"});
  }
  design::Design given;
  std::vector<FieldError> errors;
  for (const auto& [k, val] : body.items()) {
    if (val.is_string()) given[k] = val.get<std::string>();
    else if (val.is_number_integer() || val.is_number_unsigned()) given[k] = val.dump();
    else if (val.is_number_float()) given[k] = val.dump();
    else errors.push_back({k, val.dump().substr(0, 64), "is not a string or a number", "a string or a number"});
  }
  if (!errors.empty()) return json_error(400, errors);
  auto graded = ctx.design->grade(*c, given, limit_key(req, ctx, v));
  if (!graded) return failure(req, ctx, graded.error());
  Response r = json_text(200, design::verdict_json(graded->verdict) + "\n");
  r.set("Cache-Control", "no-store");
  return r;
}

}  // namespace ridge::web::routes
