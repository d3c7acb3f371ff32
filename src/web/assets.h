// Static assets (web/static): loaded once, served under fingerprinted names
// (/static/style.3f9a0c12.css) with an ETag and a one-year immutable cache lifetime.
#pragma once

#include <filesystem>
#include <map>
#include <string>

namespace ridge::web {

struct Asset {
  std::string path;  // "/static/style.3f9a0c12.css"
  std::string content_type;
  std::string body;
  std::string etag;  // "\"3f9a0c12...\""
};

class Assets {
 public:
  // Loads every file in `dir`. Throws std::runtime_error naming a missing directory.
  explicit Assets(const std::filesystem::path& dir);
  Assets() = default;

  // The fingerprinted URL of a logical name ("style.css"); the name itself when unknown.
  std::string url(const std::string& name) const;
  const Asset* find(const std::string& path) const;

 private:
  std::map<std::string, std::string> urls_;  // logical name -> path
  std::map<std::string, Asset> by_path_;
};

// 64-bit FNV-1a as 16 hex digits; stable across runs, for ETags and fingerprints.
std::string content_hash(std::string_view data);

}  // namespace ridge::web
