#include "mail/weekly.h"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <map>

#include <nlohmann/json.hpp>

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
  m.text = "The ridge question for " + week + " (" + topic_name + ")\n\n" + q.title + "\n\n" + bank::markdown_plain(q.summary) + "\n\nTL;DR: " + bank::markdown_plain(q.tldr()) +
           "\n\nTry it before you read the worked answer:\n" + link + "\n\n-- \nYou get this because you subscribed to the weekly question.\n"
           "Unsubscribe (one click): " + unsubscribe_url + "\n";
  m.html = "<!doctype html><html><body style=\"font-family:sans-serif;max-width:40em\"><p style=\"color:#555\">The ridge question for " + e(week) +
           " (" + e(topic_name) + ")</p><h1 style=\"font-size:1.3em\"><a href=\"" + e(link) + "\">" + e(q.title) + "</a></h1><p>" + bank::inline_markdown_html(q.summary) +
           "</p><p><strong>TL;DR:</strong> " + bank::inline_markdown_html(q.tldr()) + "</p><p><a href=\"" + e(link) +
           "\">Try it, then read the worked answer</a></p><hr><p style=\"color:#555;font-size:.9em\">You get this because you subscribed to "
           "the weekly question. <a href=\"" + e(unsubscribe_url) + "\">Unsubscribe</a>.</p></body></html>";
  return m;
}

std::optional<WeakestRound> weakest_round_type(const std::vector<store::Rehearsal>& rehearsals) {
  struct Sum {
    int total = 0, lines = 0, rounds = 0;
    std::string source;
  };
  std::map<std::string, Sum> by_kind;  // ordered: ties go to the kind named first
  for (const auto& r : rehearsals) {  // oldest first: the last source seen is the latest
    if (r.finished_at == 0) continue;
    auto report = nlohmann::json::parse(r.report_json, nullptr, false);
    if (!report.is_object() || !report.contains("rounds") || !report["rounds"].is_array()) continue;
    for (const auto& round : report["rounds"]) {
      if (!round.is_object() || !round.contains("kind") || !round["kind"].is_string() || !round.contains("scores") ||
          !round["scores"].is_object()) {
        continue;
      }
      Sum& sum = by_kind[round["kind"].get<std::string>()];
      for (const auto& [line, v] : round["scores"].items()) {
        if (!v.is_number_integer()) continue;
        sum.total += v.get<int>();
        ++sum.lines;
      }
      ++sum.rounds;
      sum.source = r.source;
    }
  }
  std::optional<WeakestRound> out;
  for (const auto& [kind, sum] : by_kind) {
    if (sum.lines == 0) continue;
    const double mean = static_cast<double>(sum.total) / sum.lines;
    if (!out || mean < out->mean) out = WeakestRound{kind, mean, sum.rounds, sum.source};
  }
  return out;
}

void add_rehearsal_offer(Message& m, const WeakestRound& w, const std::string& base_url) {
  const size_t colon = w.source.find(':');
  const std::string link = base_url + "/rehearse?" + (colon == std::string::npos ? std::string("track=") : w.source.substr(0, colon) + "=") +
                           (colon == std::string::npos ? w.source : w.source.substr(colon + 1));
  char mean[16];
  std::snprintf(mean, sizeof mean, "%.1f", w.mean);
  const std::string line = "Your weakest round type in your rehearsals is " + w.kind + " (a mean of " + mean + " of 4 over " +
                           std::to_string(w.rounds) + " round" + (w.rounds == 1 ? "" : "s") +
                           "). Rehearse it again next week:";
  auto e = [](const std::string& s) { return calc::html_escape(s); };
  if (size_t at = m.text.find("\n\n-- \n"); at != std::string::npos) m.text.insert(at, "\n\n" + line + "\n" + link);
  if (size_t at = m.html.find("<hr>"); at != std::string::npos) {
    m.html.insert(at, "<p id=\"rehearsal-offer\">" + e(line) + " <a href=\"" + e(link) + "\">" + e(link) + "</a></p>");
  }
}

}  // namespace ridge::mail
