// Search: the results page (SQLite FTS5 in memory, paged, with true counts; kept in the shared
// search cache) and the search box's suggestions as JSON.
#pragma once

#include <memory>
#include <string>

#include "web/http.h"
#include "web/routes/context.h"

namespace ridge::web::routes {

// GET /search?q=&topic=&difficulty=&page=: 400 naming a bad parameter; a page cut short by the
// time budget is sent but never kept.
Response search(const Request& req, const Context& ctx);
// GET /api/search?q=...&limit=N: the top hits (1 to 20, default 8) with the true total.
Response api_search(const Request& req, const Context& ctx);

// The cached page that search would send for `req`, or nullptr (Dispatch::kInlineWhenCached).
std::shared_ptr<const std::string> cached_search_answer(const Request& req, const Context& ctx);

}  // namespace ridge::web::routes
