// Take it with you (issue 37): Anki decks, the OpenAPI description, printable courses.
#pragma once

#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "web/export/openapi.h"
#include "web/http.h"
#include "web/router.h"
#include "web/routes/context.h"

namespace ridge::web::routes {

// GET /export/anki?deck=topic:ID|track:ID|course:ID|bookmarks|due: an Anki text-import file
// (export/anki.h). Free questions for everyone, paid ones only with access; bookmarks and due
// need a session (401). Unknown deck: 400 with every accepted name. At most kExportsPerMinute
// exports a minute per account (per address without one), counted in the store so servers
// sharing it share the budget: 429 with Retry-After past it.
Response export_anki(const Request& req, const Context& ctx);
inline constexpr int kExportsPerMinute = 6;

// GET /courses/{id}/print: the whole course on one page for printing (print stylesheet in
// style.css): each module's concepts and questions with their answers shown (paid answers
// only with access), a page break before each question.
Response course_print(const Request& req, const Params& p, const Context& ctx);
// The page's HTML (no store: `paid_access` says whether paid answers are included). `answer`
// gives a question's rendered answer: the server's kept copy (answer_html), or rendered now
// when left empty (the static export renders each once anyway).
std::string course_print_page(const Site& site, const bank::Course& course, bool paid_access,
                              const std::function<std::string(const bank::Question&)>& answer = {});

// GET /api/openapi.json, made once from the route table on first call.
struct OpenApiCache {
  std::once_flag once;
  std::string body;
};
Response openapi(const Request& req, const Context& ctx, const std::vector<exports::RouteEntry>& routes, OpenApiCache& cache);

}  // namespace ridge::web::routes
