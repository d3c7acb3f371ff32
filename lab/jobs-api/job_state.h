// The states of a job and the transitions between them.
//
//   queued ──> running ──> succeeded
//     │          ├──────> failed
//     │          └──────> cancelled   (after a cancel request, acknowledged by the executor)
//     └───────────────────> cancelled (a queued job has nothing to stop: at once)
//
// succeeded, failed and cancelled are terminal: nothing leaves them.
#pragma once

namespace ridge::lab {

enum class JobState { kQueued, kRunning, kSucceeded, kFailed, kCancelled };

bool is_terminal(JobState s);
bool can_transition(JobState from, JobState to);
const char* to_string(JobState s);  // "queued", "running", ...

}  // namespace ridge::lab
