#include "web/hot_answers.h"

namespace ridge::web {

namespace {
std::atomic<uint64_t> next_id{1};

// One I/O thread's copy of the entries it has used, for one table and one generation of it.
struct Local {
  uint64_t id = 0, generation = 0;
  std::unordered_map<std::string_view, std::shared_ptr<const HotAnswer>> entries;
};
}  // namespace

HotAnswers::HotAnswers(size_t max_entries) : id_(next_id.fetch_add(1)), max_entries_(max_entries) {}

HotAnswers::Hit HotAnswers::find(std::string_view target) const {
  thread_local Local local;
  const uint64_t generation = generation_.load(std::memory_order_acquire);
  if (local.id != id_ || local.generation != generation) {
    local.entries.clear();
    local.id = id_;
    local.generation = generation;
  }
  auto it = local.entries.find(target);
  if (it == local.entries.end()) {
    std::shared_ptr<const HotAnswer> shared;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto found = table_.find(target);
      if (found == table_.end()) return {};
      shared = found->second;
    }
    if (local.entries.size() >= max_entries_) local.entries.clear();
    it = local.entries.emplace(shared->target, std::move(shared)).first;
  }
  Hit hit{it->second, nullptr};
  if (hit.answer->owned) {
    hit.owner = hit.answer->owner.lock();
    if (!hit.owner) {
      // Evicted from its cache: forget it here; the full path prepares it again.
      local.entries.erase(it);
      return {};
    }
  }
  return hit;
}

void HotAnswers::insert(std::shared_ptr<const HotAnswer> answer) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (table_.size() >= max_entries_ && !table_.count(answer->target)) {
    table_.clear();
    generation_.fetch_add(1, std::memory_order_release);
  }
  // Erased first: the key is a view of the entry's own target, which a replaced entry takes along.
  table_.erase(std::string_view(answer->target));
  std::string_view key = answer->target;
  table_.emplace(key, std::move(answer));
}

size_t HotAnswers::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return table_.size();
}

}  // namespace ridge::web
