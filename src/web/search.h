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

#include <memory>
#include <mutex>
#include <string>
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
  explicit SearchIndex(const bank::Bank& bank);
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

  // Words of `query` are all required (the last one as a prefix). Empty or word-less
  // queries return nothing. Filters are exact ids; empty means any. `timed_out`, when
  // given, says whether the budget cut the query short (the hits are then partial).
  std::vector<SearchHit> search(const std::string& query, const std::string& topic, const std::string& difficulty,
                                int limit = 30, bool* timed_out = nullptr) const;
  // One page of results from `offset`, and in `total` (when given) how many match in all.
  std::vector<SearchHit> search_page(const std::string& query, const std::string& topic, const std::string& difficulty,
                                     int limit, int offset, int* total, bool* timed_out = nullptr) const;

 private:
  sqlite3* acquire() const;
  void release(sqlite3* db) const;

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
