// Pages rendered on their first request and kept in a cache bounded by bytes (issue 30,
// item 3). Rendering every question page (and a paid question's locked and paywalled copies)
// before listening made start-up and memory grow with the bank: 10,000 questions took 6 to
// 67 s and 1.1 GB (bench/README.md). A question page now costs nothing until someone asks
// for it, and the pages nobody asked for lately make room for the ones they do.
//
// Thread-safe. Concurrent first requests for one page render it once: the first caller
// renders (outside the lock) and the others wait for its result (single flight), so a
// burst of requests for a cold page costs one render, and every caller gets the same bytes
// and the same ETag. Least recently used pages go first when the bytes pass the bound; the
// page just rendered always stays (a page larger than the bound is served and kept alone).
#pragma once

#include <cstddef>
#include <functional>
#include <future>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "web/routes/cached_page.h"

namespace ridge::web::routes {

class LazyPages {
 public:
  // The page at `path`, or nullopt when there is no such page (nothing is kept for it, so
  // requests for unknown paths cannot fill the cache).
  using Render = std::function<std::optional<CachedPage>(const std::string& path)>;

  LazyPages(size_t max_bytes, Render render) : max_bytes_(max_bytes), render_(std::move(render)) {}

  // The page, rendered now when it is not kept; nullptr when there is no such page. An
  // exception from the renderer reaches every caller waiting for that page, and the page
  // is tried again on the next request.
  std::shared_ptr<const CachedPage> get(const std::string& path) const;
  // The page if it is kept and rendered; never renders (the server's inline check).
  std::shared_ptr<const CachedPage> peek(const std::string& path) const;

  size_t bytes() const;    // of the kept pages (bodies and header blocks)
  size_t entries() const;  // kept pages, rendered or being rendered
  size_t renders() const;  // pages rendered since start (each miss of a known page, once)
  size_t max_bytes() const { return max_bytes_; }

 private:
  using Page = std::shared_ptr<const CachedPage>;
  struct Slot {
    std::shared_future<Page> page;
    std::list<std::string>::iterator lru;  // valid once rendered
    size_t bytes = 0;
    bool ready = false;
  };
  void evict_locked(const std::string& keep) const;

  const size_t max_bytes_;
  const Render render_;
  mutable std::mutex mu_;
  mutable std::unordered_map<std::string, Slot> slots_;
  mutable std::list<std::string> lru_;  // most recent first; rendered pages only
  mutable size_t bytes_ = 0;
  mutable size_t renders_ = 0;
};

}  // namespace ridge::web::routes
