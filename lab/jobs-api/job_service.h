// JobService: the in-memory core of a jobs API (POST /jobs, GET /jobs/{id}, GET /jobs,
// POST /jobs/{id}/cancel), without HTTP. Every answer is a value; the HTTP status each
// maps to is noted beside it.
//
// Contract:
// - Ids are assigned 1, 2, 3, ... in creation order and never reused.
// - Idempotency: create() with a key seen before returns the FIRST job created with it
//   (kReplayed) and creates nothing, even under concurrent calls with the same key. The
//   same key with a different spec is a client bug: kKeyConflict, nothing created. An
//   empty key means no idempotency: every call creates.
// - Cancel is asynchronous (202 Accepted): cancel() records the request and returns
//   kAccepted. A queued job has nothing to stop and is cancelled at once; a running job
//   keeps running with cancel_requested set until the executor acknowledges with
//   complete(id, kCancelled). Cancelling a cancelled job is accepted again (idempotent);
//   cancelling a succeeded or failed job is kAlreadyFinished (409). A running job may
//   still finish succeeded or failed after a cancel request: the final state says which won.
// - The executor side: claim_next() moves the oldest queued job to running;
//   complete() moves a running job to succeeded, failed, or (only after a cancel request)
//   cancelled. Any other transition is kIllegal and changes nothing.
// - list() pages through jobs in ascending id order. The cursor is opaque to clients
//   (today it encodes the last id returned); the next page holds the jobs with larger
//   ids. New jobs always get larger ids, so inserts during a walk never shift a page:
//   every job that existed when the walk began is returned exactly once.
// - Every member function is thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "job_state.h"

namespace ridge::lab {

struct Job {
  std::uint64_t id = 0;
  std::string idempotency_key;
  std::string spec;
  JobState state = JobState::kQueued;
  bool cancel_requested = false;
};

enum class CreateStatus {
  kCreated,      // 201
  kReplayed,     // 200: the job first created with this key
  kKeyConflict,  // 422: key reused with a different spec; job is the original
};

struct CreateResult {
  CreateStatus status;
  Job job;
};

enum class CancelStatus {
  kAccepted,         // 202
  kNotFound,         // 404
  kAlreadyFinished,  // 409: succeeded or failed
};

enum class TransitionStatus {
  kOk,        // 200
  kNotFound,  // 404
  kIllegal,   // 409: the state machine forbids it; nothing changed
};

enum class ListStatus {
  kOk,
  kBadCursor,  // 400: not a cursor this service issued
  kBadLimit,   // 400: limit outside 1..kMaxPageSize
};

struct ListResult {
  ListStatus status = ListStatus::kOk;
  std::vector<Job> jobs;
  std::string next_cursor;  // empty: no more jobs right now
};

class JobService {
 public:
  static constexpr std::size_t kMaxPageSize = 1000;

  CreateResult create(const std::string& idempotency_key, const std::string& spec);
  std::optional<Job> get(std::uint64_t id) const;
  CancelStatus cancel(std::uint64_t id);

  std::optional<Job> claim_next();
  TransitionStatus complete(std::uint64_t id, JobState outcome);

  // `cursor` empty for the first page, else a next_cursor from an earlier page.
  ListResult list(const std::string& cursor, std::size_t limit) const;

 private:
  mutable std::mutex mu_;
  std::uint64_t next_id_ = 1;                                // guarded by mu_
  std::map<std::uint64_t, Job> jobs_;                        // guarded by mu_; ordered by id
  std::unordered_map<std::string, std::uint64_t> by_key_;    // guarded by mu_
};

}  // namespace ridge::lab
