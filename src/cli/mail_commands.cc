#include "cli/mail_commands.h"

#include <cstdlib>
#include <ctime>

#include "account/clock.h"
#include "bank/loader.h"
#include "cli/bank_commands.h"
#include "mail/mail.h"
#include "mail/sender.h"
#include "mail/weekly.h"
#include "store/store.h"

namespace ridge::cli {

namespace {

const char* kUsage =
    "Usage: ridge mail weekly [--db URL] [--mail-dir DIR] [--content DIR]\n"
    "       ridge mail send [--db URL] [--mail-dir DIR]\n"
    "weekly queues the week's free question for every confirmed subscriber (once per ISO week: a second run, here or\n"
    "on another machine, queues nothing) and delivers the queue; send delivers what is queued.\n"
    "Mail goes through RIDGE_SMTP_URL (RIDGE_SMTP_USER, RIDGE_SMTP_PASSWORD), or as .eml files into --mail-dir.\n"
    "RIDGE_SECRET signs the unsubscribe links and must be the one `ridge serve` has; RIDGE_BASE_URL makes the links.\n"
    "--now UNIX stands in for the clock (tests that cross weeks).\n";

}  // namespace

int run_mail(const std::vector<std::string>& args, const calc::Registry& registry, const calc::Catalog& catalog, std::ostream& out,
             std::ostream& err) {
  if (args.empty() || args[0] == "--help" || (args[0] != "weekly" && args[0] != "send")) {
    if (!args.empty() && args[0] != "--help") err << "ridge mail: '" << args[0] << "' is not a verb; accepted: weekly, send\n";
    (args.empty() || args[0] != "--help" ? err : out) << kUsage;
    return args.empty() || args[0] != "--help" ? 2 : 0;
  }
  const std::string verb = args[0];
  std::string db, mail_dir, content, now_text;
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    std::string* target = a == "--db" ? &db : a == "--mail-dir" ? &mail_dir : a == "--content" ? &content : a == "--now" ? &now_text : nullptr;
    if (target == nullptr || i + 1 >= args.size()) {
      err << "ridge mail: '" << a << "' is not a flag" << (target ? " without a value" : "")
          << "; accepted: --db URL, --mail-dir DIR, --content DIR, --now UNIX\n";
      return 2;
    }
    *target = args[++i];
  }
  if (db.empty()) {
    const char* env = std::getenv("RIDGE_DB");
    db = env && *env ? env : "sqlite:ridge.db";
  }
  std::string why;
  auto config = mail::mail_config_from_env(why);
  if (!config) {
    err << "ridge mail: " << why << "\n";
    return 2;
  }
  if (!mail_dir.empty()) config->mail_dir = mail_dir;
  if (const char* env = std::getenv("RIDGE_MAIL_DIR"); mail_dir.empty() && env && *env) config->mail_dir = env;
  // --now (unix seconds) stands in for the clock, for tests that cross weeks.
  account::SystemClock system_clock;
  std::unique_ptr<account::FakeClock> fixed;
  if (!now_text.empty()) {
    char* end = nullptr;
    long long t = std::strtoll(now_text.c_str(), &end, 10);
    if (*end != 0 || t <= 0) {
      err << "ridge mail: --now '" << now_text << "' is not a time; accepted: unix seconds\n";
      return 2;
    }
    fixed = std::make_unique<account::FakeClock>(t);
  }
  const account::Clock& clock = fixed ? static_cast<const account::Clock&>(*fixed) : system_clock;
  auto opened = store::open_store(db);
  if (!opened.ok()) {
    err << "ridge mail: " << opened.error().message << "\n";
    return 1;
  }
  store::Store& s = **opened;
  if (verb == "weekly") {
    const char* secret = std::getenv("RIDGE_SECRET");
    if (!secret || !*secret) {
      err << "ridge mail weekly: RIDGE_SECRET is not set; it signs the unsubscribe links and must match `ridge serve`'s\n";
      return 2;
    }
    mail::LinkSigner signer(secret);
    if (content.empty()) content = default_content_dir();
    auto loaded = bank::load_bank(content, registry, catalog, {/*lint=*/false});
    if (!loaded.errors.empty()) {
      err << "ridge mail weekly: the content in " << content << " has " << loaded.errors.size() << " errors; run `ridge check`\n";
      return 1;
    }
    int64_t now = clock.now();
    std::string week = mail::iso_week(now);
    int64_t index = mail::week_index(now);
    auto subs = s.confirmed_subscriptions();
    if (!subs.ok()) {
      err << "ridge mail weekly: " << subs.error().message << "\n";
      return 1;
    }
    int queued = 0, already = 0, exhausted = 0, failed = 0;
    for (const auto& sub : *subs) {
      auto sent = s.weekly_slugs_sent(sub.id);
      if (!sent.ok()) {
        ++failed;
        continue;
      }
      const bank::Question* q = mail::pick_weekly(loaded.bank, index, *sent);
      if (q == nullptr) {
        ++exhausted;
        continue;
      }
      auto message = mail::weekly_message(loaded.bank, *q, sub.email, config->base_url,
                                          mail::unsubscribe_url(*config, signer, sub.email), week);
      auto done = s.queue_weekly(week, sub.id, q->slug, sub.email, mail::render(*config, message, now), now);
      if (!done.ok()) {
        err << "ridge mail weekly: subscription " << sub.id << ": " << done.error().message << "\n";
        ++failed;
      } else {
        (*done ? queued : already) += 1;
      }
    }
    out << "ridge mail weekly " << week << ": " << queued << " queued, " << already << " already sent this week, " << exhausted
        << " had every free question" << (failed ? ", " + std::to_string(failed) + " failed" : "") << "\n";
    if (failed) return 1;
  }
  mail::Sender sender(s, *config, clock);
  auto pass = sender.run_once();
  out << "ridge mail: " << pass.sent << " sent, " << pass.failed << " failed (queued for retry) through "
      << (config->uses_smtp() ? "SMTP" : config->mail_dir) << "\n";
  return pass.store_error ? 1 : 0;
}

}  // namespace ridge::cli
