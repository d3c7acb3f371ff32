// Content pages: everything rendered from the bank at start-up and served from memory (home,
// topics, tracks, difficulties, concepts, companies, courses' overviews, questions and
// calculators' example pages), the question API, and the static files.
#pragma once

#include "web/app_options.h"
#include "web/http.h"
#include "web/pages.h"
#include "web/router.h"
#include "web/routes/context.h"

namespace ridge::web::routes {

// Every page that does not depend on the visitor or the query, rendered once, with the header
// blocks (the standard headers, its ETag, public caching) prepared beside each body. With
// `work` (a server with a store), a workable question's page links to Work it; planning every
// question here fills the service's plan cache, so no Work it request pays for it.
PageCache render_pages(const Site& site, const AppOptions& options, const services::WorkService* work = nullptr);

// GET a fixed page ("/", "/topics/{id}", ...; a trailing slash is ignored) from the cache.
Response cached_page(const Request& req, const Context& ctx);
// GET /diagrams: the page as cached, at that path only.
Response diagrams(const Request& req, const Context& ctx);
// GET /q/{slug}: a free question as cached; a paid one, for a visitor without an account, the
// locked copy, without access the paywall (402), with access the answer (all personal).
Response question(const Request& req, const Params& p, const Context& ctx);
// GET /api/questions?topic=&difficulty=&company=: the listing (a paid TL;DR for accounts only).
Response api_questions(const Request& req, const Context& ctx);
// GET /api/questions/{slug}: a question with its results and HTML (a paid one: 401 without a
// session, 402 naming the price without access).
Response api_question(const Request& req, const Params& p, const Context& ctx);
// GET /static/{file}: an asset with its ETag, kept a year (the name changes with the bytes).
Response static_file(const Request& req, const Context& ctx);

}  // namespace ridge::web::routes
