// For tests of bad input: the message of the std::invalid_argument that `f` throws, or
// "(no exception)" when it throws none, so one EXPECT_EQ checks both that the input was
// refused and that the message names the field and the value.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>

namespace ridge::lab {

inline std::string invalid_argument_message(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no exception)";
}

}  // namespace ridge::lab
