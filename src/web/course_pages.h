// Course pages (see course_pages.cc). Progress is derived from the visitor's cards: a module
// is done when each of its questions has been reviewed and none is due.
#pragma once

#include <string>
#include <vector>

#include "bank/question.h"
#include "store/store.h"
#include "web/pages.h"

namespace ridge::web {

struct ModuleProgress {
  int reviewed = 0, total = 0, due = 0;
};

std::vector<ModuleProgress> course_progress(const bank::Course& course, const std::vector<store::Card>& cards, int64_t now);
// The first module not done, or -1 when every module is done.
int resume_module(const std::vector<ModuleProgress>& progress);

std::string courses_index(const Site& site);
// `progress` null: the page for a visitor without a session (rendered once at start-up).
std::string course_page(const Site& site, const bank::Course& c, const std::vector<ModuleProgress>* progress);

}  // namespace ridge::web
