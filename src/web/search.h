// Full-text search over questions and concepts: SQLite FTS5 in an in-memory database,
// built once at start-up from the loaded bank. Ranked by bm25 (title weighted above body),
// with highlighted snippets. SQLite is already a dependency (the store), and FTS5 gives
// ranking, prefix queries and snippets without another library. Thread-safe.
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

  // Words of `query` are matched as prefixes, all required. Empty or word-less queries
  // return nothing. Filters are exact ids; empty means any.
  std::vector<SearchHit> search(const std::string& query, const std::string& topic, const std::string& difficulty,
                                int limit = 30) const;

 private:
  sqlite3* db_ = nullptr;
  mutable std::mutex mutex_;
};

// "kv cach" -> "\"kv\"* AND \"cach\"*": the query in FTS5 syntax, with no operator a user
// could inject. Empty when the query has no word characters.
std::string fts_query(const std::string& query);

}  // namespace ridge::web
