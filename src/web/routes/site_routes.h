// What crawlers and browsers ask every site for (issue 33 item 10): robots.txt, a sitemap and
// /favicon.ico (browsers that ignore the page's <link rel="icon"> ask for it).
#pragma once

#include "web/http.h"
#include "web/routes/context.h"

namespace ridge::web::routes {

// GET /robots.txt: everything public may be crawled; the personal pages, the forms and the API
// are disallowed; names the sitemap.
Response robots_txt(const Request& req, const Context& ctx);
// GET /sitemap.xml: every public page (the pages cache, the calculators, the diagrams), as
// absolute URLs under the site's base URL (sitemaps.org protocol 0.9).
Response sitemap_xml(const Request& req, const Context& ctx);
// GET /favicon.ico: the site's icon (an SVG; browsers read the type, not the name).
Response favicon(const Request& req, const Context& ctx);

}  // namespace ridge::web::routes
