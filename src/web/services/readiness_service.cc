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

namespace {

// The signed payload: track|started|user|nonce|items, each item "d:TOPIC:J;" (a drill of the
// topic from the nonce's J-th hidden seed; "d:TOPIC;" before issue 33, J being the item's
// number) or "q:SLUG;" (a self-graded question).
struct Payload {
  std::string track;
  int64_t started = 0;
  std::string user;
  std::string nonce;
  std::vector<std::string> items;
};

std::optional<Payload> parse_payload(const std::string& payload) {
  std::vector<std::string> fields;
  size_t a = 0;
  for (size_t b; fields.size() < 4 && (b = payload.find('|', a)) != std::string::npos; a = b + 1) fields.push_back(payload.substr(a, b - a));
  if (fields.size() != 4 || fields[1].empty()) return std::nullopt;
  Payload p;
  char* end = nullptr;
  p.started = std::strtoll(fields[1].c_str(), &end, 10);
  if (*end != 0) return std::nullopt;
  p.track = fields[0];
  p.user = fields[2];
  p.nonce = fields[3];
  const std::string items = payload.substr(a);
  for (size_t pos = 0; pos < items.size();) {
    size_t stop = items.find(';', pos);
    p.items.push_back(items.substr(pos, stop - pos));
    pos = stop == std::string::npos ? items.size() : stop + 1;
  }
  return p;
}

// A drill item's topic and hidden-seed index (`n`, the item's number, for the old form).
std::pair<std::string, int> drill_item(const std::string& item, int n) {
  std::string rest = item.substr(2);
  size_t colon = rest.find(':');
  if (colon == std::string::npos) return {rest, n};
  return {rest.substr(0, colon), std::atoi(rest.c_str() + colon + 1)};
}

}  // namespace

std::optional<StartedCheck> ReadinessService::rebuild(const std::string& payload, const std::string& given_mac) const {
  auto p = parse_payload(payload);
  if (!p) return std::nullopt;
  StartedCheck check;
  check.track = bank_.find_track(p->track);
  if (!check.track) return std::nullopt;
  int n = 0;
  for (const auto& item : p->items) {
    ++n;
    if (item.rfind("d:", 0) == 0) {
      auto [topic, j] = drill_item(item, n);
      check.items.push_back({n, practice::make_drill(hidden_seed(p->nonce, j), topic, registry_, catalog_), nullptr});
    } else {
      check.items.push_back({n, std::nullopt, bank_.find(item.substr(2))});
    }
  }
  check.deadline = p->started + kReadinessSeconds;
  check.payload = payload;
  check.mac = given_mac;
  return check;
}

Result<std::optional<StartedCheck>> ReadinessService::resume(int64_t user_id) const {
  auto open = store_.find_open_readiness(user_id);
  if (!open.ok()) return Failure::unavailable("open readiness check not read: " + open.error().detail);
  if (!open->has_value()) return std::optional<StartedCheck>();
  const store::OpenReadiness& o = **open;
  // A row another key signed (RIDGE_SECRET changed) or whose time is up is not resumed.
  auto p = parse_payload(o.payload);
  std::optional<StartedCheck> check;
  if (p && p->user == std::to_string(user_id) && account::equal_tokens(o.mac, mac(o.payload)) &&
      clock_.now() < p->started + kReadinessSeconds) {
    check = rebuild(o.payload, o.mac);
  }
  if (!check) {
    if (auto closed = store_.close_readiness(user_id, o.payload); !closed.ok()) {
      return Failure::unavailable("open readiness check not closed: " + closed.error().detail);
    }
    return std::optional<StartedCheck>();
  }
  check->resumed = true;
  return check;
}

Result<Done> ReadinessService::abandon(int64_t user_id) const {
  auto open = store_.find_open_readiness(user_id);
  if (!open.ok()) return Failure::unavailable("open readiness check not read: " + open.error().detail);
  if (open->has_value()) {
    if (auto closed = store_.close_readiness(user_id, (*open)->payload); !closed.ok()) {
      return Failure::unavailable("open readiness check not closed: " + closed.error().detail);
    }
  }
  return Done{};
}

Result<StartedCheck> ReadinessService::start(int64_t user_id, const std::string& track_id) const {
  const bank::Track* track = bank_.find_track(track_id);
  if (!track) {
    std::string list;
    for (size_t i = 0; i < bank_.tracks.size(); ++i) {
      list += (i == 0 ? "" : i + 1 == bank_.tracks.size() ? " or " : ", ") + bank_.tracks[i].id;
    }
    return Failure::invalid({"track", track_id, "Choose a track: " + list + ".", list});
  }
  auto open = resume(user_id);
  if (!open) return open.error();
  if (open->has_value()) return std::move(**open);
  std::mt19937_64 rng(random_.next_u64() % 1000000000ull);
  std::string nonce = random_.hex(16);
  // Topics drawn by the track's weights, only among those the drills cover (a track with
  // none gets questions only): five drills, each of a template the check has not used (issue
  // 33: one check showed the same drill twice), then self-graded questions to ten items.
  auto drill_topics = practice::drill_topics();
  std::vector<std::string> pool;
  for (const auto& [topic, w] : track->weights) {
    if (std::find(drill_topics.begin(), drill_topics.end(), topic) == drill_topics.end()) continue;
    for (int i = 0; i < w; ++i) pool.push_back(topic);
  }
  std::string item_list;
  std::vector<std::string> used_templates;
  int drills = 0;
  // Bounded: 40 draws (there are about 30 templates); a track whose topics have fewer than
  // five templates gets fewer drills and more questions.
  for (int j = 1; j <= 40 && drills < 5 && !pool.empty(); ++j) {
    std::string topic = pool[std::uniform_int_distribution<size_t>(0, pool.size() - 1)(rng)];
    auto d = practice::make_drill(hidden_seed(nonce, j), topic, registry_, catalog_);
    if (!d || std::find(used_templates.begin(), used_templates.end(), d->template_id) != used_templates.end()) continue;
    used_templates.push_back(d->template_id);
    ++drills;
    item_list += "d:" + topic + ":" + std::to_string(j) + ";";
  }
  std::vector<const bank::Question*> candidates;
  for (const auto& q : bank_.questions) {
    if (track->weights.count(q.topic)) candidates.push_back(&q);
  }
  std::shuffle(candidates.begin(), candidates.end(), rng);
  for (size_t i = 0; i < candidates.size() && static_cast<int>(i) + drills < 10; ++i) {
    item_list += "q:" + candidates[i]->slug + ";";
  }
  const int64_t now = clock_.now();
  // Bound to this visitor and used once: the user id and a nonce are inside what is signed.
  std::string payload = track->id + "|" + std::to_string(now) + "|" + std::to_string(user_id) + "|" + nonce + "|" + item_list;
  std::string signature = mac(payload);
  if (auto kept = store_.open_readiness(user_id, {payload, signature, now}); !kept.ok()) {
    return Failure::unavailable("readiness check not kept: " + kept.error().detail);
  }
  auto check = rebuild(payload, signature);
  if (!check) return Failure::internal({"track", track_id, "Could not build the readiness check.", "a track"});
  return std::move(*check);
}

Result<ScoredCheck> ReadinessService::finish(int64_t user_id, const std::string& payload, const std::string& given_mac,
                                              const std::function<std::string(int)>& answer) const {
  if (!account::equal_tokens(given_mac, mac(payload))) {
    return Failure::invalid({"mac", given_mac.substr(0, 64), "this readiness check was altered or comes from another server",
                             "the mac the server sent with the check"});
  }
  auto parsed = parse_payload(payload);
  if (!parsed) return Failure::invalid({"payload", "", "malformed readiness payload", "the payload the server sent"});
  const int64_t started = parsed->started;
  const std::string& nonce = parsed->nonce;
  if (parsed->user != std::to_string(user_id)) {
    return Failure::forbidden({"payload", "", "This readiness check was started by another account.", "a check you started"});
  }
  const int64_t now = clock_.now();
  ScoredCheck out;
  out.track = parsed->track;
  out.late = now > started + kReadinessSeconds + 60;
  // Grade everything first, writing nothing: a refused answer (a self-grade of "nan") leaves no
  // drill recorded, so a corrected resubmission does not record them twice.
  std::map<std::string, std::pair<double, int>> per_topic;
  std::vector<store::DrillResult> drills;
  int n = 0;
  for (const std::string& item : parsed->items) {
    ++n;
    std::string given = answer(n);
    double score = 0;
    std::string topic;
    if (item.rfind("d:", 0) == 0) {
      auto [drill_topic, j] = drill_item(item, n);
      auto d = practice::make_drill(hidden_seed(nonce, j), drill_topic, registry_, catalog_);
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
  if (!saved.ok()) return Failure::unavailable("readiness not saved: " + saved.error().detail);
  // The check is over, on every server: a refresh of /readiness no longer shows it.
  if (auto closed = store_.close_readiness(user_id, payload); !closed.ok()) {
    return Failure::unavailable("open readiness check not closed: " + closed.error().detail);
  }
  if (*saved == 0) {
    return Failure::conflict({"payload", "", "This readiness check was already submitted; start a new one.", "a new check"});
  }
  for (const auto& drill : drills) {
    if (auto recorded = store_.record_drill(user_id, drill); !recorded.ok()) {
      return Failure::unavailable("readiness drill not recorded: " + recorded.error().detail);
    }
  }
  std::sort(out.ranked.begin(), out.ranked.end());
  return out;
}

}  // namespace ridge::web::services
