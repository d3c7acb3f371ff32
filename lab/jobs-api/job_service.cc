#include "job_service.h"

#include <charconv>
#include <optional>
#include <string_view>

namespace ridge::lab {

namespace {

// The cursor format, versioned so it can change without breaking cursors in flight:
// "v1." followed by the last id in hex. Clients treat it as opaque.
constexpr std::string_view kCursorPrefix = "v1.";

std::string encode_cursor(std::uint64_t last_id) {
  char hex[17];
  const auto end = std::to_chars(hex, hex + sizeof hex, last_id, 16).ptr;
  return std::string(kCursorPrefix) + std::string(hex, end);
}

std::optional<std::uint64_t> decode_cursor(const std::string& cursor) {
  if (cursor.size() <= kCursorPrefix.size() || cursor.compare(0, kCursorPrefix.size(), kCursorPrefix) != 0) {
    return std::nullopt;
  }
  const char* first = cursor.data() + kCursorPrefix.size();
  const char* last = cursor.data() + cursor.size();
  std::uint64_t id = 0;
  const auto [ptr, ec] = std::from_chars(first, last, id, 16);
  if (ec != std::errc() || ptr != last) return std::nullopt;
  return id;
}

}  // namespace

CreateResult JobService::create(const std::string& idempotency_key, const std::string& spec) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!idempotency_key.empty()) {
    const auto seen = by_key_.find(idempotency_key);
    if (seen != by_key_.end()) {
      const Job& first = jobs_.at(seen->second);
      return {first.spec == spec ? CreateStatus::kReplayed : CreateStatus::kKeyConflict, first};
    }
  }
  Job job{next_id_++, idempotency_key, spec, JobState::kQueued, false};
  jobs_.emplace(job.id, job);
  if (!idempotency_key.empty()) by_key_.emplace(idempotency_key, job.id);
  return {CreateStatus::kCreated, job};
}

std::optional<Job> JobService::get(std::uint64_t id) const {
  std::lock_guard<std::mutex> lock(mu_);
  const auto it = jobs_.find(id);
  if (it == jobs_.end()) return std::nullopt;
  return it->second;
}

CancelStatus JobService::cancel(std::uint64_t id) {
  std::lock_guard<std::mutex> lock(mu_);
  const auto it = jobs_.find(id);
  if (it == jobs_.end()) return CancelStatus::kNotFound;
  Job& job = it->second;
  switch (job.state) {
    case JobState::kQueued:
      job.cancel_requested = true;
      job.state = JobState::kCancelled;  // nothing is running: done at once
      return CancelStatus::kAccepted;
    case JobState::kRunning:
      job.cancel_requested = true;  // the executor stops it and acknowledges later
      return CancelStatus::kAccepted;
    case JobState::kCancelled:
      return CancelStatus::kAccepted;
    case JobState::kSucceeded:
    case JobState::kFailed:
      return CancelStatus::kAlreadyFinished;
  }
  return CancelStatus::kAlreadyFinished;
}

std::optional<Job> JobService::claim_next() {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [id, job] : jobs_) {
    if (job.state == JobState::kQueued) {
      job.state = JobState::kRunning;
      return job;
    }
  }
  return std::nullopt;
}

TransitionStatus JobService::complete(std::uint64_t id, JobState outcome) {
  std::lock_guard<std::mutex> lock(mu_);
  const auto it = jobs_.find(id);
  if (it == jobs_.end()) return TransitionStatus::kNotFound;
  Job& job = it->second;
  if (job.state != JobState::kRunning || !can_transition(job.state, outcome)) return TransitionStatus::kIllegal;
  if (outcome == JobState::kCancelled && !job.cancel_requested) return TransitionStatus::kIllegal;
  job.state = outcome;
  return TransitionStatus::kOk;
}

ListResult JobService::list(const std::string& cursor, std::size_t limit) const {
  ListResult result;
  if (limit < 1 || limit > kMaxPageSize) {
    result.status = ListStatus::kBadLimit;
    return result;
  }
  std::uint64_t after = 0;
  if (!cursor.empty()) {
    const auto decoded = decode_cursor(cursor);
    if (!decoded) {
      result.status = ListStatus::kBadCursor;
      return result;
    }
    after = *decoded;
  }
  std::lock_guard<std::mutex> lock(mu_);
  auto it = jobs_.upper_bound(after);  // strictly after the last id returned
  for (; it != jobs_.end() && result.jobs.size() < limit; ++it) result.jobs.push_back(it->second);
  if (it != jobs_.end() && !result.jobs.empty()) result.next_cursor = encode_cursor(result.jobs.back().id);
  return result;
}

}  // namespace ridge::lab
