// Prepared answers for the server's quick path (issue 30, item 2): for a request target whose
// answer App::handle found to be the same for every anonymous visitor (a cached page, a kept
// calculator or search answer, a free question's API body), the header block and the body as
// they go on the wire, so the next anonymous GET of that target is answered without Beast's
// parser, a Request, the router or the handler (web/quick_request.h says which requests).
//
// Nothing here owns a page: an entry points into the App (pages rendered at start-up) or holds
// a weak reference to what a bounded cache keeps (a lazily rendered page, a kept answer), so
// the caches' bounds on memory still hold, and an evicted answer is a miss, answered by the
// full path, which prepares it again.
//
// Bounded by entries; when full it is emptied (a client that asks for endless distinct targets
// makes the quick path miss, nothing worse). Each I/O thread keeps its own copy of the entries
// it has used, so a hit takes no lock and writes no shared cache line.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "web/http.h"

namespace ridge::web {

struct HotAnswer {
  std::string target;  // the key: the request target as received
  // The header lines after the status line, Server and Date (and Connection, when written):
  // `head` (a cached page's prebuilt block, or `own_head`) and, when `request_id` is set, an
  // X-Request-Id line then `own_tail` (the Content-Length line), as the full path writes them.
  const std::string* head = nullptr;
  std::string own_head, own_tail;
  bool request_id = false;
  const std::string* body = nullptr;
  const BodyFile* file = nullptr;  // the identity body in a memory file, or null
  // The gzip'd copy for a client that accepts gzip (null: the identity answer for everyone).
  const std::string* gzip_head = nullptr;
  const std::string* gzip_body = nullptr;
  // What keeps head and body alive when a bounded cache owns them (`owned`); else the App does.
  std::weak_ptr<const void> owner;
  bool owned = false;
  const std::string* route = nullptr;  // the route's pattern, for the metrics
};

class HotAnswers {
 public:
  explicit HotAnswers(size_t max_entries);

  struct Hit {
    std::shared_ptr<const HotAnswer> answer;  // null on a miss
    std::shared_ptr<const void> owner;        // held while the answer is written
  };
  Hit find(std::string_view target) const;
  void insert(std::shared_ptr<const HotAnswer> answer) const;
  size_t size() const;

 private:
  const uint64_t id_;
  const size_t max_entries_;
  mutable std::mutex mutex_;
  mutable std::unordered_map<std::string_view, std::shared_ptr<const HotAnswer>> table_;  // keys view `target`
  mutable std::atomic<uint64_t> generation_{0};  // bumped when emptied: the threads' copies go too
};

}  // namespace ridge::web
