#include "web/assets.h"

#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace ridge::web {
namespace fs = std::filesystem;

std::string content_hash(std::string_view data) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : data) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

namespace {
std::string type_of(const fs::path& p) {
  std::string ext = p.extension().string();
  if (ext == ".css") return "text/css; charset=utf-8";
  if (ext == ".js") return "text/javascript; charset=utf-8";
  if (ext == ".svg") return "image/svg+xml";
  if (ext == ".png") return "image/png";
  if (ext == ".ico") return "image/x-icon";
  if (ext == ".woff2") return "font/woff2";
  return "application/octet-stream";
}
}  // namespace

Assets::Assets(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw std::runtime_error("static directory " + dir.string() + " does not exist");
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    Asset a;
    a.body = ss.str();
    std::string hash = content_hash(a.body);
    a.etag = "\"" + hash + "\"";
    a.content_type = type_of(entry.path());
    a.path = "/static/" + entry.path().stem().string() + "." + hash.substr(0, 10) + entry.path().extension().string();
    urls_[entry.path().filename().string()] = a.path;
    by_path_[a.path] = std::move(a);
  }
}

std::string Assets::url(const std::string& name) const {
  auto it = urls_.find(name);
  return it == urls_.end() ? "/static/" + name : it->second;
}

const Asset* Assets::find(const std::string& path) const {
  auto it = by_path_.find(path);
  return it == by_path_.end() ? nullptr : &it->second;
}

}  // namespace ridge::web
