// The web application: every route, as functions from a Request to a Response. Pages
// that do not depend on the query are rendered once, at construction, and served from
// memory. No sockets here: server.cc does the I/O and the tests call handle() directly.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "bank/bank.h"
#include "calc/registry.h"
#include "web/assets.h"
#include "web/http.h"
#include "web/router.h"
#include "web/search.h"

namespace ridge::web {

struct AppOptions {
  // Answers /readyz: true when the database is reachable. Empty means no database configured.
  std::function<bool()> database_ready;
};

class App {
 public:
  App(bank::Bank bank, calc::Catalog catalog, calc::Registry registry, Assets assets, AppOptions options = {});

  // Routes, runs the handler, and adds the headers every response carries (security,
  // caching). Never throws: a handler's exception becomes a 500 page.
  Response handle(const Request& req) const;

  // A plain-text error with the standard headers, for failures before routing (a request
  // too large or malformed to parse).
  Response plain_error(int status, const std::string& message) const;

  const bank::Bank& bank() const { return bank_; }
  size_t cached_pages() const { return pages_.size(); }

 private:
  void add_routes();
  Response page(const std::string& path) const;
  Response error(const Request& req, int status, const std::string& message) const;
  void add_standard_headers(Response& res) const;

  Response calc_page(const Request& req, const Params& p) const;
  Response search(const Request& req) const;
  Response calc_diagram(const Request& req, const Params& p) const;
  Response api_calc_list() const;
  Response api_calc(const Request& req, const Params& p) const;
  Response api_questions(const Request& req) const;
  Response api_question(const Params& p) const;

  bank::Bank bank_;
  calc::Catalog catalog_;
  calc::Registry registry_;
  Assets assets_;
  AppOptions options_;
  std::unique_ptr<SearchIndex> search_;
  Router router_;
  struct Cached {
    std::string body;
    std::string etag;
    std::string head;  // every header line of the 200 response, Content-Length included
  };
  std::map<std::string, Cached, std::less<>> pages_;
};

}  // namespace ridge::web
