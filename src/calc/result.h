// calc's names for the shared result type (common/result.h, issue 30 item 1): the engine never
// throws on bad input; it returns a Result, and the edges (CLI, HTTP) turn the errors into messages.
#pragma once

#include "common/result.h"

namespace ridge::calc {

using ridge::Errors;
using ridge::FieldError;
using ridge::Result;
using ridge::to_string;

}  // namespace ridge::calc
