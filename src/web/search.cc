#include "web/search.h"

#include "bank/markdown.h"

#include <sqlite3.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstring>
#include <ctime>
#include <memory>
#include <stdexcept>

#include "calc/derivation.h"
#include "web/log.h"

namespace ridge::web {

namespace {

// Markdown noise out of the text that is indexed and quoted in snippets: emphasis and
// table marks, footnote markers ([^key]), link destinations and bare URLs. Identifiers keep
// their underscores (TORCH_NCCL_DUMP_ON_TIMEOUT stays whole in a snippet; the tokenizer
// still splits it into words).
std::string plain(std::string_view markdown) {
  std::string out;
  out.reserve(markdown.size());
  for (size_t i = 0; i < markdown.size(); ++i) {
    char c = markdown[i];
    if (markdown.compare(i, 2, "[^") == 0) {  // a footnote marker or definition key
      size_t close = markdown.find(']', i);
      if (close != std::string_view::npos && close - i < 64) {
        i = close;
        continue;
      }
    }
    if (markdown.compare(i, 2, "](") == 0) {  // a link's destination: keep the text, drop the target
      size_t close = markdown.find(')', i);
      if (close != std::string_view::npos) {
        i = close;
        continue;
      }
    }
    if (markdown.compare(i, 7, "http://") == 0 || markdown.compare(i, 8, "https://") == 0) {
      while (i < markdown.size() && !std::isspace(static_cast<unsigned char>(markdown[i]))) ++i;
      out += ' ';
      continue;
    }
    if (c == '#' || c == '*' || c == '|' || c == '`' || c == '[' || c == ']' || c == '{' || c == '}') {
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
  // Terms are split on spaces; a term joined by '-', '_', '.' or '/' ("zero-3", "NCCL_ALGO")
  // becomes a phrase of its parts, so it matches the identifier and not its words apart.
  std::vector<std::vector<std::string>> terms;
  std::vector<std::string> parts;
  std::string word;
  auto end_word = [&] {
    if (!word.empty()) parts.push_back(std::move(word));
    word.clear();
  };
  auto end_term = [&] {
    end_word();
    if (parts.empty()) return;
    if (std::find(terms.begin(), terms.end(), parts) == terms.end() && terms.size() < static_cast<size_t>(SearchIndex::kMaxTerms)) {
      terms.push_back(parts);
    }
    parts.clear();
  };
  for (unsigned char c : query) {
    if (std::isalnum(c) || c >= 0x80) {
      word += static_cast<char>(std::tolower(c));
    } else if (c == '-' || c == '_' || c == '.' || c == '/') {
      end_word();
    } else {
      end_term();
    }
  }
  end_term();
  std::string out;
  for (size_t i = 0; i < terms.size(); ++i) {
    out += i ? " AND " : "";
    std::string phrase;
    for (size_t k = 0; k < terms[i].size(); ++k) phrase += (k ? " " : "") + terms[i][k];
    out += "\"" + phrase + "\"";
    // As-you-type: the last single word is a prefix once it has four characters ("MIG"
    // stays a word and does not find "migration").
    if (i + 1 == terms.size() && terms[i].size() == 1 && terms[i][0].size() >= 4) out += "*";
  }
  return out;
}

SearchIndex::SearchIndex(const bank::Bank& bank) {
  build(bank);
  ready_ = true;
}

SearchIndex::SearchIndex(const bank::Bank& bank, Background, std::function<void()> built) {
  builder_ = std::thread([this, &bank, built = std::move(built)] {
    try {
      build(bank);
    } catch (const std::exception& e) {
      // No index (SQLite could not open or serialize one; before, the server did not start):
      // said in the error log, and available() turns false so the search pages answer 503;
      // never an exception out of a thread.
      log::error(std::string(e.what()) + "; search answers 503 (unavailable) until a restart");
    }
    if (built) built();
    {
      std::lock_guard<std::mutex> lock(ready_mutex_);
      ready_ = true;
    }
    ready_cv_.notify_all();
  });
}

bool SearchIndex::ready() const {
  std::lock_guard<std::mutex> lock(ready_mutex_);
  return ready_;
}

bool SearchIndex::available() const {
  std::lock_guard<std::mutex> lock(ready_mutex_);
  return !ready_ || !image_.empty();  // image_ is set before ready_, under this mutex's release
}

void SearchIndex::build(const bank::Bank& bank) {
  // Every step is checked: an insert that fails (SQLite out of memory, say) fails the build, so
  // the index is whole or absent, never a partial one that answers some searches wrongly.
  std::unique_ptr<sqlite3, decltype(&sqlite3_close)> owner(nullptr, sqlite3_close);
  sqlite3* db = nullptr;
  int opened = sqlite3_open(":memory:", &db);
  owner.reset(db);
  if (opened != SQLITE_OK) throw std::runtime_error("search index: cannot open SQLite");
  exec(db, "CREATE VIRTUAL TABLE docs USING fts5(kind UNINDEXED, id UNINDEXED, topic UNINDEXED, "
            "difficulty UNINDEXED, title, summary, body, tokenize = 'porter unicode61')");
  sqlite3_stmt* raw = nullptr;
  if (sqlite3_prepare_v2(db, "INSERT INTO docs VALUES (?, ?, ?, ?, ?, ?, ?)", -1, &raw, nullptr) != SQLITE_OK) {
    throw std::runtime_error(std::string("search index: ") + sqlite3_errmsg(db));
  }
  std::unique_ptr<sqlite3_stmt, decltype(&sqlite3_finalize)> insert(raw, sqlite3_finalize);
  auto add = [&](const char* kind, const std::string& id, const std::string& topic, const std::string& difficulty,
                 const std::string& title, const std::string& summary, const std::string& body) {
    sqlite3_stmt* st = insert.get();
    sqlite3_bind_text(st, 1, kind, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, id.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 3, topic.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 4, difficulty.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 5, title.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 6, summary.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 7, body.c_str(), -1, SQLITE_TRANSIENT);
    int stepped = sqlite3_step(st);
    sqlite3_reset(st);
    if (stepped != SQLITE_DONE) {
      throw std::runtime_error("search index: cannot add " + std::string(kind) + " '" + id + "': " + sqlite3_errstr(stepped));
    }
  };
  exec(db, "BEGIN");
  for (const auto& q : bank.questions) {
    // A paid answer's text is what the payment buys: index its title and summary only.
    // TL;DR and summary as plain text: a snippet quotes them, and showed their backticks.
    std::string body = q.free ? bank::markdown_plain(q.tldr()) + "\n" + plain(q.plain_text) : "";
    add("question", q.slug, q.topic, std::string(bank::difficulty_name(q.difficulty)), q.title, bank::markdown_plain(q.summary), body);
  }
  // Concept pages are free teaching pages: their text is searched too.
  for (const auto& [id, c] : bank.concepts) add("concept", id, c.topic, "", c.title, bank::markdown_plain(c.summary), plain(bank::html_to_text(c.html)));
  exec(db, "COMMIT");
  insert.reset();
  sqlite3_int64 size = 0;
  unsigned char* bytes = sqlite3_serialize(db, "main", &size, 0);
  if (bytes == nullptr) throw std::runtime_error("search index: cannot serialize");
  image_.assign(bytes, bytes + size);
  sqlite3_free(bytes);
  free_.push_back(owner.release());  // the builder becomes the first reader
}

SearchIndex::~SearchIndex() {
  if (builder_.joinable()) builder_.join();
  for (sqlite3* db : free_) sqlite3_close(db);
}

sqlite3* SearchIndex::acquire(bool* waited_out) const {
  {
    std::unique_lock<std::mutex> lock(ready_mutex_);
    if (!ready_cv_.wait_for(lock, std::chrono::milliseconds(kReadyWaitMs), [this] { return ready_; })) {
      if (waited_out) *waited_out = true;
      return nullptr;
    }
  }
  if (image_.empty()) return nullptr;  // the build failed
  {
    std::lock_guard<std::mutex> lock(pool_mutex_);
    if (!free_.empty()) {
      sqlite3* db = free_.back();
      free_.pop_back();
      return db;
    }
  }
  // A copy of its own for this query; it joins the pool when done.
  sqlite3* db = nullptr;
  if (sqlite3_open(":memory:", &db) != SQLITE_OK) {
    sqlite3_close(db);
    return nullptr;
  }
  auto* copy = static_cast<unsigned char*>(sqlite3_malloc64(image_.size()));
  if (copy == nullptr) {
    sqlite3_close(db);
    return nullptr;
  }
  std::memcpy(copy, image_.data(), image_.size());
  if (sqlite3_deserialize(db, "main", copy, static_cast<sqlite3_int64>(image_.size()),
                          static_cast<sqlite3_int64>(image_.size()),
                          SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_READONLY) != SQLITE_OK) {
    sqlite3_close(db);
    return nullptr;
  }
  return db;
}

void SearchIndex::release(sqlite3* db) const {
  if (db == nullptr) return;
  std::lock_guard<std::mutex> lock(pool_mutex_);
  if (free_.size() < 16) {
    free_.push_back(db);
  } else {
    sqlite3_close(db);
  }
}

std::vector<SearchHit> SearchIndex::search(const std::string& query, const std::string& topic,
                                           const std::string& difficulty, int limit, bool* timed_out) const {
  return search_page(query, topic, difficulty, limit, 0, nullptr, timed_out);
}

namespace {

// CPU time the calling thread has used, in nanoseconds.
int64_t thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace

std::vector<SearchHit> SearchIndex::search_page(const std::string& query, const std::string& topic,
                                                const std::string& difficulty, int limit, int offset, int* total,
                                                bool* timed_out) const {
  std::vector<SearchHit> hits;
  if (timed_out) *timed_out = false;
  if (total) *total = 0;
  std::string match = fts_query(query);
  if (match.empty()) return hits;
  bool waited_out = false;
  sqlite3* db = acquire(&waited_out);
  if (db == nullptr) {
    if (timed_out) *timed_out = waited_out;
    return hits;
  }
  // The budget (kBudgetCpuMs of this thread's CPU time, kBudgetWallMs of wall time): SQLite calls
  // back every 1,000 virtual-machine steps, on the thread running the statement; a non-zero
  // answer interrupts it.
  struct Budget {
    int64_t cpu_deadline_ns = 0;
    std::chrono::steady_clock::time_point wall_deadline;
    bool hit = false;
  } budget{thread_cpu_ns() + int64_t{kBudgetCpuMs} * 1'000'000,
           std::chrono::steady_clock::now() + std::chrono::milliseconds(kBudgetWallMs)};
  sqlite3_progress_handler(
      db, 1000,
      [](void* p) -> int {
        auto* b = static_cast<Budget*>(p);
        if (thread_cpu_ns() < b->cpu_deadline_ns && std::chrono::steady_clock::now() < b->wall_deadline) return 0;
        b->hit = true;
        return 1;
      },
      &budget);
  if (total) {
    // The true count, for "N results" and the pages.
    sqlite3_stmt* count = nullptr;
    if (sqlite3_prepare_v2(db, "SELECT count(*) FROM docs WHERE docs MATCH ?1 AND (?2 = '' OR topic = ?2) AND "
                               "(?3 = '' OR difficulty = ?3)", -1, &count, nullptr) == SQLITE_OK) {
      sqlite3_bind_text(count, 1, match.c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_bind_text(count, 2, topic.c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_bind_text(count, 3, difficulty.c_str(), -1, SQLITE_TRANSIENT);
      if (sqlite3_step(count) == SQLITE_ROW) *total = sqlite3_column_int(count, 0);
    }
    sqlite3_finalize(count);
  }
  sqlite3_stmt* stmt = nullptr;
  // Title weighted above summary above body; the snippet comes from the body, or from the
  // summary when the body did not match (a paid question has no indexed body).
  const char* sql =
      "SELECT kind, id, title, snippet(docs, 6, char(1), char(2), ' … ', 16), topic, difficulty, "
      "snippet(docs, 5, char(1), char(2), ' … ', 24) FROM docs "
      "WHERE docs MATCH ?1 AND (?2 = '' OR topic = ?2) AND (?3 = '' OR difficulty = ?3) "
      "ORDER BY (kind = 'concept' AND id = ?6) DESC, bm25(docs, 0, 0, 0, 0, 10.0, 4.0, 1.0), id LIMIT ?4 OFFSET ?5";
  if (sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr) != SQLITE_OK) {
    sqlite3_progress_handler(db, 0, nullptr, nullptr);
    release(db);
    return hits;
  }
  sqlite3_bind_text(stmt, 1, match.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(stmt, 2, topic.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(stmt, 3, difficulty.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_int(stmt, 4, limit);
  sqlite3_bind_int(stmt, 5, offset);
  // The concept the query names ("kv cache", "MIG": /concepts/kv-cache, /concepts/mig) comes
  // first: the page that defines a term is what a search for the term wants.
  std::string slug;
  for (unsigned char c : query) {
    if (std::isalnum(c)) {
      slug += static_cast<char>(std::tolower(c));
    } else if (!slug.empty() && slug.back() != '-') {
      slug += '-';
    }
  }
  while (!slug.empty() && slug.back() == '-') slug.pop_back();
  sqlite3_bind_text(stmt, 6, slug.c_str(), -1, SQLITE_TRANSIENT);
  while (sqlite3_step(stmt) == SQLITE_ROW) {
    auto col = [&](int i) {
      const unsigned char* t = sqlite3_column_text(stmt, i);
      return t ? std::string(reinterpret_cast<const char*>(t)) : std::string();
    };
    std::string raw = col(3);
    if (raw.find('\x01') == std::string::npos && !col(6).empty()) raw = col(6);
    std::string snippet = calc::html_escape(raw);
    for (size_t pos = 0; (pos = snippet.find('\x01', pos)) != std::string::npos;) snippet.replace(pos, 1, "<mark>");
    for (size_t pos = 0; (pos = snippet.find('\x02', pos)) != std::string::npos;) snippet.replace(pos, 1, "</mark>");
    hits.push_back({col(0), col(1), col(2), snippet, col(4), col(5)});
  }
  sqlite3_finalize(stmt);
  sqlite3_progress_handler(db, 0, nullptr, nullptr);
  release(db);
  if (timed_out) *timed_out = budget.hit;
  return hits;
}

}  // namespace ridge::web
