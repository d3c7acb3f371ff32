#include "versioned_kv.h"

#include <algorithm>
#include <mutex>

namespace ridge::lab {

std::uint64_t VersionedKv::put(const std::string& key, std::string value) {
  std::unique_lock lock(mu_);
  data_[key].push_back({++version_, std::move(value)});
  return version_;
}

std::uint64_t VersionedKv::erase(const std::string& key) {
  std::unique_lock lock(mu_);
  data_[key].push_back({++version_, std::nullopt});
  return version_;
}

const VersionedKv::Write* VersionedKv::visible(const std::vector<Write>& history, std::uint64_t v) {
  // First write with version > v; the one before it is visible at v.
  const auto it = std::upper_bound(history.begin(), history.end(), v,
                                   [](std::uint64_t x, const Write& w) { return x < w.version; });
  return it == history.begin() ? nullptr : &*(it - 1);
}

std::optional<ReadStatus> VersionedKv::check_version(std::uint64_t v) const {
  if (v > version_) return ReadStatus::kFutureVersion;
  if (v < oldest_) return ReadStatus::kCompacted;
  return std::nullopt;
}

ReadResult VersionedKv::get(const std::string& key) const {
  std::shared_lock lock(mu_);
  const auto it = data_.find(key);
  if (it == data_.end() || !it->second.back().value) return {ReadStatus::kNotFound, {}, 0};
  return {ReadStatus::kFound, *it->second.back().value, it->second.back().version};
}

ReadResult VersionedKv::get_at(const std::string& key, std::uint64_t version) const {
  std::shared_lock lock(mu_);
  if (const auto bad = check_version(version)) return {*bad, {}, 0};
  const auto it = data_.find(key);
  if (it == data_.end()) return {ReadStatus::kNotFound, {}, 0};
  const Write* w = visible(it->second, version);
  if (w == nullptr || !w->value) return {ReadStatus::kNotFound, {}, 0};
  return {ReadStatus::kFound, *w->value, w->version};
}

ScanResult VersionedKv::scan_at(std::uint64_t version) const {
  std::shared_lock lock(mu_);
  ScanResult r{ReadStatus::kFound, {}};
  if (const auto bad = check_version(version)) {
    r.status = *bad;
    return r;
  }
  for (const auto& [key, history] : data_) {
    const Write* w = visible(history, version);
    if (w != nullptr && w->value) r.entries.emplace_back(key, *w->value);
  }
  return r;
}

std::size_t VersionedKv::compact(std::uint64_t oldest) {
  std::unique_lock lock(mu_);
  oldest = std::min(oldest, version_);
  if (oldest <= oldest_) return 0;
  oldest_ = oldest;
  std::size_t dropped = 0;
  for (auto it = data_.begin(); it != data_.end();) {
    auto& history = it->second;
    // Keep the write visible at `oldest` (the base) and everything newer.
    const auto newer = std::upper_bound(history.begin(), history.end(), oldest,
                                        [](std::uint64_t x, const Write& w) { return x < w.version; });
    if (newer != history.begin()) {
      const auto base = newer - 1;
      dropped += static_cast<std::size_t>(base - history.begin());
      history.erase(history.begin(), base);
      // A tombstone base with nothing after it: the key is simply absent from `oldest` on.
      if (history.size() == 1 && !history.front().value) {
        ++dropped;
        it = data_.erase(it);
        continue;
      }
    }
    ++it;
  }
  return dropped;
}

std::uint64_t VersionedKv::current_version() const {
  std::shared_lock lock(mu_);
  return version_;
}

std::uint64_t VersionedKv::oldest_readable() const {
  std::shared_lock lock(mu_);
  return oldest_;
}

std::size_t VersionedKv::history_size() const {
  std::shared_lock lock(mu_);
  std::size_t n = 0;
  for (const auto& [key, history] : data_) n += history.size();
  return n;
}

}  // namespace ridge::lab
