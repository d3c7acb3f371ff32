// Routes a method and path to a handler. Patterns are literal segments and {name} captures:
// "/q/{slug}". A path that matches with another method gets 405 with an Allow header.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "web/http.h"

namespace ridge::web {

using Params = std::map<std::string, std::string>;
using Handler = std::function<Response(const Request&, const Params&)>;

// Where the server runs a route's handler: on the I/O thread (answers from memory that
// never block: cached pages, static files, health), on the I/O thread when the request
// carries no session cookie (pages that only read the store for signed-in visitors), or
// on the bounded worker pool (anything that may hash, query the store or search), or on the
// I/O thread when the App holds the answer in a cache already and on the pool otherwise
// (the calculator API, search).
enum class Dispatch { kWorker, kInline, kInlineAnonymous, kInlineWhenCached };

class Router {
 public:
  // `method` is GET, POST, ...; GET routes also answer HEAD.
  void add(std::string method, std::string pattern, Handler handler, Dispatch dispatch = Dispatch::kWorker);

  struct Match {
    const Handler* handler = nullptr;
    Params params;
    std::string allow;  // when the path matched other methods only
    Dispatch dispatch = Dispatch::kInline;  // no route (404, 405): answered from memory
    const std::string* pattern = nullptr;   // the route's pattern ("/q/{slug}"), for metrics
  };
  Match match(const std::string& method, const std::string& path) const;
  // Every route's method and pattern in the order added (the OpenAPI description reads it).
  std::vector<std::pair<std::string, std::string>> table() const;

 private:
  struct Route {
    std::string method;
    std::vector<std::string> segments;
    Handler handler;
    Dispatch dispatch;
    std::string pattern;
  };
  std::vector<Route> routes_;
};

std::vector<std::string> split_path(const std::string& path);

}  // namespace ridge::web
