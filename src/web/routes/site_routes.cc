#include "web/routes/site_routes.h"

#include <algorithm>
#include <string>
#include <vector>

#include "calc/derivation.h"
#include "web/routes/content_routes.h"

namespace ridge::web::routes {

Response robots_txt(const Request&, const Context& ctx) {
  Response r;
  r.content_type = "text/plain; charset=utf-8";
  r.set("Cache-Control", "public, max-age=86400");
  r.body =
      "User-agent: *\n"
      "Disallow: /api/\n"
      "Disallow: /billing/\n"
      "Disallow: /dashboard\n"
      "Disallow: /review\n"
      "Disallow: /readiness\n"
      "Disallow: /settings\n"
      "Disallow: /signin\n"
      "Disallow: /signup\n"
      "Disallow: /reset\n"
      "Disallow: /verify\n"
      "Disallow: /subscribe\n"
      "Disallow: /unsubscribe\n"
      "Disallow: /search\n"
      "Allow: /\n"
      "\n"
      "Sitemap: " + ctx.options.base_url + "/sitemap.xml\n";
  return r;
}

Response sitemap_xml(const Request&, const Context& ctx) {
  std::string body = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n";
  // html_escape covers the five characters XML reserves (a path is data).
  auto add = [&](const std::string& path) { body += "<url><loc>" + calc::html_escape(ctx.options.base_url + path) + "</loc></url>\n"; };
  // The pages rendered at start-up, the pages that list questions and the question pages
  // (both rendered on first request), in the order of their paths, as when one map held them all.
  std::vector<std::string> paths = listing_paths(ctx.bank);
  paths.reserve(ctx.pages.size() + paths.size() + ctx.bank.questions.size());
  for (const auto& [path, page] : ctx.pages) paths.push_back(path);
  for (const auto& q : ctx.bank.questions) paths.push_back("/q/" + q.slug);
  std::sort(paths.begin(), paths.end());
  for (const auto& path : paths) add(path);
  for (const auto& c : ctx.registry.all()) add("/calc/" + c.name);
  add("/drill");
  if (ctx.design != nullptr && !ctx.design->challenges().empty()) {
    add("/design");
    for (const auto& c : ctx.design->challenges()) add("/design/" + c.id);
  }
  add("/pricing");
  body += "</urlset>\n";
  Response r;
  r.content_type = "application/xml; charset=utf-8";
  r.set("Cache-Control", "public, max-age=3600");
  r.body = std::move(body);
  return r;
}

Response favicon(const Request& req, const Context& ctx) {
  const Asset* a = ctx.assets.find(ctx.assets.url("favicon.svg"));
  if (a == nullptr) return error(req, ctx, 404, "There is no page at " + req.path + ".");
  Response r;
  r.content_type = a->content_type;
  r.set("ETag", a->etag);
  r.set("Cache-Control", "public, max-age=86400");
  r.body = a->body;
  return r;
}

}  // namespace ridge::web::routes
