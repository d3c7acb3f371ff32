#include "web/routes/lazy_pages.h"

namespace ridge::web::routes {

std::shared_ptr<const CachedPage> LazyPages::get(const std::string& path) const {
  std::promise<Page> promise;
  {
    std::unique_lock<std::mutex> lock(mu_);
    auto it = slots_.find(path);
    if (it != slots_.end()) {
      std::shared_future<Page> page = it->second.page;
      if (it->second.ready) {
        lru_.splice(lru_.begin(), lru_, it->second.lru);
      } else {
        lock.unlock();  // another request is rendering it: wait for that one, outside the lock
      }
      return page.get();
    }
    slots_.emplace(path, Slot{promise.get_future().share(), lru_.end(), 0, false});
  }
  std::optional<CachedPage> made;
  try {
    made = render_(path);
  } catch (...) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      slots_.erase(path);
    }
    promise.set_exception(std::current_exception());
    throw;
  }
  if (!made) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      slots_.erase(path);
    }
    promise.set_value(nullptr);
    return nullptr;
  }
  auto page = std::make_shared<const CachedPage>(std::move(*made));
  {
    std::lock_guard<std::mutex> lock(mu_);
    Slot& slot = slots_.at(path);  // only this call erases a slot that is not ready
    slot.bytes = page->body.size() + page->head.size() + page->personal_head.size() + page->etag.size() + path.size() +
                 page->gzip.body.size() + page->gzip.head.size() + page->gzip.etag.size() + (page->file ? page->file->size : 0);
    slot.ready = true;
    lru_.push_front(path);
    slot.lru = lru_.begin();
    bytes_ += slot.bytes;
    ++renders_;
    evict_locked(path);
  }
  promise.set_value(page);
  return page;
}

std::shared_ptr<const CachedPage> LazyPages::peek(const std::string& path) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = slots_.find(path);
  if (it == slots_.end() || !it->second.ready) return nullptr;
  return it->second.page.get();
}

void LazyPages::evict_locked(const std::string& keep) const {
  while (bytes_ > max_bytes_ && !lru_.empty() && lru_.back() != keep) {
    auto it = slots_.find(lru_.back());
    bytes_ -= it->second.bytes;
    slots_.erase(it);  // a response still sending the page holds it (Response::owner)
    lru_.pop_back();
  }
}

size_t LazyPages::bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return bytes_;
}

size_t LazyPages::entries() const {
  std::lock_guard<std::mutex> lock(mu_);
  return slots_.size();
}

size_t LazyPages::renders() const {
  std::lock_guard<std::mutex> lock(mu_);
  return renders_;
}

}  // namespace ridge::web::routes
