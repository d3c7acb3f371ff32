#include "web/routes/course_routes.h"

#include "web/course_pages.h"

namespace ridge::web::routes {

Response course(const Request& req, const Params& p, const Context& ctx) {
  auto it = ctx.bank.courses.find(p.at("id"));
  if (it == ctx.bank.courses.end()) return error(req, ctx, 404, "There is no course '" + p.at("id") + "'; see /courses.");
  services::Visitor v = visitor(req, ctx);
  if (v.user_id == 0) return page(ctx, "/courses/" + it->first);
  auto cards = ctx.store()->cards(v.user_id);
  if (!cards.ok()) return failure(req, ctx, cards.error());
  auto progress = course_progress(it->second, *cards, ctx.now());
  Response r;
  r.body = course_page(ctx.site(), it->second, &progress);
  r.personal = true;
  return r;
}

}  // namespace ridge::web::routes
