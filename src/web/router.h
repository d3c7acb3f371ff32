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

class Router {
 public:
  // `method` is GET, POST, ...; GET routes also answer HEAD.
  void add(std::string method, std::string pattern, Handler handler);

  struct Match {
    const Handler* handler = nullptr;
    Params params;
    std::string allow;  // when the path matched other methods only
  };
  Match match(const std::string& method, const std::string& path) const;

 private:
  struct Route {
    std::string method;
    std::vector<std::string> segments;
    Handler handler;
  };
  std::vector<Route> routes_;
};

std::vector<std::string> split_path(const std::string& path);

}  // namespace ridge::web
