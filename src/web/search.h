// Full-text search over questions and concepts: SQLite FTS5 in an in-memory database,
// built once at start-up from the loaded bank. Ranked by bm25 (title weighted above body),
// with highlighted snippets. SQLite is already a dependency (the store), and FTS5 gives
// ranking, prefix queries and snippets without another library.
//
// Thread-safe without a lock on the query path: the index is built once, serialized, and
// each concurrent query runs on its own read-only copy taken from a small pool. A query
// holds at most kMaxTerms distinct words, only the last is a prefix (as you type), and it
// runs under a time budget (sqlite3_progress_handler), so no query can stall a worker.
// Paid questions are indexed by title and summary only: their bodies never reach a snippet.
#pragma once

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "bank/bank.h"

struct sqlite3;

namespace ridge::web {

struct SearchHit {
  std::string kind;     // "question" or "concept"
  std::string id;       // slug or concept id
  std::string title;
  std::string snippet_html;  // escaped text with <mark> around matches
  std::string topic, difficulty;
};

class SearchIndex {
 public:
  // Builds the index now, on the calling thread.
  explicit SearchIndex(const bank::Bank& bank);
  // Issue 30 (start-up): builds the index on a thread of its own, so the server listens
  // without waiting for it (the FTS5 build was 19% of start-up at 5,000 questions). A search
  // that comes before the build is done waits for it (at most kReadyWaitMs), so no search is
  // answered from a partial index. `bank` must outlive the index and not change while it is
  // built; `built` (optional) runs on the builder thread once the index no longer reads the bank.
  struct Background {};
  SearchIndex(const bank::Bank& bank, Background, std::function<void()> built = {});
  ~SearchIndex();
  SearchIndex(const SearchIndex&) = delete;
  SearchIndex& operator=(const SearchIndex&) = delete;

  static constexpr int kMaxTerms = 8;
  // A query stops after this much CPU time on its thread (a plain query takes about 2.5 ms of CPU,
  // page included; a hostile one is deduplicated and capped to kMaxTerms), or this much wall time,
  // whichever comes first. The budget was 250 ms of wall time until a fresh clone's test run under
  // load 11 cut "kv cache" short (a count and no rows): waiting for a core is not work the query
  // did, so CPU time is what it is charged for; the wall cap bounds how long anyone waits.
  static constexpr int kBudgetCpuMs = 100;
  static constexpr int kBudgetWallMs = 2000;
  // How long a search waits for a background build (10,000 questions build in about 0.6 s of
  // CPU); past it the search answers nothing with `timed_out` set, as a query over budget does.
  static constexpr int kReadyWaitMs = 30000;

  // Whether the index is built (a background build may still be running).
  bool ready() const;
  // False once a build has ended without an index (SQLite could not build or serialize it):
  // every search then finds nothing, and the search pages answer 503 instead of "no results",
  // so a user and a load balancer can tell a broken index from an empty answer.
  bool available() const;

  // Words of `query` are all required (the last one as a prefix). Empty or word-less
  // queries return nothing. Filters are exact ids; empty means any. `timed_out`, when
  // given, says whether the budget cut the query short (the hits are then partial).
  std::vector<SearchHit> search(const std::string& query, const std::string& topic, const std::string& difficulty,
                                int limit = 30, bool* timed_out = nullptr) const;
  // One page of results from `offset`, and in `total` (when given) how many match in all.
  std::vector<SearchHit> search_page(const std::string& query, const std::string& topic, const std::string& difficulty,
                                     int limit, int offset, int* total, bool* timed_out = nullptr) const;

 private:
  void build(const bank::Bank& bank);
  // A connection to the index; nullptr when none could be had. `waited_out` is set when a
  // background build did not finish within kReadyWaitMs.
  sqlite3* acquire(bool* waited_out = nullptr) const;
  void release(sqlite3* db) const;

  mutable std::mutex ready_mutex_;
  mutable std::condition_variable ready_cv_;
  bool ready_ = false;                // guarded by ready_mutex_; image_ and free_ are set before
  std::thread builder_;               // the background build, joined by the destructor
  std::vector<unsigned char> image_;  // the built index, serialized
  mutable std::mutex pool_mutex_;     // guards the free list only, never held during a query
  mutable std::vector<sqlite3*> free_;
};

// "kv cache" -> "\"kv\" AND \"cache\"*", "zero-3" -> "\"zero 3\"": the query in FTS5 syntax,
// with no operator a user could inject; terms deduplicated and capped at kMaxTerms; a term
// joined by - _ . / is a phrase; the last single word is a prefix when it has four or more
// characters. Empty when the query has no word characters.
std::string fts_query(const std::string& query);

}  // namespace ridge::web
