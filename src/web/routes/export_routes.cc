#include "web/routes/export_routes.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "account/rate_limiter.h"
#include "bank/loader.h"
#include "calc/derivation.h"
#include "web/export/anki.h"
#include "web/routes/response.h"

namespace ridge::web::routes {

namespace {

// Exports a minute per account or address, in this process: the fallback for an App without a
// store (a deck is at most the bank's size, so this bounds the work one client causes).
class ExportLimiter {
 public:
  // Seconds to wait, 0 when `key` may export now (and the export is counted).
  int64_t take(const std::string& key, int64_t now) {
    std::lock_guard lock(mu_);
    if (windows_.size() > kMaxKeys) {
      std::erase_if(windows_, [now](const auto& w) { return w.second.start + 60 <= now; });
      if (windows_.size() > kMaxKeys) windows_.clear();  // a flood of addresses: start over
    }
    Window& w = windows_[key];
    if (w.start + 60 <= now) w = {now, 0};
    if (w.count >= kExportsPerMinute) return w.start + 60 - now;
    ++w.count;
    return 0;
  }

 private:
  static constexpr size_t kMaxKeys = 100000;
  struct Window {
    int64_t start = 0;
    int count = 0;
  };
  std::mutex mu_;
  std::map<std::string, Window> windows_;
};

ExportLimiter& limiter() {
  static ExportLimiter l;
  return l;
}

bool has_paid_access(const Context& ctx, int64_t user_id) {
  if (user_id == 0) return false;
  auto until = access_until(ctx, user_id);
  if (!until) throw StoreUnavailable("entitlement lookup failed");
  return *until > ctx.now();
}

std::string esc(std::string_view s) { return calc::html_escape(s); }

}  // namespace

Response export_anki(const Request& req, const Context& ctx) {
  std::string deck_text = req.param("deck").value_or("");
  if (deck_text.empty()) {
    return json_error(400, field_errors({{"deck", "", "is required", exports::accepted_decks(ctx.bank)}}));
  }
  auto deck = exports::parse_deck(deck_text, ctx.bank);
  if (!deck) return json_error(400, field_errors(deck.errors()));
  services::Visitor v = visitor(req, ctx);
  if (deck->personal() && v.user_id == 0) {
    return json_error(401, field_errors({{"deck", deck_text, "is an account's own list", "POST /api/signin first"}}));
  }
  std::string key = v.user_id != 0 ? "user:" + std::to_string(v.user_id) : "addr:" + client_address(req, ctx);
  // With a store, the budget is the store's (issue 37): servers sharing it share the budget, as
  // sign-in's does. kExportsPerMinute at once, then one every 60 / kExportsPerMinute seconds.
  int64_t wait = 0;
  if (ctx.store() != nullptr) {
    account::StoreRateLimiter budget(*ctx.store(), *ctx.options.clock, kExportsPerMinute, kExportsPerMinute / 60.0);
    double retry = 0;
    auto answer = budget.allow("export:" + key, &retry);
    if (answer == account::StoreRateLimiter::Answer::kUnavailable) return store_unavailable(req, ctx, "export budget");
    if (answer == account::StoreRateLimiter::Answer::kLimited) wait = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(retry)));
  } else {
    wait = limiter().take(key, ctx.now());
  }
  if (wait > 0) {
    Response r = json_error(429, field_errors({{"deck", deck_text, "is one export too many this minute",
                                                 std::to_string(kExportsPerMinute) + " exports a minute; retry in " +
                                                     std::to_string(wait) + " s"}}));
    r.set("Retry-After", std::to_string(wait));
    return r;
  }
  std::vector<std::string> slugs;
  if (deck->kind == "bookmarks") {
    auto marks = ctx.store()->bookmarks(v.user_id);
    if (!marks.ok()) return failure(req, ctx, marks.error());
    slugs = std::move(*marks);
  } else if (deck->kind == "due") {
    auto cards = ctx.store()->cards(v.user_id);
    if (!cards.ok()) return failure(req, ctx, cards.error());
    for (const auto& c : *cards) {
      if (c.due <= ctx.now()) slugs.push_back(c.slug);
    }
  }
  bool paid = has_paid_access(ctx, v.user_id);
  auto questions = exports::deck_questions(*deck, ctx.bank, slugs);
  Response r;
  r.content_type = "text/plain; charset=utf-8";
  // The server sends a body whole; the deck is at most the bank's size (a few MB with every
  // answer's SVG), and `ridge export anki` streams the same notes as they are made.
  r.body.reserve(questions.size() * 8192);
  // Each answer from the page cache: rendered once for its page, a print page or an export.
  auto written = exports::write_anki(questions, exports::deck_title(*deck, ctx.bank), paid,
                                     [&ctx](const bank::Question& q) { return answer_html(ctx, q); },
                                     [&r](std::string_view part) { r.body.append(part); });
  std::string file = "ridge-" + deck->kind + (deck->id.empty() ? "" : "-" + deck->id) + ".txt";
  r.set("Content-Disposition", "attachment; filename=\"" + file + "\"");
  r.set("X-Ridge-Notes", std::to_string(written.notes));
  r.set("X-Ridge-Left-Out", std::to_string(written.left_out));
  r.personal = true;  // what is in it depends on the account's access
  return r;
}

std::string course_print_page(const Site& site, const bank::Course& course, bool paid_access,
                              const std::function<std::string(const bank::Question&)>& answer) {
  std::string b = "<article class=\"print-course\">\n<h1>" + esc(course.title) + "</h1>\n<p class=\"lede\">" + esc(course.summary) +
                  "</p>\n<p class=\"muted no-print\">Printed with answers shown. Use the browser's Print (to paper or PDF); "
                  "each question starts a new page.</p>\n";
  int n = 0;
  for (const auto& m : course.modules) {
    ++n;
    b += "<section class=\"print-module\">\n<h2>Module " + std::to_string(n) + ": " + esc(m.title) + "</h2>\n<p>" + esc(m.summary) + "</p>\n";
    for (const auto& id : m.concepts) {
      auto it = site.bank.concepts.find(id);
      if (it == site.bank.concepts.end() || it->second.stub) continue;
      b += "<section class=\"print-concept\">\n<h3>Concept: " + esc(it->second.title) + "</h3>\n" + it->second.html + "\n</section>\n";
    }
    for (const auto& slug : m.questions) {
      const bank::Question* q = site.bank.find(slug);
      if (q == nullptr) continue;
      b += "<section class=\"print-question\">\n<h3>" + esc(q->title) + "</h3>\n<p class=\"muted\">" +
           esc(std::string(bank::difficulty_name(q->difficulty))) + " · " + esc(q->topic) + "</p>\n";
      if (q->free || paid_access) {
        b += "<p><strong>TL;DR</strong> " + esc(q->tldr()) + "</p>\n<div class=\"answer\">\n" +
             (answer ? answer(*q) : bank::answer_html(*q, site.registry, site.catalog)) + "\n</div>\n";
      } else {
        b += "<p class=\"print-locked\">The worked answer is part of paid access (/q/" + esc(q->slug) + ").</p>\n";
      }
      b += "</section>\n";
    }
    if (!m.exercise.empty()) {
      b += "<section class=\"print-exercise\">\n<h3>Exercise</h3>\n<p>" + esc(m.exercise_prompt) + "</p>\n<p><code>ridge calc " +
           esc(m.exercise) + "</code></p>\n" + m.exercise_html + "\n</section>\n";
    }
    b += "</section>\n";
  }
  b += "</article>\n";
  return layout(site, course.title + " (print)", course.summary, b);
}

Response course_print(const Request& req, const Params& p, const Context& ctx) {
  auto it = ctx.bank.courses.find(p.at("id"));
  if (it == ctx.bank.courses.end()) return error(req, ctx, 404, "There is no course '" + p.at("id") + "'; see /courses.");
  services::Visitor v = visitor(req, ctx);
  Response r;
  r.body = course_print_page(ctx.site(), it->second, has_paid_access(ctx, v.user_id),
                            [&ctx](const bank::Question& q) { return answer_html(ctx, q); });
  r.personal = v.user_id != 0;
  return r;
}

Response openapi(const Request&, const Context& ctx, const std::vector<exports::RouteEntry>& routes, OpenApiCache& cache) {
  std::call_once(cache.once, [&] {
    cache.body = exports::openapi_document(routes, ctx.registry, ctx.catalog, ctx.bank).dump(2) + "\n";
  });
  Response r = json_text(200, "");
  r.shared_body = &cache.body;
  r.set("Cache-Control", "public, max-age=300");
  return r;
}

}  // namespace ridge::web::routes
