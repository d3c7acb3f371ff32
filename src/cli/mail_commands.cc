#include "cli/mail_commands.h"

#include <cstdlib>
#include <ctime>

#include "account/clock.h"
#include "bank/loader.h"
#include "cli/bank_commands.h"
#include "cli/flags.h"
#include "mail/mail.h"
#include "mail/sender.h"
#include "mail/weekly.h"
#include "store/store.h"

namespace ridge::cli {

CLI::App* add_mail(CLI::App& parent, MailFlags& f) {
  CLI::App* mail = parent.add_subcommand("mail", "the weekly question to subscribers, once per ISO week; deliver the queue");
  mail->require_subcommand(1);
  mail->footer(
      "Mail goes through RIDGE_SMTP_URL (RIDGE_SMTP_USER, RIDGE_SMTP_PASSWORD), or as .eml files into --mail-dir.\n"
      "RIDGE_SECRET signs the unsubscribe links and must be the one `ridge serve` has; RIDGE_BASE_URL makes the links.");
  CLI::App* weekly = mail->add_subcommand(
      "weekly",
      "queue the week's free question for every confirmed subscriber (once per ISO week: a second run, here or on "
      "another machine, queues nothing), then deliver the queue");
  CLI::App* send = mail->add_subcommand("send", "deliver what is queued");
  for (CLI::App* verb : {weekly, send}) {
    flags::add_db(*verb, f.db);
    verb->add_option("--mail-dir", f.mail_dir, "where mail goes as .eml files without SMTP (default ./mail)")
        ->envname("RIDGE_MAIL_DIR");
    verb->add_option("--content", f.content, "the content directory (default $RIDGE_CONTENT, ./content or the source tree's)")
        ->check(flags::directory());
    verb->add_option("--now", f.now, "unix seconds that stand in for the clock (tests that cross weeks; 0, the default: the clock)")
        ->check(flags::whole_number(1, 253402300799LL));  // to 9999-12-31
    verb->callback([&f, verb] { f.verb = verb->get_name(); });
  }
  return mail;
}

int run_mail(const MailFlags& f, const calc::Registry& registry, const calc::Catalog& catalog, std::ostream& out,
             std::ostream& err) {
  const std::string& verb = f.verb;
  const std::string& db = f.db;
  std::string content = f.content;
  std::string why;
  auto config = mail::mail_config_from_env(why);
  if (!config) {
    err << "ridge mail: " << why << "\n";
    return 2;
  }
  if (!f.mail_dir.empty()) config->mail_dir = f.mail_dir;  // the flag, or $RIDGE_MAIL_DIR
  // --now (unix seconds) stands in for the clock, for tests that cross weeks.
  account::SystemClock system_clock;
  std::unique_ptr<account::FakeClock> fixed;
  if (f.now > 0) fixed = std::make_unique<account::FakeClock>(f.now);
  const account::Clock& clock = fixed ? static_cast<const account::Clock&>(*fixed) : system_clock;
  auto opened = store::open_store(db);
  if (!opened.ok()) {
    err << "ridge mail: " << opened.error().detail << "\n";
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
      err << "ridge mail weekly: " << subs.error().detail << "\n";
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
      // Mock loops (issue 36): a subscriber with an account and finished rehearsals is offered
      // their weakest round type as next week's rehearsal. A failed read only leaves it out.
      if (auto user = s.find_user_by_email(sub.email); user.ok() && user->has_value()) {
        if (auto past = s.rehearsals((*user)->id); past.ok()) {
          if (auto weakest = mail::weakest_round_type(*past)) mail::add_rehearsal_offer(message, *weakest, config->base_url);
        }
      }
      auto done = s.queue_weekly(week, sub.id, q->slug, sub.email, mail::render(*config, message, now), now);
      if (!done.ok()) {
        err << "ridge mail weekly: subscription " << sub.id << ": " << done.error().detail << "\n";
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
