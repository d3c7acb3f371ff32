#include "web/routes/health_routes.h"

#include <algorithm>
#include <string>
#include <vector>

namespace ridge::web::routes {

Response healthz(const Request&, const Context&) {
  Response r;
  r.content_type = "text/plain; charset=utf-8";
  r.body = "ok\n";
  return r;
}

Response readyz(const Request&, const Context& ctx) {
  store::Store* store = ctx.store();
  bool db = store == nullptr || store->ping();
  bool content = !ctx.bank.topics.empty();
  Response r;
  r.status = db && content ? 200 : 503;
  r.content_type = "text/plain; charset=utf-8";
  r.body = std::string("content ") + (content ? "loaded (" + std::to_string(ctx.bank.questions.size()) + " questions)" : "missing") +
           "\ndatabase " + (store ? store->backend() + (db ? " reachable" : " unreachable") : "not configured") + "\n";
  return r;
}

Response metrics(const Request& req, const Context& ctx) {
  // Scrapes come from the operator's network: loopback, private addresses (RFC 1918, ULA)
  // and trusted proxies. The client is the resolved one: behind a trusted proxy, the address
  // X-Forwarded-For names (the socket peer is the proxy, which let anyone on the internet read
  // the metrics through it).
  static const std::vector<Cidr> kPrivate = [] {
    std::vector<Cidr> v;
    for (const char* c : {"127.0.0.0/8", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "::1/128", "fc00::/7"}) v.push_back(*parse_cidr(c));
    return v;
  }();
  const std::string client = client_address(req, ctx);
  auto inside = [&](const std::vector<Cidr>& blocks) {
    return std::any_of(blocks.begin(), blocks.end(), [&](const Cidr& c) { return cidr_contains(c, client); });
  };
  if (!req.remote.empty() && !inside(kPrivate) && !inside(ctx.trusted_proxies)) return error(req, ctx, 404, "There is no page at /metrics.");
  Response r;
  r.content_type = "text/plain; version=0.0.4; charset=utf-8";
  if (store::Store* store = ctx.store()) {
    if (auto use = store->pool_use()) ctx.metrics.store_pool(use->in_use, use->size);
  }
  r.body = ctx.metrics.text();
  r.set("Cache-Control", "no-store");
  return r;
}

}  // namespace ridge::web::routes
