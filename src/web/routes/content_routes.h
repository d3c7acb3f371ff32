// Content pages: everything rendered from the bank and served from memory (home, topics,
// tracks, difficulties, concepts, companies, courses' overviews and calculators' example pages
// at start-up; questions on first request), the question API, and the static files.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "web/app_options.h"
#include "web/http.h"
#include "web/pages.h"
#include "web/router.h"
#include "web/routes/context.h"

namespace ridge::web::routes {

// Every page that does not depend on the visitor or the query, rendered once, with the header
// blocks (the standard headers, its ETag, public caching) prepared beside each body. With
// `with_questions` false (the server) the question pages are left out: they are rendered on
// first request (render_question_page, LazyPages); the static export keeps them all. With
// `with_listings` false (the server) so are the pages that list questions (listing_paths):
// they grow with the bank (52 MB at 10,000 questions, a concept page 1.05 MB; issue 30).
PageCache render_pages(const Site& site, const AppOptions& options, const services::WorkService* work = nullptr,
                       bool with_questions = true, bool with_listings = true);
// The pages that list questions: "/topics/ID", "/tracks/ID", "/easy" (each difficulty),
// "/concepts/ID", "/companies/ID", in that order.
std::vector<std::string> listing_paths(const bank::Bank& bank);
// One of listing_paths' pages by its path; nullopt for any other path.
std::optional<CachedPage> render_listing_page(const Site& site, const std::string& path);
// A question page by its path: "/q/SLUG", or a paid question's "/q/SLUG#locked" and
// "/q/SLUG#paywall"; nullopt for any other path. With `work` (a server with a store), a
// workable question's page links to Work it (planning the question, once, the first time).
std::optional<CachedPage> render_question_page(const Site& site, const AppOptions& options,
                                               const services::WorkService* work, const std::string& path);

// The path a fixed page is kept under: `path` without a trailing slash ("/" stays).
std::string page_path(const std::string& path);
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
// /api/questions/SLUG's body for a reader entitled to it; kept in the page cache under
// kApiQuestionKey (the App's renderer calls this on the first request).
std::string api_question_body(const Context& ctx, const bank::Question& q);
// GET /static/{file}: an asset with its ETag, kept a year (the name changes with the bytes).
Response static_file(const Request& req, const Context& ctx);

}  // namespace ridge::web::routes
