// Practice pages of the App: review, dashboard, drills, the readiness check, settings.
// Rendered per request (they depend on the visitor); every form that changes state carries
// the session's CSRF token.
#include <sodium.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <random>

#include "account/security.h"
#include "billing/billing.h"
#include "practice/card_state.h"
#include "practice/drills.h"
#include "practice/fsrs.h"
#include "web/app.h"
#include "web/log.h"
#include "web/pages.h"

namespace ridge::web {

namespace {

constexpr int64_t kReadinessSeconds = 15 * 60;

std::string e(std::string_view s) { return calc::html_escape(s); }

std::string csrf_field(const std::string& token) { return "<input type=\"hidden\" name=\"csrf\" value=\"" + e(token) + "\">"; }

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

std::string value_of(const std::vector<std::pair<std::string, std::string>>& form, const std::string& key) {
  for (const auto& [k, v] : form) {
    if (k == key) return v;
  }
  return {};
}

std::string pct(double v) { return calc::format_significant(v * 100, 3) + "%"; }

uint64_t fresh_seed() {
  account::init_crypto();
  uint64_t s = 0;
  randombytes_buf(&s, sizeof s);
  return s % 1000000000ull;
}

std::string mac_hex(const std::string& message) {
  static const std::vector<unsigned char> key = [] {
    std::vector<unsigned char> k(crypto_auth_KEYBYTES);
    account::init_crypto();
    if (const char* secret = std::getenv("RIDGE_SECRET"); secret && *secret) {
      crypto_generichash(k.data(), k.size(), reinterpret_cast<const unsigned char*>(secret), std::strlen(secret), nullptr, 0);
    } else {
      randombytes_buf(k.data(), k.size());
    }
    return k;
  }();
  unsigned char mac[crypto_auth_BYTES];
  crypto_auth(mac, reinterpret_cast<const unsigned char*>(message.data()), message.size(), key.data());
  char hex[crypto_auth_BYTES * 2 + 1];
  sodium_bin2hex(hex, sizeof hex, mac, sizeof mac);
  return hex;
}

// A drill seed the visitor cannot see: derived from the check's nonce with the server's key,
// so the check's answers cannot be looked up on /drill by seed.
uint64_t hidden_seed(const std::string& nonce, int n) {
  std::string h = mac_hex(nonce + ":" + std::to_string(n));
  return std::strtoull(h.substr(0, 15).c_str(), nullptr, 16) % 1000000000ull;
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
  std::string notice;
  if (req.method == "POST") {
    std::vector<std::pair<std::string, std::string>> form;
    if (auto refused = read_post_form(req, v, form)) return *refused;
    std::string err;
    int g = std::atoi(value_of(form, "grade").c_str());
    auto result = grade(v, value_of(form, "slug"), g, err);
    if (!result) return plain_error(400, err);
    return redirect("/review");
  }
  auto cards = options_.store->cards(v.user_id);
  std::string body = "<h1>Reviews due</h1>", new_section;
  int due = 0;
  if (cards.ok()) {
    for (const auto& c : *cards) {
      if (c.due > now()) continue;
      const bank::Question* q = bank_.find(c.slug);
      if (!q) continue;
      ++due;
      body += "<section class=\"card review-item\" data-slug=\"" + e(q->slug) + "\"><h2><a href=\"/q/" + e(q->slug) + "\">" +
              e(q->title) + "</a></h2><details class=\"reveal\"><summary>Reveal the answer (space)</summary><p class=\"tldr\">" +
              e(q->tldr) + "</p><p><a href=\"/q/" + e(q->slug) + "\">The worked answer</a></p></details>" +
              grade_form(v.csrf, q->slug) + "</section>\n";
    }
  }
  // New questions for today, up to the daily limit from settings: the must-know ones first,
  // then the bank's order, among those the account can read.
  if (cards.ok()) {
    auto history = options_.store->reviews(v.user_id);
    auto until = access_until(v.user_id);
    if (!history.ok() || !until) return store_unavailable(req, history.ok() ? "entitlement lookup failed" : history.error().message);
    bool paid = *until > now();
    std::vector<std::string> candidates;
    for (bool must : {true, false}) {
      for (const auto& q : bank_.questions) {
        if (q.must_know == must && (q.free || paid)) candidates.push_back(q.slug);
      }
    }
    int introduced = practice::new_cards_today(*history, now());
    auto fresh = practice::new_for_today(candidates, *cards, v.new_per_day, introduced);
    std::string items;
    for (const auto& slug : fresh) {
      const bank::Question* q = bank_.find(slug);
      items += "<section class=\"card review-item new-item\" data-slug=\"" + e(q->slug) + "\"><h3><a href=\"/q/" + e(q->slug) + "\">" +
               e(q->title) + "</a> <span class=\"tag\">new</span></h3><p class=\"muted\">" + e(q->summary) +
               "</p><details class=\"reveal\"><summary>Reveal the answer</summary><p class=\"tldr\">" + e(q->tldr) +
               "</p><p><a href=\"/q/" + e(q->slug) + "\">The worked answer</a></p></details>" +
               grade_form(v.csrf, q->slug) + "</section>\n";
    }
    int left = std::max(0, v.new_per_day - introduced);
    new_section = "<h2>New today</h2><p class=\"muted\" id=\"new-today\">" + std::to_string(introduced) + " of " +
                  std::to_string(v.new_per_day) + " new questions started today (UTC); " + std::to_string(left) +
                  " more on offer. <a href=\"/settings\">Change the daily limit</a>.</p>" + items;
  }
  if (due == 0) body += "<p id=\"nothing-due\">Nothing is due. Grade questions as you read them and they come back here when FSRS schedules them.</p>";
  // What is scheduled next, soonest first.
  std::string upcoming;
  if (cards.ok()) {
    for (const auto& c : *cards) {
      if (c.due <= now()) continue;
      const bank::Question* q = bank_.find(c.slug);
      if (!q) continue;
      int64_t left = c.due - now();
      int64_t days = (left + 86399) / 86400;
      std::string when = left < 3600    ? std::to_string(std::max<int64_t>(1, (left + 59) / 60)) + " min"
                         : left < 86400 ? std::to_string((left + 3599) / 3600) + " h"
                                        : std::to_string(days) + " day" + (days == 1 ? "" : "s");
      upcoming += "<li data-slug=\"" + e(q->slug) + "\"><a href=\"/q/" + e(q->slug) + "\">" + e(q->title) + "</a> <span class=\"muted\">in " +
                  when + "</span></li>";
    }
  }
  if (!upcoming.empty()) body += "<h2>Coming up</h2><ol id=\"upcoming\" class=\"questions\">" + upcoming + "</ol>";
  body += new_section;
  body = "<p class=\"muted\">" + std::to_string(due) + " due · keys: space reveals, 1 to 4 grade</p>" + body;
  Response r;
  r.body = layout(site, "Reviews", "Questions due for review", notice + body);
  r.set("Cache-Control", "no-store");
  return r;
}

Response App::dashboard(const Request& req) const {
  Site site{bank_, catalog_, registry_, assets_};
  Visitor v = visitor(req);
  if (v.user_id == 0) return redirect("/signin?next=/dashboard");
  nlohmann::json progress = nlohmann::json::parse(progress_json(v));
  auto cell = [](const nlohmann::json& j, const char* key, bool ratio) {
    if (j[key].is_null()) return std::string("<td class=\"muted\">none</td>");
    return "<td>" + (ratio ? pct(j[key].get<double>()) : std::to_string(j[key].get<int>())) + "</td>";
  };
  std::string body = "<h1>Your progress</h1><p class=\"muted\">Signed in as " + e(v.email) +
                     ". <a href=\"/review\">Reviews</a> · <a href=\"/drill\">Drill</a> · <a href=\"/readiness\">Readiness check</a> · "
                     "<a href=\"/settings\">Settings</a></p>";
  body += "<h2>By track</h2><table id=\"by-track\" class=\"progress\"><thead><tr><th>Track</th><th>Seen</th><th>Due</th><th>Retention</th><th>Drills</th><th>Drill accuracy</th></tr></thead><tbody>";
  for (const auto& t : bank_.tracks) {
    const auto& j = progress["tracks"][t.id];
    body += "<tr><td><a href=\"/tracks/" + e(t.id) + "\">" + e(t.name) + "</a></td>" + cell(j, "seen", false) + cell(j, "due", false) +
            cell(j, "retention", true) + cell(j, "drills", false) + cell(j, "drill_accuracy", true) + "</tr>";
  }
  body += "</tbody></table><h2>By topic</h2><table id=\"by-topic\" class=\"progress\"><thead><tr><th>Topic</th><th>Seen</th><th>Due</th><th>Retention</th><th>Drills</th><th>Drill accuracy</th></tr></thead><tbody>";
  for (const auto& t : bank_.topics) {
    const auto& j = progress["topics"][t.id];
    body += "<tr data-topic=\"" + e(t.id) + "\"><td><a href=\"/topics/" + e(t.id) + "\">" + e(t.name) + "</a></td>" + cell(j, "seen", false) +
            cell(j, "due", false) + cell(j, "retention", true) + cell(j, "drills", false) + cell(j, "drill_accuracy", true) + "</tr>";
  }
  body += "</tbody></table>";
  auto marks = options_.store->bookmarks(v.user_id);
  body += "<h2>Bookmarks</h2><ul>";
  if (marks.ok()) {
    for (const auto& slug : *marks) {
      const bank::Question* q = bank_.find(slug);
      if (q) body += "<li><a href=\"/q/" + e(slug) + "\">" + e(q->title) + "</a></li>";
    }
  }
  body += "</ul><h2>Readiness checks</h2><ul>";
  auto history = options_.store->readiness_history(v.user_id);
  if (history.ok()) {
    for (const auto& r : *history) {
      body += "<li>" + e(r.track) + ": " + pct(r.score) + " <span class=\"muted\">(" + http_date(r.finished_at) + ")</span></li>";
    }
  }
  body += "</ul>";
  Response r;
  r.body = layout(site, "Progress", "Your progress", body);
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
  std::string topic = value_of(form, "topic");
  auto topics = practice::drill_topics();
  if (!topic.empty() && std::find(topics.begin(), topics.end(), topic) == topics.end()) {
    std::string list;
    for (const auto& t : topics) list += (list.empty() ? "" : ", ") + t;
    return error(req, 400, "Drills cover these topics: " + list + ".");
  }
  std::string seed_text = value_of(form, "seed");
  uint64_t seed = seed_text.empty() ? fresh_seed() : std::strtoull(seed_text.c_str(), nullptr, 10);
  auto d = practice::make_drill(seed, topic, registry_, catalog_);
  if (!d) return error(req, 500, "Could not generate a drill.");
  // The topic picker: a plain GET form, so it works without script.
  std::string picker = "<form method=\"get\" action=\"/drill\" class=\"filters\" id=\"drill-topics\"><label for=\"drill-topic\">Topic</label> "
                       "<select id=\"drill-topic\" name=\"topic\"><option value=\"\">any topic</option>";
  for (const auto& id : topics) {
    const bank::Topic* t = bank_.find_topic(id);
    picker += "<option value=\"" + e(id) + "\"" + (id == topic ? " selected" : "") + ">" + e(t ? t->name : id) + "</option>";
  }
  picker += "</select> <button type=\"submit\">New drill</button></form>";
  const bank::Topic* shown = bank_.find_topic(d->topic);
  std::string body = "<h1>Drill</h1>" + picker + "<p class=\"muted\">Topic: <span id=\"drill-topic-name\">" +
                     e(shown ? shown->name : d->topic) + "</span> · <a href=\"/drill" +
                     (topic.empty() ? "" : "?topic=" + e(topic)) + "\">another one</a></p><p class=\"prose\" id=\"drill-prompt\">" +
                     e(d->prompt) + "</p>";
  std::string answer = value_of(form, "answer");
  if (!answer.empty()) {
    auto g = practice::grade_drill(*d, answer);
    if (!g.message.empty()) {
      body += "<p class=\"error\" role=\"alert\">'" + e(answer) + "' " + e(g.message) + "</p>";
    } else {
      body += std::string("<p id=\"drill-verdict\" class=\"") + (g.correct ? "good" : "bad") + "\"><strong>" +
              (g.correct ? "Correct" : "Not within 10%") + "</strong>: you said " + e(calc::format_quantity(g.given, d->unit)) +
              ", the engine says " + e(calc::format_quantity(g.expected, d->unit)) + " (" + pct(g.relative_error) + " off).</p>";
      body += calc::render_html(d->answer);
      if (v.user_id != 0 && req.method == "POST") {
        if (auto saved = options_.store->record_drill(v.user_id, {d->calculator, d->topic, g.correct, now()}); saved.ok()) {
          body += "<p class=\"muted\">Saved to your progress.</p>";
        } else {
          log::error("drill not recorded: " + saved.error().message);
          body += "<p class=\"error\" role=\"alert\">Not saved to your progress: the database is unavailable. "
                  "Answer again in a few seconds to count it.</p>";
        }
      } else if (v.user_id == 0) {
        body += "<p class=\"muted\"><a href=\"/signup\">Create an account</a> to count drills on your dashboard.</p>";
      }
      body += "<p><a class=\"button\" href=\"/drill" + std::string(topic.empty() ? "" : "?topic=" + e(topic)) + "\">Next drill</a></p>";
    }
  }
  if (answer.empty() || body.find("drill-verdict") == std::string::npos) {
    body += std::string("<form class=\"calc\" method=\"") + (v.user_id ? "post" : "get") + "\" action=\"/drill\">" +
            (v.user_id ? csrf_field(v.csrf) : "") + "<input type=\"hidden\" name=\"seed\" value=\"" + std::to_string(seed) +
            "\"><input type=\"hidden\" name=\"topic\" value=\"" + e(topic) + "\"><div class=\"field\"><label for=\"answer\">Your answer</label>"
            "<input id=\"answer\" name=\"answer\" type=\"text\" inputmode=\"decimal\" aria-describedby=\"answer-hint\" value=\"" + e(answer) +
            "\"><span class=\"hint\" id=\"answer-hint\">" + e(d->unit_hint) + "; within 10% counts</span></div>"
            "<div class=\"field\"><button type=\"submit\">Check</button></div></form>";
  }
  Response r;
  r.body = layout(site, "Drill", "A numeric drill from the engine", body);
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
  std::string action = value_of(form, "action");
  std::string body;
  if (action == "start") {
    const bank::Track* track = bank_.find_track(value_of(form, "track"));
    if (!track) return error(req, 400, "Choose a track: kernels, distributed, serving or platform.");
    uint64_t seed = fresh_seed();
    std::mt19937_64 rng(seed);
    std::string nonce = account::random_token().substr(0, 32);
    // Topics drawn by the track's weights, only among those the drills cover (a track with
    // none gets questions only): five drills and five self-graded questions.
    auto drill_topics = practice::drill_topics();
    std::vector<std::string> pool;
    for (const auto& [topic, w] : track->weights) {
      if (std::find(drill_topics.begin(), drill_topics.end(), topic) == drill_topics.end()) continue;
      for (int i = 0; i < w; ++i) pool.push_back(topic);
    }
    std::string items, item_list;
    int n = 0;
    for (int i = 0; i < 5 && !pool.empty(); ++i) {
      std::string topic = pool[std::uniform_int_distribution<size_t>(0, pool.size() - 1)(rng)];
      auto d = practice::make_drill(hidden_seed(nonce, n + 1), topic, registry_, catalog_);
      if (!d) continue;
      ++n;
      item_list += "d:" + topic + ";";
      items += "<section class=\"card\"><h2>Drill " + std::to_string(n) + " <span class=\"tag\">" + e(d->topic) + "</span></h2><p>" +
               e(d->prompt) + "</p><label for=\"a" + std::to_string(n) + "\">Answer (" + e(d->unit_hint) + ")</label> <input id=\"a" +
               std::to_string(n) + "\" name=\"a" + std::to_string(n) + "\" type=\"text\" inputmode=\"decimal\"></section>";
    }
    std::vector<const bank::Question*> candidates;
    for (const auto& q : bank_.questions) {
      if (track->weights.count(q.topic)) candidates.push_back(&q);
    }
    std::shuffle(candidates.begin(), candidates.end(), rng);
    for (size_t i = 0; i < candidates.size() && i < 5; ++i) {
      const bank::Question* q = candidates[i];
      ++n;
      item_list += "q:" + q->slug + ";";
      std::string name = "a" + std::to_string(n);
      items += "<section class=\"card\"><h2>Question " + std::to_string(n) + " <span class=\"tag\">" + e(q->topic) + "</span></h2><p>" +
               e(q->title) + "</p><details class=\"reveal\"><summary>Answer it aloud, then reveal</summary><p class=\"tldr\">" + e(q->tldr) +
               "</p></details><fieldset><legend>How did you do?</legend>"
               "<label><input type=\"radio\" name=\"" + name + "\" value=\"1\"> had it</label> "
               "<label><input type=\"radio\" name=\"" + name + "\" value=\"0.5\"> partly</label> "
               "<label><input type=\"radio\" name=\"" + name + "\" value=\"0\" checked> missed it</label></fieldset></section>";
    }
    std::string started = std::to_string(now());
    // Bound to this visitor and used once: the user id and a nonce are inside what is signed.
    std::string payload = track->id + "|" + started + "|" + std::to_string(v.user_id) + "|" + nonce + "|" + item_list;
    body = "<h1>Readiness check: " + e(track->name) + "</h1><p id=\"deadline\" data-deadline=\"" +
           std::to_string(now() + kReadinessSeconds) + "\">You have 15 minutes; answers after that count as missed. "
           "<strong id=\"countdown\" aria-live=\"polite\"></strong></p>"
           "<form method=\"post\" action=\"/readiness\">" + csrf_field(v.csrf) +
           "<input type=\"hidden\" name=\"action\" value=\"finish\"><input type=\"hidden\" name=\"payload\" value=\"" + e(payload) +
           "\"><input type=\"hidden\" name=\"mac\" value=\"" + mac_hex(payload) + "\">" + items +
           "<p><button type=\"submit\">Finish</button></p></form>";
  } else if (action == "finish") {
    std::string payload = value_of(form, "payload");
    if (!account::equal_tokens(value_of(form, "mac"), mac_hex(payload))) return plain_error(400, "this readiness check was altered or comes from another server");
    std::vector<std::string> fields;
    for (size_t a = 0, b; fields.size() < 4 && (b = payload.find('|', a)) != std::string::npos; a = b + 1) {
      fields.push_back(payload.substr(a, b - a));
    }
    if (fields.size() != 4) return plain_error(400, "malformed readiness payload");
    size_t p2 = 0;
    for (int k = 0; k < 4; ++k) p2 = payload.find('|', p2 + (k ? 1 : 0));
    std::string track = fields[0];
    int64_t started = std::strtoll(fields[1].c_str(), nullptr, 10);
    std::string nonce = fields[3];
    if (fields[2] != std::to_string(v.user_id)) {
      return error(req, 403, "This readiness check was started by another account.");
    }
    // Single use: a second submission of the same check is refused, not recorded twice.
    std::lock_guard<std::mutex> once(readiness_mutex_);
    if (auto history = options_.store->readiness_history(v.user_id); history.ok()) {
      for (const auto& r : *history) {
        if (r.detail_json.find("\"nonce\":\"" + nonce + "\"") != std::string::npos) {
          return error(req, 409, "This readiness check was already submitted; start a new one.");
        }
      }
    } else {
      return store_unavailable(req, history.error().message);
    }
    bool late = now() > started + kReadinessSeconds + 60;
    std::map<std::string, std::pair<double, int>> per_topic;
    std::string items = payload.substr(p2 + 1), detail_items;
    int n = 0;
    size_t pos = 0;
    while (pos < items.size()) {
      size_t end = items.find(';', pos);
      std::string item = items.substr(pos, end - pos);
      pos = end + 1;
      ++n;
      std::string answer = value_of(form, "a" + std::to_string(n));
      double score = 0;
      std::string topic;
      if (item.rfind("d:", 0) == 0) {
        auto d = practice::make_drill(hidden_seed(nonce, n), item.substr(2), registry_, catalog_);
        if (!d) continue;
        topic = d->topic;
        auto g = practice::grade_drill(*d, answer);
        bool correct = !late && !answer.empty() && g.message.empty() && g.correct;
        score = correct ? 1 : 0;
        if (auto saved = options_.store->record_drill(v.user_id, {d->calculator, d->topic, correct, now()}); !saved.ok()) {
          return store_unavailable(req, "readiness drill not recorded: " + saved.error().message);
        }
        // Feedback per answer, with the engine's worked chain.
        detail_items += "<section class=\"card feedback\"><h3>Drill " + std::to_string(n) + ": " +
                        std::string(correct ? "correct" : "missed") + "</h3><p>" + e(d->prompt) + "</p><p>You said " +
                        (answer.empty() ? std::string("nothing") : "'" + e(answer) + "'") + "; the engine says <strong>" +
                        e(calc::format_quantity(d->expected, d->unit)) + "</strong>.</p><details><summary>The worked chain</summary>" +
                        calc::render_html(d->answer) + "</details></section>";
      } else {
        const bank::Question* q = bank_.find(item.substr(2));
        if (!q) continue;
        topic = q->topic;
        score = late ? 0 : std::clamp(std::atof(answer.c_str()), 0.0, 1.0);
      }
      per_topic[topic].first += score;
      per_topic[topic].second += 1;
    }
    double total = 0;
    int count = 0;
    nlohmann::json detail = {{"late", late}, {"nonce", nonce}, {"topics", nlohmann::json::object()}};
    std::vector<std::pair<double, std::string>> ranked;
    for (const auto& [topic, s] : per_topic) {
      total += s.first;
      count += s.second;
      detail["topics"][topic] = s.first / s.second;
      ranked.emplace_back(s.first / s.second, topic);
    }
    double score = count ? total / count : 0;
    if (auto saved = options_.store->save_readiness(v.user_id, {0, track, started, now(), score, detail.dump()}); !saved.ok()) {
      return store_unavailable(req, "readiness not saved: " + saved.error().message);
    }
    std::sort(ranked.begin(), ranked.end());
    body = "<h1>Your readiness: <span id=\"readiness-score\">" + pct(score) + "</span></h1>" +
           (late ? "<p class=\"error\">Finished after the 15 minutes: the answers counted as missed.</p>" : "") +
           "<table id=\"readiness-topics\"><thead><tr><th>Topic</th><th>Score</th></tr></thead><tbody>";
    for (const auto& [s, topic] : ranked) body += "<tr><td>" + e(topic) + "</td><td>" + pct(s) + "</td></tr>";
    body += "</tbody></table><h2>Study next</h2><ul>";
    for (size_t i = 0; i < ranked.size() && i < 3; ++i) {
      const bank::Topic* t = bank_.find_topic(ranked[i].second);
      if (t) body += "<li><a href=\"/topics/" + e(t->id) + "\">" + e(t->name) + "</a> (" + pct(ranked[i].first) + ")</li>";
    }
    body += "</ul><h2>Your answers</h2>" + detail_items + "<p><a href=\"/dashboard\">Your progress</a></p>";
  } else {
    body = "<h1>Readiness check</h1><p class=\"prose\">Fifteen minutes: five numeric drills and five questions from the track's "
           "topics, weighted as the track weighs them. You get a score per topic and what to study next.</p>"
           "<form method=\"post\" action=\"/readiness\" class=\"calc\">" + csrf_field(v.csrf) +
           "<input type=\"hidden\" name=\"action\" value=\"start\"><div class=\"field\"><label for=\"track\">Track</label><select id=\"track\" name=\"track\">";
    for (const auto& t : bank_.tracks) body += "<option value=\"" + e(t.id) + "\">" + e(t.name) + "</option>";
    body += "</select></div><div class=\"field\"><button type=\"submit\">Start</button></div></form>";
  }
  Response r;
  r.body = layout(site, "Readiness check", "A timed readiness check", body);
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
        message = "Desired retention set to " + pct(r) + ".";
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
  Response r;
  r.body = layout(site, "Settings", "Account settings", body);
  r.set("Cache-Control", "no-store");
  return r;
}

}  // namespace ridge::web
