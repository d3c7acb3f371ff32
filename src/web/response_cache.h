// A bounded cache of rendered response bodies, for routes whose answer depends only on the
// request's parameters: the bank, the catalogs and the calculators do not change while a
// server runs, so an entry is never stale and is only ever evicted for room. Both bounds
// (entries and bytes, keys included) hold after every insert; the least recently used entry
// goes first. Never holds a personal answer: callers insert only what is the same for every
// visitor. Thread-safe; one mutex, held for a hash lookup and a list splice.
#pragma once

#include <cstddef>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ridge::web {

class ResponseCache {
 public:
  ResponseCache(size_t max_entries, size_t max_bytes);

  // The body stored under `key`, or nullptr. The pointer stays valid after an eviction.
  std::shared_ptr<const std::string> find(const std::string& key) const;
  // Stores `body` under `key` (replacing an entry with that key) and evicts down to both
  // bounds. A body larger than max_bytes on its own is not stored. Returns the stored body
  // (or a copy of it when it was too large), for the caller to serve.
  std::shared_ptr<const std::string> insert(const std::string& key, std::string body);

  size_t size() const;
  size_t bytes() const;  // keys and bodies

 private:
  struct Entry {
    std::string key;
    std::shared_ptr<const std::string> body;
  };
  void evict_locked();

  const size_t max_entries_, max_bytes_;
  mutable std::mutex mutex_;
  mutable std::list<Entry> lru_;  // most recently used first
  std::unordered_map<std::string_view, std::list<Entry>::iterator> index_;  // views into lru_ keys
  size_t bytes_ = 0;
};

// A key for a route and its parameters, unambiguous whatever the values hold: each part is
// written with its length ("5:fit\0"), so ("a", "b=c") and ("a=b", "c") differ. Callers pass
// the parameters already normalized (decoded, names canonical, in a fixed order).
std::string cache_key(std::string_view route, const std::vector<std::pair<std::string_view, std::string_view>>& params);

}  // namespace ridge::web
