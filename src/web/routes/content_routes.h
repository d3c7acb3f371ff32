// Content pages: everything rendered from the bank and served from memory (home, topics,
// tracks, difficulties, concepts, companies, courses' overviews and calculators' example pages
// at start-up; questions on first request), the question API, and the static files.
#pragma once

#include <optional>
#include <string>

#include "web/app_options.h"
#include "web/http.h"
#include "web/pages.h"
#include "web/router.h"
#include "web/routes/context.h"

namespace ridge::web::routes {

// Every page that does not depend on the visitor or the query, rendered once, with the header
// blocks (the standard headers, its ETag, public caching) prepared beside each body. With
// `with_questions` false (the server) the question pages are left out: they are rendered on
// first request (render_question_page, LazyPages); the static export keeps them all.
PageCache render_pages(const Site& site, const AppOptions& options, const services::WorkService* work = nullptr,
                       bool with_questions = true);
// A question page by its path: "/q/SLUG", or a paid question's "/q/SLUG#locked" and
// "/q/SLUG#paywall"; nullopt for any other path. With `work` (a server with a store), a
// workable question's page links to Work it (planning the question, once, the first time).
std::optional<CachedPage> render_question_page(const Site& site, const AppOptions& options,
                                               const services::WorkService* work, const std::string& path);

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
