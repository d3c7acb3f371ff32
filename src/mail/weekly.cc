#include "mail/weekly.h"

#include <algorithm>
#include <ctime>

#include "bank/markdown.h"
#include "calc/derivation.h"

namespace ridge::mail {
namespace {

int64_t days_since_epoch(int64_t t) { return t >= 0 ? t / 86400 : (t - 86399) / 86400; }

}  // namespace

std::string iso_week(int64_t unix_seconds) {
  // The ISO week of a day is the week of its Thursday; that Thursday's year is the ISO year.
  int64_t day = days_since_epoch(unix_seconds);
  int weekday = static_cast<int>(((day + 3) % 7 + 7) % 7);  // 0 = Monday (1970-01-01 was a Thursday)
  int64_t thursday = day - weekday + 3;
  std::time_t t = static_cast<std::time_t>(thursday * 86400);
  std::tm tm{};
  gmtime_r(&t, &tm);
  int week = tm.tm_yday / 7 + 1;
  char buf[48];
  std::snprintf(buf, sizeof buf, "%04d-W%02d", tm.tm_year + 1900, week);
  return buf;
}

int64_t week_index(int64_t unix_seconds) {
  int64_t day = days_since_epoch(unix_seconds);
  // Monday 1969-12-29 starts ISO week 1 of 1970.
  int64_t from_monday = day + 3;
  return from_monday >= 0 ? from_monday / 7 : (from_monday - 6) / 7;
}

const bank::Question* pick_weekly(const bank::Bank& bank, int64_t week, const std::vector<std::string>& already_sent) {
  if (bank.topics.empty()) return nullptr;
  size_t n = bank.topics.size(), start = static_cast<size_t>(((week % static_cast<int64_t>(n)) + static_cast<int64_t>(n)) % static_cast<int64_t>(n));
  for (size_t k = 0; k < n; ++k) {
    const auto& topic = bank.topics[(start + k) % n];
    for (size_t i : bank.by_topic(topic.id)) {
      const bank::Question& q = bank.questions[i];
      if (!q.free) continue;
      if (std::find(already_sent.begin(), already_sent.end(), q.slug) != already_sent.end()) continue;
      return &q;
    }
  }
  return nullptr;
}

Message weekly_message(const bank::Bank& bank, const bank::Question& q, const std::string& to, const std::string& base_url,
                       const std::string& unsubscribe_url, const std::string& week) {
  const bank::Topic* topic = bank.find_topic(q.topic);
  std::string topic_name = topic ? topic->name : q.topic, link = base_url + "/q/" + q.slug;
  auto e = [](const std::string& s) { return calc::html_escape(s); };
  Message m;
  m.to = to;
  m.subject = "This week on ridge: " + q.title;
  m.unsubscribe_url = unsubscribe_url;
  m.text = "The ridge question for " + week + " (" + topic_name + ")\n\n" + q.title + "\n\n" + bank::markdown_plain(q.summary) + "\n\nTL;DR: " + bank::markdown_plain(q.tldr) +
           "\n\nTry it before you read the worked answer:\n" + link + "\n\n-- \nYou get this because you subscribed to the weekly question.\n"
           "Unsubscribe (one click): " + unsubscribe_url + "\n";
  m.html = "<!doctype html><html><body style=\"font-family:sans-serif;max-width:40em\"><p style=\"color:#555\">The ridge question for " + e(week) +
           " (" + e(topic_name) + ")</p><h1 style=\"font-size:1.3em\"><a href=\"" + e(link) + "\">" + e(q.title) + "</a></h1><p>" + bank::inline_markdown_html(q.summary) +
           "</p><p><strong>TL;DR:</strong> " + bank::inline_markdown_html(q.tldr) + "</p><p><a href=\"" + e(link) +
           "\">Try it, then read the worked answer</a></p><hr><p style=\"color:#555;font-size:.9em\">You get this because you subscribed to "
           "the weekly question. <a href=\"" + e(unsubscribe_url) + "\">Unsubscribe</a>.</p></body></html>";
  return m;
}

}  // namespace ridge::mail
