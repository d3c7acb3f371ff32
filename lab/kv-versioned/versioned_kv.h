// VersionedKv: a key-value store that keeps history, so a read can name the version it
// wants to see (a consistent snapshot without locking writers out).
//
// Contract:
// - Every write (put or erase) gets the next global version: 1, 2, 3, ... Version 0 is
//   the empty store before any write. An erase writes a tombstone (and uses a version even
//   if the key was absent).
// - get_at(key, v) returns the value written by the latest write to `key` with version
//   <= v: kFound with that value and its version, or kNotFound if there is none or it is a
//   tombstone. Reads at a fixed v are repeatable: later writes never change them.
// - A read at a version above current_version() is kFutureVersion, not "latest": it
//   would not be repeatable (writes still to come would change its answer).
// - compact(oldest) forgets history that no read at a version >= oldest can see: for each
//   key the newest write at or below `oldest` is kept, older ones dropped (and a key
//   whose only remaining write is a tombstone is dropped entirely). Reads at versions
//   below oldest_readable() answer kCompacted. oldest is clamped to current_version().
// - scan_at(v) returns every key live at v, sorted by key: a point-in-time snapshot.
// - Thread-safe: readers share a lock, writers take it exclusively.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <shared_mutex>
#include <string>
#include <utility>
#include <vector>

namespace ridge::lab {

enum class ReadStatus { kFound, kNotFound, kFutureVersion, kCompacted };

struct ReadResult {
  ReadStatus status;
  std::string value;          // set when kFound
  std::uint64_t version = 0;  // when kFound: the version of the write that produced value
};

struct ScanResult {
  ReadStatus status;  // kFound (even if empty), kFutureVersion or kCompacted
  std::vector<std::pair<std::string, std::string>> entries;
};

class VersionedKv {
 public:
  std::uint64_t put(const std::string& key, std::string value);  // returns the write's version
  std::uint64_t erase(const std::string& key);                   // returns the tombstone's version

  ReadResult get(const std::string& key) const;  // at current_version()
  ReadResult get_at(const std::string& key, std::uint64_t version) const;
  ScanResult scan_at(std::uint64_t version) const;

  std::size_t compact(std::uint64_t oldest);  // returns history entries dropped

  std::uint64_t current_version() const;
  std::uint64_t oldest_readable() const;
  std::size_t history_size() const;  // stored writes across all keys

 private:
  struct Write {
    std::uint64_t version;
    std::optional<std::string> value;  // nullopt: tombstone
  };

  // The latest write with version <= v in `history` (ascending), or nullptr.
  static const Write* visible(const std::vector<Write>& history, std::uint64_t v);
  std::optional<ReadStatus> check_version(std::uint64_t v) const;  // requires mu_ held

  mutable std::shared_mutex mu_;
  std::uint64_t version_ = 0;                       // guarded by mu_
  std::uint64_t oldest_ = 0;                        // guarded by mu_
  std::map<std::string, std::vector<Write>> data_;  // guarded by mu_; each history ascending
};

}  // namespace ridge::lab
