// A question for the terminal (`ridge show`): the prose with references filled in and each
// calc block as the text chain `ridge calc` prints.
#pragma once

#include <string>

#include "bank/question.h"

namespace ridge::bank {

std::string render_terminal(const Question& q);

}  // namespace ridge::bank
