// `ridge mail weekly` (the week's free question to every confirmed subscriber, once per ISO
// week however often or wherever it runs) and `ridge mail send` (deliver what is queued).
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "calc/registry.h"

namespace CLI {
class App;
}

namespace ridge::cli {

struct MailFlags {
  std::string verb;  // weekly or send: set by the parse
  std::string db = "sqlite:ridge.db";
  std::string mail_dir;  // empty: RIDGE_MAIL_DIR's or the mail configuration's default
  std::string content;   // empty: default_content_dir()
  int64_t now = 0;       // unix seconds standing in for the clock; 0: the system clock
};

// Adds `mail` with its verbs to `parent`, the flags bound to `flags` (which must outlive the parse).
CLI::App* add_mail(CLI::App& parent, MailFlags& flags);

// 0 done; 1 a store failure or a failed queueing; 2 a bad mail environment or no RIDGE_SECRET
// for weekly. Nothing throws out.
int run_mail(const MailFlags& flags, const calc::Registry& registry, const calc::Catalog& catalog, std::ostream& out,
             std::ostream& err);

}  // namespace ridge::cli
