#include "cli/serve_command.h"

#include <boost/asio/ip/address.hpp>
#include <unistd.h>

#include <atomic>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <iostream>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

#include "bank/loader.h"
#include "calc_io/load_catalog.h"
#include "design/challenge.h"
#include "cli/bank_commands.h"
#include "cli/flags.h"
#include "cli/validate_command.h"
#include "account/clock.h"
#include "billing/billing.h"
#include "mail/mail.h"
#include "mail/sender.h"
#include "store/store.h"
#include "web/log.h"
#include "web/metered_store.h"
#include "web/server.h"
#include "calc/source_dir.h"

namespace ridge::cli {
namespace fs = std::filesystem;

namespace {

// What --help prints after the flags: what the flags cannot say in a line.
const char* kServeFooter =
    "Logs go to stderr: one access line per request (time, method, path, status, bytes, microseconds, request id)\n"
    "and error lines; --log-format json writes one JSON object per line.\n"
    "--trusted-proxy: requests from these addresses (your proxy: 127.0.0.1/32, 10.0.0.0/8) are attributed\n"
    "to the client their X-Forwarded-For names, for rate limits and connection caps.\n"
    "--metrics-bind: serve /metrics on this address only (127.0.0.1:9090, [::1]:9090), not on --bind's.\n"
    "Flags win over the environment (the Env: names above).\n"
    "RIDGE_SECURE_COOKIES=1 marks the session cookie Secure (behind TLS); RIDGE_SECRET shares the\n"
    "readiness-check and mail-link signing key between servers (and `ridge mail weekly`).\n"
    "Billing: RIDGE_PRICE (\"USD 2500\", minor units), RIDGE_STRIPE_SECRET_KEY, RIDGE_STRIPE_WEBHOOK_SECRET,\n"
    "RIDGE_STRIPE_API_BASE; without the keys the site is grant-only. Mail: RIDGE_SMTP_URL (smtp://host:port),\n"
    "RIDGE_SMTP_USER, RIDGE_SMTP_PASSWORD, RIDGE_MAIL_FROM, RIDGE_BASE_URL; without SMTP, .eml files in --mail-dir.\n";

// One address block of --trusted-proxy (the list is split at commas first; empty items are
// skipped, as "a,,b" always was).
CLI::Validator cidr() {
  return CLI::Validator(
      [](std::string& item) -> std::string {
        if (item.empty() || web::parse_cidr(item)) return "";
        return "'" + item.substr(0, 80) + "' is not an address block; accepted: CIDR such as 127.0.0.1/32, 10.0.0.0/8, ::1/128";
      },
      "CIDR");
}

// "127.0.0.1:9090" -> {"127.0.0.1", "9090"}; "[::1]:9090" -> {"::1", "9090"}.
std::pair<std::string, std::string> split_address(const std::string& text) {
  const size_t colon = text.rfind(':');
  if (colon == std::string::npos) return {"", ""};
  std::string host = text.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  return {host, text.substr(colon + 1)};
}

CLI::Validator address_and_port() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        auto [host, port] = split_address(text);
        boost::system::error_code ec;
        boost::asio::ip::make_address(host, ec);
        if (!host.empty() && !ec && flags::whole_number(0, 65535)(port).empty()) return "";
        return "'" + text.substr(0, 80) + "' is not an address and port; accepted: ADDR:PORT such as 127.0.0.1:9090 or [::1]:9090";
      },
      "ADDR:PORT");
}

}  // namespace

std::string default_static_dir() {
  if (const char* env = std::getenv("RIDGE_STATIC"); env && *env) return env;
  std::error_code ec;
  if (fs::exists("web/static/style.css", ec)) return "web/static";
  return (fs::path(ridge::source_dir()) / "web" / "static").string();
}

CLI::App* add_serve(CLI::App& parent, ServeFlags& f) {
  CLI::App* serve = parent.add_subcommand("serve", "the website and the JSON API");
  serve->footer(kServeFooter);
  serve->add_option("--port", f.port, "the port to listen on (0 picks a free one)")
      ->envname("RIDGE_PORT")
      ->check(flags::whole_number(0, 65535, "(0 picks a free one)"));
  serve->add_option("--bind", f.bind, "the address to listen on")->envname("RIDGE_BIND");
  serve->add_option("--content", f.content, "the question bank (default $RIDGE_CONTENT, ./content or the source tree's)")
      ->envname("RIDGE_CONTENT")
      ->check(flags::directory());
  flags::add_db(*serve, f.db);
  serve->add_option("--threads", f.threads, "I/O threads (0: one per core)")
      ->envname("RIDGE_THREADS")
      ->check(flags::whole_number(0, 256, "(0: one per core)"));
  serve->add_option("--io", f.io, "one io_context per thread, or one shared")
      ->envname("RIDGE_IO")
      ->check(flags::one_of({"per-thread", "shared"}, "an I/O model"));
  serve->add_option("--static", f.static_dir, "the stylesheet and scripts (default web/static)")
      ->envname("RIDGE_STATIC")
      ->check(flags::directory());
  serve->add_option("--trusted-proxy", f.trusted_proxies, "proxies whose X-Forwarded-For is believed, CIDR[,CIDR...]")
      ->envname("RIDGE_TRUSTED_PROXY")
      ->delimiter(',')
      ->allow_extra_args(false)
      ->check(cidr());
  serve->add_option("--mail-dir", f.mail_dir, "where mail goes as .eml files without SMTP (default ./mail)")
      ->envname("RIDGE_MAIL_DIR");
  serve->add_option("--metrics-bind", f.metrics_bind, "serve /metrics on this ADDR:PORT only")
      ->envname("RIDGE_METRICS_BIND")
      ->check(address_and_port());
  serve->add_option("--log-format", f.log_format, "access and error lines as text or one JSON object each")
      ->check(flags::one_of({"text", "json"}, "a log format"));
  serve->add_option("--access-log", f.access_log, "one line per request, or only the errors")
      ->check(flags::one_of({"on", "off"}, "on or off"));
  serve->add_option("--quick-path", f.quick_path,
                    "answer an anonymous GET of a prepared page or kept answer without the full parser and router "
                    "(off: every request takes the full path, as a benchmark's reference)")
      ->check(flags::one_of({"on", "off"}, "on or off"));
  serve->add_option("--page-cache-mb", f.page_cache_mb, "question pages are rendered on first request and kept up to this many MB")
      ->envname("RIDGE_PAGE_CACHE_MB")
      ->check(flags::whole_number(1, 65536));
  serve->add_flag("--strict-bank", f.strict_bank,
                  "render every question's body before listening and refuse to start on a broken one "
                  "(default: on its first request, answering 500 for a broken one)")
      ->envname("RIDGE_STRICT_BANK");
  return serve;
}

int run_serve(const ServeFlags& f, const std::string& data_dir) {
  web::ServerOptions options;
  options.port = static_cast<unsigned short>(f.port);
  options.bind = f.bind;
  options.threads = f.threads;
  options.io = f.io == "shared" ? web::IoModel::kShared : web::IoModel::kPerThread;
  options.quick = f.quick_path == "on";
  std::vector<std::string> trusted;
  for (const auto& item : f.trusted_proxies) {
    if (!item.empty()) trusted.push_back(item);
  }
  options.trusted_proxies = trusted;
  web::log::Options log_options;
  log_options.format = *web::log::parse_format(f.log_format);  // checked by the flag's validator
  log_options.access = f.access_log == "on";
  log_options.access_fd = STDERR_FILENO;  // in batches, off spdlog's queue (web/access_buffer.h)
  web::log::configure(log_options);
  std::optional<web::ServerOptions> metrics_options;
  if (!f.metrics_bind.empty()) {
    const auto [host, port] = split_address(f.metrics_bind);
    unsigned short number = 0;
    std::from_chars(port.data(), port.data() + port.size(), number);  // checked by the flag's validator
    metrics_options.emplace();
    metrics_options->bind = host;
    metrics_options->port = number;
    metrics_options->threads = 1;
    metrics_options->workers = 1;
    metrics_options->handle_signals = false;  // the main listener's shutdown stops this one
    metrics_options->metrics = web::MetricsRoute::kOnly;
    metrics_options->trusted_proxies = trusted;
    options.metrics = web::MetricsRoute::kElsewhere;
  }
  auto opened = store::open_store(f.db);
  if (!opened.ok()) {
    std::cerr << "ridge serve: " << opened.error().detail << "\n";
    return 1;
  }
  std::unique_ptr<store::Store> real_database = std::move(opened).value();
  // Every store call, the app's and the mail sender's, is timed into the app's metrics.
  auto database = std::make_unique<web::MeteredStore>(*real_database);
  auto start = std::chrono::steady_clock::now();
  auto catalog = calc_io::load_catalog(data_dir);
  if (!catalog) {
    std::cerr << "ridge serve: cannot load the catalogs in " << data_dir << ":\n" << calc::to_string(catalog.errors());
    return 1;
  }
  auto registry = calc::make_builtin_registry();
  std::string content = f.content.empty() ? default_content_dir() : f.content;
  // Issue 30: a question's body is rendered on its first request unless --strict-bank.
  bank::LoadOptions load_options{/*lint=*/false};
  load_options.render_bodies = f.strict_bank;
  auto loaded = bank::load_bank(content, registry, *catalog, load_options);
  if (!loaded.errors.empty()) {
    for (const auto& d : loaded.errors) std::cerr << d.to_string() << "\n";
    std::cerr << "ridge serve: the content in " << content << " has " << loaded.errors.size()
              << " errors; run `ridge check " << content << "`\n";
    return 1;
  }
  for (const auto& q : loaded.bank.questions) {
    if (!q.body_errors.empty()) {
      std::cerr << "ridge serve: " << q.body_errors.front().to_string() << " (the page /q/" << q.slug
                << " answers 500; --strict-bank refuses to start)\n";
    }
  }
  size_t questions = loaded.bank.questions.size();
  // Declared before the app (which points at them) and the server, so they outlive both.
  mail::MailConfig mail_config;
  std::unique_ptr<mail::LinkSigner> signer;
  account::SystemClock clock;
  std::unique_ptr<mail::Sender> sender;
  std::unique_ptr<web::App> app;
  try {
    web::AppOptions app_options;
    app_options.store = database.get();
    app_options.trusted_proxies = trusted;
    app_options.page_cache_bytes = static_cast<size_t>(f.page_cache_mb) << 20;
    // The performance model's table for /calc, computed now (the model and runs do not change
    // while serving). Without the runs file the page simply has no table.
    if (std::filesystem::exists(data_dir + "/published-runs.toml")) {
      std::ostringstream out, err;
      ValidateFlags table;
      table.json = true;
      if (run_validate(table, registry, *catalog, data_dir + "/published-runs.toml", out, err) == 0) {
        app_options.validation = nlohmann::json::parse(out.str(), nullptr, /*allow_exceptions=*/false);
      } else {
        std::cerr << "ridge serve: the validation table is left out: " << err.str();
      }
    }
    // Design rounds (issue 35): the challenges, loaded once; a broken file is named and left
    // out (`ridge design --check` is what CI holds).
    {
      auto challenges = design::load_challenges((std::filesystem::path(content) / "challenges").string());
      for (const auto& e : challenges.errors) std::cerr << "ridge serve: design challenges: " << e.to_string() << "\n";
      app_options.design_challenges = std::move(challenges.challenges);
    }
    if (const char* secure = std::getenv("RIDGE_SECURE_COOKIES"); secure && std::string(secure) == "1") {
      app_options.secure_cookies = true;
    }
    std::string why;
    auto billing_config = billing::billing_config_from_env(why);
    if (!billing_config) {
      std::cerr << "ridge serve: " << why << "\n";
      return 2;
    }
    app_options.billing = *billing_config;
    if (const char* base = std::getenv("RIDGE_BASE_URL"); base && *base) {
      app_options.base_url = base;
      while (!app_options.base_url.empty() && app_options.base_url.back() == '/') app_options.base_url.pop_back();
    } else {
      app_options.base_url = "http://" + options.bind + ":" + std::to_string(options.port);
    }
    std::cout << "ridge serve: billing " << (app_options.billing.enabled() ? "through Stripe" : "off (grant-only)") << ", price "
              << app_options.billing.price.display() << std::endl;
    auto config = mail::mail_config_from_env(why);
    if (!config) {
      std::cerr << "ridge serve: " << why << "\n";
      return 2;
    }
    mail_config = *config;
    if (!f.mail_dir.empty()) mail_config.mail_dir = f.mail_dir;
    if (!std::getenv("RIDGE_BASE_URL")) mail_config.base_url = app_options.base_url;
    const char* secret = std::getenv("RIDGE_SECRET");
    if (!secret || !*secret) {
      std::cerr << "ridge serve: RIDGE_SECRET is not set: links in mail are signed with a random key and stop working at restart\n";
    }
    signer = std::make_unique<mail::LinkSigner>(secret ? secret : "");
    app_options.secret = secret ? secret : "";  // keys the readiness check's MAC too (web code reads no environment)
    sender = std::make_unique<mail::Sender>(*database, mail_config, clock);
    app_options.mail = &mail_config;
    app_options.signer = signer.get();
    app_options.mail_wake = [s = sender.get()] { s->wake(); };
    std::cout << "ridge serve: mail through " << (mail_config.uses_smtp() ? "SMTP" : "files in " + mail_config.mail_dir) << std::endl;
    app = std::make_unique<web::App>(std::move(loaded.bank), std::move(catalog).value(), std::move(registry),
                                     web::Assets(f.static_dir.empty() ? default_static_dir() : f.static_dir),
                                     std::move(app_options));
  } catch (const std::exception& e) {
    std::cerr << "ridge serve: " << e.what() << "\n";
    return 1;
  }
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  options.on_listening = [&](unsigned short port) {
    std::cout << "ridge serve: " << questions << " questions, " << app->cached_pages() << " pages rendered in "
              << static_cast<int>(ms) << " ms (question pages on first request, kept up to " << f.page_cache_mb
              << " MB); listening on http://" << options.bind << ":" << port << "/" << std::endl;
  };
  database->observe(app->metrics());
  std::unique_ptr<web::Server> metrics_server;
  std::thread metrics_thread;
  std::promise<bool> listening;  // whether the metrics listener accepts
  std::atomic<bool> told{false};
  auto tell = [&](bool ok) {
    if (!told.exchange(true)) listening.set_value(ok);
  };
  if (metrics_options) {
    auto bound = listening.get_future();
    metrics_options->on_listening = [&](unsigned short port) {
      std::cout << "ridge serve: metrics on http://" << metrics_options->bind << ":" << port << "/metrics" << std::endl;
      tell(true);
    };
    metrics_server = std::make_unique<web::Server>(*app, *metrics_options);
    metrics_thread = std::thread([&] {
      metrics_server->run();
      tell(false);  // could not listen (nothing when it did, then stopped)
    });
    if (!bound.get()) {
      metrics_thread.join();
      return 1;
    }
  }
  web::Server server(*app, options);
  sender->start();
  int rc = server.run();
  if (rc == web::Server::kAbandonedWork) {
    // Requests outlived the grace: end the process now, without waiting on what they hold
    // (the store is crash-safe: an unfinished transaction is rolled back when it next opens).
    if (metrics_server) metrics_server->stop();
    web::log::shutdown();
    std::cout << "ridge serve: stopped (requests still running were abandoned)" << std::endl;
    std::_Exit(0);
  }
  if (metrics_server) {
    metrics_server->stop();
    metrics_thread.join();
  }
  sender->stop();
  web::log::shutdown();
  if (rc == 0) std::cout << "ridge serve: stopped" << std::endl;
  return rc;
}

}  // namespace ridge::cli
