#include "web/search.h"

#include <sqlite3.h>

#include <cctype>
#include <stdexcept>

#include "calc/derivation.h"

namespace ridge::web {

namespace {

// Markdown and HTML noise out of the text that is indexed.
std::string plain(std::string_view markdown) {
  std::string out;
  out.reserve(markdown.size());
  for (char c : markdown) {
    if (c == '#' || c == '*' || c == '|' || c == '`' || c == '_') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

void exec(sqlite3* db, const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string message = err ? err : "unknown";
    sqlite3_free(err);
    throw std::runtime_error("search index: " + message);
  }
}

}  // namespace

std::string fts_query(const std::string& query) {
  std::string out, word;
  auto flush = [&] {
    if (word.empty()) return;
    out += (out.empty() ? "" : " AND ") + std::string("\"") + word + "\"*";
    word.clear();
  };
  for (unsigned char c : query) {
    if (std::isalnum(c) || c >= 0x80) {
      word += static_cast<char>(std::tolower(c));
    } else {
      flush();
    }
  }
  flush();
  return out;
}

SearchIndex::SearchIndex(const bank::Bank& bank) {
  if (sqlite3_open(":memory:", &db_) != SQLITE_OK) throw std::runtime_error("search index: cannot open SQLite");
  exec(db_, "CREATE VIRTUAL TABLE docs USING fts5(kind UNINDEXED, id UNINDEXED, topic UNINDEXED, "
            "difficulty UNINDEXED, title, body, tokenize = 'porter unicode61')");
  sqlite3_stmt* insert = nullptr;
  sqlite3_prepare_v2(db_, "INSERT INTO docs VALUES (?, ?, ?, ?, ?, ?)", -1, &insert, nullptr);
  auto add = [&](const char* kind, const std::string& id, const std::string& topic, const std::string& difficulty,
                 const std::string& title, const std::string& body) {
    sqlite3_bind_text(insert, 1, kind, -1, SQLITE_STATIC);
    sqlite3_bind_text(insert, 2, id.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(insert, 3, topic.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(insert, 4, difficulty.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(insert, 5, title.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(insert, 6, body.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_step(insert);
    sqlite3_reset(insert);
  };
  exec(db_, "BEGIN");
  for (const auto& q : bank.questions) {
    add("question", q.slug, q.topic, std::string(bank::difficulty_name(q.difficulty)), q.title,
        q.tldr + "\n" + plain(q.plain_text));
  }
  for (const auto& [id, c] : bank.concepts) add("concept", id, "", "", c.title, c.title);
  exec(db_, "COMMIT");
  sqlite3_finalize(insert);
}

SearchIndex::~SearchIndex() { sqlite3_close(db_); }

std::vector<SearchHit> SearchIndex::search(const std::string& query, const std::string& topic,
                                           const std::string& difficulty, int limit) const {
  std::vector<SearchHit> hits;
  std::string match = fts_query(query);
  if (match.empty()) return hits;
  std::lock_guard<std::mutex> lock(mutex_);
  sqlite3_stmt* stmt = nullptr;
  const char* sql =
      "SELECT kind, id, title, snippet(docs, 5, char(1), char(2), ' … ', 16), topic, difficulty FROM docs "
      "WHERE docs MATCH ?1 AND (?2 = '' OR topic = ?2) AND (?3 = '' OR difficulty = ?3) "
      "ORDER BY bm25(docs, 0, 0, 0, 0, 8.0, 1.0) LIMIT ?4";
  if (sqlite3_prepare_v2(db_, sql, -1, &stmt, nullptr) != SQLITE_OK) return hits;
  sqlite3_bind_text(stmt, 1, match.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(stmt, 2, topic.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(stmt, 3, difficulty.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_int(stmt, 4, limit);
  while (sqlite3_step(stmt) == SQLITE_ROW) {
    auto col = [&](int i) {
      const unsigned char* t = sqlite3_column_text(stmt, i);
      return t ? std::string(reinterpret_cast<const char*>(t)) : std::string();
    };
    std::string snippet = calc::html_escape(col(3));
    for (size_t pos = 0; (pos = snippet.find('\x01', pos)) != std::string::npos;) snippet.replace(pos, 1, "<mark>");
    for (size_t pos = 0; (pos = snippet.find('\x02', pos)) != std::string::npos;) snippet.replace(pos, 1, "</mark>");
    hits.push_back({col(0), col(1), col(2), snippet, col(4), col(5)});
  }
  sqlite3_finalize(stmt);
  return hits;
}

}  // namespace ridge::web
