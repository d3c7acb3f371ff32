#include "web/response_cache.h"

namespace ridge::web {

ResponseCache::ResponseCache(size_t max_entries, size_t max_bytes) : max_entries_(max_entries), max_bytes_(max_bytes) {}

std::shared_ptr<const std::string> ResponseCache::find(const std::string& key) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = index_.find(key);
  if (it == index_.end()) return nullptr;
  lru_.splice(lru_.begin(), lru_, it->second);
  return it->second->body;
}

std::shared_ptr<const std::string> ResponseCache::insert(const std::string& key, std::string body) {
  auto stored = std::make_shared<const std::string>(std::move(body));
  size_t cost = key.size() + stored->size();
  if (cost > max_bytes_ || max_entries_ == 0) return stored;
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto it = index_.find(key); it != index_.end()) {
    auto old = it->second;
    bytes_ -= old->key.size() + old->body->size();
    index_.erase(it);
    lru_.erase(old);
  }
  lru_.push_front(Entry{key, stored});
  index_.emplace(lru_.front().key, lru_.begin());
  bytes_ += cost;
  evict_locked();
  return stored;
}

void ResponseCache::evict_locked() {
  while (!lru_.empty() && (lru_.size() > max_entries_ || bytes_ > max_bytes_)) {
    const Entry& last = lru_.back();
    bytes_ -= last.key.size() + last.body->size();
    index_.erase(last.key);
    lru_.pop_back();
  }
}

size_t ResponseCache::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return lru_.size();
}
size_t ResponseCache::bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return bytes_;
}
std::string cache_key(std::string_view route, const std::vector<std::pair<std::string_view, std::string_view>>& params) {
  std::string key;
  auto part = [&key](std::string_view s) {
    key += std::to_string(s.size());
    key += ':';
    key += s;
    key += '\0';
  };
  part(route);
  for (const auto& [name, value] : params) {
    part(name);
    part(value);
  }
  return key;
}

}  // namespace ridge::web
