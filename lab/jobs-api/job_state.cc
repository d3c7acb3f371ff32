#include "job_state.h"

namespace ridge::lab {

bool is_terminal(JobState s) {
  return s == JobState::kSucceeded || s == JobState::kFailed || s == JobState::kCancelled;
}

bool can_transition(JobState from, JobState to) {
  switch (from) {
    case JobState::kQueued:
      return to == JobState::kRunning || to == JobState::kCancelled;
    case JobState::kRunning:
      return to == JobState::kSucceeded || to == JobState::kFailed || to == JobState::kCancelled;
    case JobState::kSucceeded:
    case JobState::kFailed:
    case JobState::kCancelled:
      return false;
  }
  return false;
}

const char* to_string(JobState s) {
  switch (s) {
    case JobState::kQueued: return "queued";
    case JobState::kRunning: return "running";
    case JobState::kSucceeded: return "succeeded";
    case JobState::kFailed: return "failed";
    case JobState::kCancelled: return "cancelled";
  }
  return "unknown";
}

}  // namespace ridge::lab
