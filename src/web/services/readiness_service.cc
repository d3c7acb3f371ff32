#include "web/services/readiness_service.h"

#include <sodium.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>

#include <nlohmann/json.hpp>

#include "account/security.h"

namespace ridge::web::services {

ReadinessService::ReadinessService(const bank::Bank& bank, const calc::Registry& registry, const calc::Catalog& catalog,
                                   store::Store& store, const account::Clock& clock, RandomSource& random, const std::string& secret)
    : bank_(bank), registry_(registry), catalog_(catalog), store_(store), clock_(clock), random_(random), key_(crypto_auth_KEYBYTES) {
  account::init_crypto();
  if (!secret.empty()) {
    crypto_generichash(key_.data(), key_.size(), reinterpret_cast<const unsigned char*>(secret.data()), secret.size(), nullptr, 0);
  } else {
    random_.fill(key_.data(), key_.size());
  }
}

std::string ReadinessService::mac(const std::string& message) const {
  unsigned char out[crypto_auth_BYTES];
  crypto_auth(out, reinterpret_cast<const unsigned char*>(message.data()), message.size(), key_.data());
  char hex[crypto_auth_BYTES * 2 + 1];
  sodium_bin2hex(hex, sizeof hex, out, sizeof out);
  return hex;
}

uint64_t ReadinessService::hidden_seed(const std::string& nonce, int n) const {
  std::string h = mac(nonce + ":" + std::to_string(n));
  return std::strtoull(h.substr(0, 15).c_str(), nullptr, 16) % 1000000000ull;
}

Outcome<StartedCheck> ReadinessService::start(int64_t user_id, const std::string& track_id) const {
  StartedCheck check;
  check.track = bank_.find_track(track_id);
  if (!check.track) {
    std::string list;
    for (size_t i = 0; i < bank_.tracks.size(); ++i) {
      list += (i == 0 ? "" : i + 1 == bank_.tracks.size() ? " or " : ", ") + bank_.tracks[i].id;
    }
    return Failure::invalid({"track", track_id, "Choose a track: " + list + ".", list});
  }
  std::mt19937_64 rng(random_.next_u64() % 1000000000ull);
  std::string nonce = random_.hex(16);
  // Topics drawn by the track's weights, only among those the drills cover (a track with
  // none gets questions only): five drills and five self-graded questions.
  auto drill_topics = practice::drill_topics();
  std::vector<std::string> pool;
  for (const auto& [topic, w] : check.track->weights) {
    if (std::find(drill_topics.begin(), drill_topics.end(), topic) == drill_topics.end()) continue;
    for (int i = 0; i < w; ++i) pool.push_back(topic);
  }
  std::string item_list;
  int n = 0;
  for (int i = 0; i < 5 && !pool.empty(); ++i) {
    std::string topic = pool[std::uniform_int_distribution<size_t>(0, pool.size() - 1)(rng)];
    auto d = practice::make_drill(hidden_seed(nonce, n + 1), topic, registry_, catalog_);
    if (!d) continue;
    ++n;
    item_list += "d:" + topic + ";";
    check.items.push_back({n, std::move(d), nullptr});
  }
  std::vector<const bank::Question*> candidates;
  for (const auto& q : bank_.questions) {
    if (check.track->weights.count(q.topic)) candidates.push_back(&q);
  }
  std::shuffle(candidates.begin(), candidates.end(), rng);
  for (size_t i = 0; i < candidates.size() && i < 5; ++i) {
    ++n;
    item_list += "q:" + candidates[i]->slug + ";";
    check.items.push_back({n, std::nullopt, candidates[i]});
  }
  const int64_t now = clock_.now();
  check.deadline = now + kReadinessSeconds;
  // Bound to this visitor and used once: the user id and a nonce are inside what is signed.
  check.payload = check.track->id + "|" + std::to_string(now) + "|" + std::to_string(user_id) + "|" + nonce + "|" + item_list;
  check.mac = mac(check.payload);
  return check;
}

Outcome<ScoredCheck> ReadinessService::finish(int64_t user_id, const std::string& payload, const std::string& given_mac,
                                              const std::function<std::string(int)>& answer) const {
  if (!account::equal_tokens(given_mac, mac(payload))) {
    return Failure::invalid({"mac", given_mac.substr(0, 64), "this readiness check was altered or comes from another server",
                             "the mac the server sent with the check"});
  }
  // track|started|user|nonce|items
  std::vector<std::string> fields;
  size_t a = 0;
  for (size_t b; fields.size() < 4 && (b = payload.find('|', a)) != std::string::npos; a = b + 1) fields.push_back(payload.substr(a, b - a));
  if (fields.size() != 4) return Failure::invalid({"payload", "", "malformed readiness payload", "the payload the server sent"});
  std::string items = payload.substr(a);
  char* end = nullptr;
  int64_t started = std::strtoll(fields[1].c_str(), &end, 10);
  if (fields[1].empty() || *end != 0) return Failure::invalid({"payload", "", "malformed readiness payload", "the payload the server sent"});
  const std::string& nonce = fields[3];
  if (fields[2] != std::to_string(user_id)) {
    return Failure::forbidden({"payload", "", "This readiness check was started by another account.", "a check you started"});
  }
  const int64_t now = clock_.now();
  ScoredCheck out;
  out.track = fields[0];
  out.late = now > started + kReadinessSeconds + 60;
  // Grade everything first, writing nothing: a refused answer (a self-grade of "nan") leaves no
  // drill recorded, so a corrected resubmission does not record them twice.
  std::map<std::string, std::pair<double, int>> per_topic;
  std::vector<store::DrillResult> drills;
  int n = 0;
  for (size_t pos = 0; pos < items.size();) {
    size_t stop = items.find(';', pos);
    std::string item = items.substr(pos, stop - pos);
    pos = stop == std::string::npos ? items.size() : stop + 1;
    ++n;
    std::string given = answer(n);
    double score = 0;
    std::string topic;
    if (item.rfind("d:", 0) == 0) {
      auto d = practice::make_drill(hidden_seed(nonce, n), item.substr(2), registry_, catalog_);
      if (!d) continue;
      topic = d->topic;
      auto g = practice::grade_drill(*d, given);
      bool correct = !out.late && !given.empty() && g.message.empty() && g.correct;
      score = correct ? 1 : 0;
      drills.push_back({d->calculator, d->topic, correct, now});
      out.drills.push_back({n, correct, std::move(*d), given});
    } else {
      const bank::Question* q = bank_.find(item.substr(2));
      if (!q) continue;
      topic = q->topic;
      // A self-grade is a number from 0 to 1 ("0", "0.5", "1"), or nothing (0). NaN and the
      // infinities are refused: std::clamp passes NaN through, and it was stored as "NaN%".
      double self = 0;
      if (!given.empty()) {
        char* stop_at = nullptr;
        self = std::strtod(given.c_str(), &stop_at);
        if (stop_at == given.c_str() || *stop_at != 0 || !std::isfinite(self) || self < 0 || self > 1) {
          return Failure::invalid({"a" + std::to_string(n), given.substr(0, 40), "is not a self-grade",
                                   "a number from 0 to 1 (0, 0.5 or 1)"});
        }
      }
      score = out.late ? 0 : self;
    }
    per_topic[topic].first += score;
    per_topic[topic].second += 1;
  }
  double total = 0;
  int count = 0;
  nlohmann::json detail = {{"late", out.late}, {"nonce", nonce}, {"topics", nlohmann::json::object()}};
  for (const auto& [topic, s] : per_topic) {
    total += s.first;
    count += s.second;
    detail["topics"][topic] = s.first / s.second;
    out.ranked.emplace_back(s.first / s.second, topic);
  }
  out.score = count ? total / count : 0;
  // Single use across servers: the store keeps one result per (user, nonce); the drills are
  // recorded only by the submission that saved it.
  auto saved = store_.save_readiness(user_id, {0, out.track, started, now, out.score, detail.dump(), nonce});
  if (!saved.ok()) return Failure::unavailable("readiness not saved: " + saved.error().message);
  if (*saved == 0) {
    return Failure::conflict({"payload", "", "This readiness check was already submitted; start a new one.", "a new check"});
  }
  for (const auto& drill : drills) {
    if (auto recorded = store_.record_drill(user_id, drill); !recorded.ok()) {
      return Failure::unavailable("readiness drill not recorded: " + recorded.error().message);
    }
  }
  std::sort(out.ranked.begin(), out.ranked.end());
  return out;
}

}  // namespace ridge::web::services
