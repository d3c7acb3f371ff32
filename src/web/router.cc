#include "web/router.h"

#include <array>
#include <string_view>

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

void Router::add(std::string method, std::string pattern, Handler handler, Dispatch dispatch) {
  std::vector<std::string> segments = split_path(pattern);
  routes_.push_back({std::move(method), std::move(segments), std::move(handler), dispatch, std::move(pattern)});
}

namespace {

bool is_capture(const std::string& p) { return p.size() > 2 && p.front() == '{' && p.back() == '}'; }

// The path's segments as views into it, without allocating for the common short path.
size_t split_views(std::string_view path, std::array<std::string_view, 16>& out) {
  size_t n = 0, pos = 1;
  while (pos <= path.size() && n < out.size()) {
    size_t slash = path.find('/', pos);
    if (slash == std::string_view::npos) slash = path.size();
    out[n++] = path.substr(pos, slash - pos);
    pos = slash + 1;
  }
  if (n > 1 && out[n - 1].empty()) --n;  // "/a/" == "/a"
  return pos <= path.size() ? out.size() + 1 : n;  // too deep: matches no route
}

}  // namespace

Router::Match Router::match(const std::string& method, const std::string& path) const {
  Match result;
  std::array<std::string_view, 16> segments;
  size_t count = split_views(path, segments);
  for (const auto& route : routes_) {
    if (route.segments.size() != count) continue;
    bool ok = true;
    for (size_t i = 0; i < count && ok; ++i) {
      const std::string& p = route.segments[i];
      ok = is_capture(p) ? !segments[i].empty() : p == segments[i];
    }
    if (!ok) continue;
    Params params;
    for (size_t i = 0; i < count; ++i) {
      const std::string& p = route.segments[i];
      if (is_capture(p)) params[p.substr(1, p.size() - 2)] = std::string(segments[i]);
    }
    bool method_ok = route.method == method || (method == "HEAD" && route.method == "GET");
    if (method_ok) {
      result.handler = &route.handler;
      result.params = std::move(params);
      result.dispatch = route.dispatch;
      result.pattern = &route.pattern;
      return result;
    }
    if (result.allow.find(route.method) == std::string::npos) {
      result.allow += (result.allow.empty() ? "" : ", ") + route.method;
      if (route.method == "GET") result.allow += ", HEAD";
    }
  }
  return result;
}

std::vector<std::pair<std::string, std::string>> Router::table() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& r : routes_) out.emplace_back(r.method, r.pattern);
  return out;
}

}  // namespace ridge::web
