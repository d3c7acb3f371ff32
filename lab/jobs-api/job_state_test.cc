#include "job_state.h"

#include <string>

#include <gtest/gtest.h>

namespace ridge::lab {
namespace {

constexpr JobState kAll[] = {JobState::kQueued, JobState::kRunning, JobState::kSucceeded, JobState::kFailed,
                             JobState::kCancelled};

TEST(JobState, TheTransitionTableIsExactlyTheDiagram) {
  auto allowed = [](JobState from, JobState to) {
    using S = JobState;
    return (from == S::kQueued && (to == S::kRunning || to == S::kCancelled)) ||
           (from == S::kRunning && (to == S::kSucceeded || to == S::kFailed || to == S::kCancelled));
  };
  for (JobState from : kAll) {
    for (JobState to : kAll) {
      EXPECT_EQ(can_transition(from, to), allowed(from, to)) << to_string(from) << " -> " << to_string(to);
    }
  }
}

TEST(JobState, TerminalStatesHaveNoWayOut) {
  for (JobState s : kAll) {
    bool any_out = false;
    for (JobState to : kAll) any_out = any_out || can_transition(s, to);
    EXPECT_EQ(is_terminal(s), !any_out) << to_string(s);
  }
}

TEST(JobState, NamesAreTheApiStrings) {
  EXPECT_EQ(std::string(to_string(JobState::kQueued)), "queued");
  EXPECT_EQ(std::string(to_string(JobState::kCancelled)), "cancelled");
}

}  // namespace
}  // namespace ridge::lab
