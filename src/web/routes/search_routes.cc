#include "web/routes/search_routes.h"

#include <cstdlib>
#include <optional>

#include <nlohmann/json.hpp>

#include "web/routes/response.h"

namespace ridge::web::routes {

using nlohmann::ordered_json;

namespace {

// The search cache's key for `req`, or nullopt when its parameters are refused.
std::optional<std::string> search_key(const Request& req) {
  std::string q = req.param("q").value_or(""), topic = req.param("topic").value_or(""),
              difficulty = req.param("difficulty").value_or(""), page = req.param("page").value_or("1");
  if (q.size() > 200 || page.empty() || page.size() > 4) return std::nullopt;
  // The decoded parameters the page is rendered from, in a fixed order: "q=kv+cache" and
  // "q=kv%20cache&utm=x" share an entry; "page=01" and "page=1" too.
  char* end = nullptr;
  long n = std::strtol(page.c_str(), &end, 10);
  if (*end != 0 || n < 1 || n > 1000) return std::nullopt;
  std::string page_number = std::to_string(n);
  return cache_key("search", {{"q", q}, {"topic", topic}, {"difficulty", difficulty}, {"page", page_number}});
}

// A search when the index could not be built (SearchIndex::available): 503, not an empty result
// a user would read as "nothing matches". No Retry-After: only a restart builds it again.
Response search_unavailable(const Request& req, const Context& ctx) {
  if (req.path.rfind("/api/", 0) == 0) {
    return json_error(503, {"q", "", "cannot be searched: the search index could not be built (the server's error log says why)", ""});
  }
  return error(req, ctx, 503, "Search is unavailable: its index could not be built. The rest of the site works.");
}

}  // namespace

std::shared_ptr<const std::string> cached_search_answer(const Request& req, const Context& ctx) {
  auto key = search_key(req);
  return key ? ctx.search_cache.find(*key) : nullptr;
}

Response search(const Request& req, const Context& ctx) {
  std::string q = req.param("q").value_or(""), topic = req.param("topic").value_or(""),
              difficulty = req.param("difficulty").value_or("");
  if (q.size() > 200) return error(req, ctx, 400, "The search query is longer than 200 characters.");
  if (!topic.empty() && !ctx.bank.find_topic(topic)) return error(req, ctx, 400, "Unknown topic '" + topic + "'.");
  if (!difficulty.empty() && !bank::parse_difficulty(difficulty)) {
    return error(req, ctx, 400, "Unknown difficulty '" + difficulty + "'; accepted: easy, medium, hard, expert.");
  }
  int page = 1;
  if (auto p = req.param("page")) {
    char* end = nullptr;
    long n = std::strtol(p->c_str(), &end, 10);
    if (p->empty() || *end != 0 || n < 1 || n > 1000) {
      return error(req, ctx, 400, "page '" + p->substr(0, 20) + "' is not a page number; accepted: 1 to 1000.");
    }
    page = static_cast<int>(n);
  }
  // The bank does not change while serving, and the page does not depend on who asks: one
  // rendering serves every later request with the same parameters.
  auto key = search_key(req);
  Response r;
  if (key) {
    if (auto hit = ctx.search_cache.find(*key)) {
      r.held_body = std::move(hit);
      r.shareable = true;
      return r;
    }
  }
  constexpr int kPerPage = 20;
  int total = 0;
  bool timed_out = false;
  auto hits = ctx.search.search_page(q, topic, difficulty, kPerPage, (page - 1) * kPerPage, &total, &timed_out);
  if (!ctx.search.available()) return search_unavailable(req, ctx);
  std::string body = search_page(ctx.site(), q, topic, difficulty, hits, SearchPaging{page, kPerPage, total, timed_out});
  // A search cut short by its time limit is a partial answer: served, never kept.
  if (key && !timed_out) {
    r.held_body = ctx.search_cache.insert(*key, std::move(body));
    r.shareable = true;
  } else {
    r.body = std::move(body);
  }
  return r;
}

Response api_search(const Request& req, const Context& ctx) {
  std::string q = req.param("q").value_or("");
  calc::Errors errors;
  if (q.size() > 200) errors.push_back({"q", q.substr(0, 20) + "...", "is longer than 200 characters", "up to 200 characters"});
  int limit = 8;
  if (auto l = req.param("limit")) {
    char* end = nullptr;
    long n = std::strtol(l->c_str(), &end, 10);
    if (l->empty() || *end != 0 || n < 1 || n > 20) {
      errors.push_back({"limit", l->substr(0, 20), "is not a result count", "1 to 20"});
    } else {
      limit = static_cast<int>(n);
    }
  }
  for (const auto& [k, v] : req.query) {
    if (k != "q" && k != "limit") errors.push_back({k, v.substr(0, 20), "is not a parameter", "q, limit"});
  }
  if (!errors.empty()) return json_error(400, field_errors(errors));
  int total = 0;
  bool timed_out = false;
  auto hits = ctx.search.search_page(q, "", "", limit, 0, &total, &timed_out);
  if (!ctx.search.available()) return search_unavailable(req, ctx);
  ordered_json results = ordered_json::array();
  for (const auto& h : hits) {
    results.push_back({{"kind", h.kind}, {"id", h.id}, {"title", h.title},
                       {"url", h.kind == "question" ? "/q/" + h.id : "/concepts/" + h.id}, {"topic", h.topic},
                       {"difficulty", h.difficulty}});
  }
  return json_text(200, ordered_json{{"query", q}, {"total", total}, {"timed_out", timed_out}, {"results", results}}.dump() + "\n");
}

}  // namespace ridge::web::routes
