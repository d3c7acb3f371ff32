#include "store/postgres_store.h"
#include "store/sqlite_store.h"
#include "store/store.h"

#include <algorithm>
#include <cmath>
#include <ctime>

namespace ridge::store {

Result<std::unique_ptr<Store>> open_store(const std::string& url) {
  if (url.rfind("sqlite:", 0) == 0) {
    std::string path = url.substr(7);
    if (path.empty()) return Failure::unavailable("--db 'sqlite:' needs a path; accepted: sqlite:PATH, postgresql://...");
    return open_sqlite(path);
  }
  if (url.rfind("postgresql://", 0) == 0 || url.rfind("postgres://", 0) == 0) return open_postgres(url);
  return Failure::unavailable("--db '" + url + "' is not a database URL; accepted: sqlite:PATH, postgresql://...");
}

int64_t add_months_utc(int64_t unix_seconds, int months) {
  std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  int64_t month_index = static_cast<int64_t>(tm.tm_year) * 12 + tm.tm_mon + months;
  int year = static_cast<int>(month_index / 12), month = static_cast<int>(month_index % 12);
  static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  int full_year = year + 1900;
  bool leap = (full_year % 4 == 0 && full_year % 100 != 0) || full_year % 400 == 0;
  int days = kDays[month] + (month == 1 && leap ? 1 : 0);
  tm.tm_year = year;
  tm.tm_mon = month;
  tm.tm_mday = std::min(tm.tm_mday, days);
  return static_cast<int64_t>(timegm(&tm));
}

double refilled(double tokens, int64_t updated_at, double capacity, double per_second, int64_t now) {
  return std::min(capacity, tokens + static_cast<double>(std::max<int64_t>(now - updated_at, 0)) * per_second);
}

int64_t full_at(double capacity, double per_second, int64_t now) {
  return now + static_cast<int64_t>(std::ceil(capacity / per_second));
}

}  // namespace ridge::store
