#include "web/router.h"

namespace ridge::web {

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> out;
  size_t pos = 1;
  while (pos <= path.size()) {
    size_t slash = path.find('/', pos);
    if (slash == std::string::npos) slash = path.size();
    out.push_back(path.substr(pos, slash - pos));
    pos = slash + 1;
  }
  if (!out.empty() && out.back().empty() && out.size() > 1) out.pop_back();  // "/a/" == "/a"
  return out;
}

void Router::add(std::string method, std::string pattern, Handler handler) {
  routes_.push_back({std::move(method), split_path(pattern), std::move(handler)});
}

Router::Match Router::match(const std::string& method, const std::string& path) const {
  Match result;
  std::vector<std::string> segments = split_path(path);
  for (const auto& route : routes_) {
    if (route.segments.size() != segments.size()) continue;
    Params params;
    bool ok = true;
    for (size_t i = 0; i < segments.size() && ok; ++i) {
      const std::string& p = route.segments[i];
      if (p.size() > 2 && p.front() == '{' && p.back() == '}') {
        if (segments[i].empty()) ok = false;
        params[p.substr(1, p.size() - 2)] = segments[i];
      } else {
        ok = p == segments[i];
      }
    }
    if (!ok) continue;
    bool method_ok = route.method == method || (method == "HEAD" && route.method == "GET");
    if (method_ok) {
      result.handler = &route.handler;
      result.params = std::move(params);
      return result;
    }
    if (result.allow.find(route.method) == std::string::npos) {
      result.allow += (result.allow.empty() ? "" : ", ") + route.method;
      if (route.method == "GET") result.allow += ", HEAD";
    }
  }
  return result;
}

}  // namespace ridge::web
