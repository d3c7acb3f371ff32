#include "cli/serve_command.h"

#include <boost/asio/ip/address.hpp>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

#include "bank/loader.h"
#include "calc_io/load_catalog.h"
#include "cli/bank_commands.h"
#include "cli/validate_command.h"
#include "account/clock.h"
#include "billing/billing.h"
#include "mail/mail.h"
#include "mail/sender.h"
#include "store/store.h"
#include "web/log.h"
#include "web/metered_store.h"
#include "web/server.h"

namespace ridge::cli {
namespace fs = std::filesystem;

namespace {

const char* kServeUsage =
    "Usage: ridge serve [--port 8080] [--bind 127.0.0.1] [--content DIR] [--db URL] [--threads N] [--io per-thread|shared]\n"
    "                   [--trusted-proxy CIDR[,CIDR...]] [--mail-dir DIR] [--metrics-bind ADDR:PORT]\n"
    "                   [--log-format text|json] [--access-log on|off]\n"
    "Logs go to stderr: one access line per request (time, method, path, status, bytes, microseconds, request id)\n"
    "and error lines; --log-format json writes one JSON object per line.\n"
    "--trusted-proxy: requests from these addresses (your proxy: 127.0.0.1/32, 10.0.0.0/8) are attributed\n"
    "to the client their X-Forwarded-For names, for rate limits and connection caps.\n"
    "--metrics-bind: serve /metrics on this address only (127.0.0.1:9090, [::1]:9090), not on --bind's.\n"
    "Each flag can also come from the environment: RIDGE_PORT, RIDGE_BIND, RIDGE_CONTENT, RIDGE_DB, RIDGE_THREADS,\n"
    "RIDGE_IO, RIDGE_STATIC, RIDGE_TRUSTED_PROXY, RIDGE_METRICS_BIND. Flags win over the environment.\n"
    "--db sqlite:PATH (default sqlite:ridge.db) or postgresql://user@host:port/db.\n"
    "RIDGE_SECURE_COOKIES=1 marks the session cookie Secure (behind TLS); RIDGE_SECRET shares the\n"
    "readiness-check and mail-link signing key between servers (and `ridge mail weekly`).\n"
    "Billing: RIDGE_PRICE (\"USD 2500\", minor units), RIDGE_STRIPE_SECRET_KEY, RIDGE_STRIPE_WEBHOOK_SECRET,\n"
    "RIDGE_STRIPE_API_BASE; without the keys the site is grant-only. Mail: RIDGE_SMTP_URL (smtp://host:port),\n"
    "RIDGE_SMTP_USER, RIDGE_SMTP_PASSWORD, RIDGE_MAIL_FROM, RIDGE_BASE_URL; without SMTP, .eml files in --mail-dir\n"
    "(RIDGE_MAIL_DIR, default ./mail).\n";

std::string default_static_dir() {
  if (const char* env = std::getenv("RIDGE_STATIC"); env && *env) return env;
  std::error_code ec;
  if (fs::exists("web/static/style.css", ec)) return "web/static";
#ifdef RIDGE_SOURCE_DIR
  return (fs::path(RIDGE_SOURCE_DIR) / "web" / "static").string();
#else
  return "web/static";
#endif
}

}  // namespace

int run_serve(const std::vector<std::string>& args, const std::string& data_dir) {
  std::map<std::string, std::string> settings;
  for (const char* name : {"port", "bind", "content", "db", "threads", "io", "static", "trusted_proxy", "mail_dir", "metrics_bind"}) {
    std::string env = "RIDGE_" + std::string(name);
    for (auto& c : env) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (const char* v = std::getenv(env.c_str()); v && *v) settings[name] = v;
  }
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      std::cout << kServeUsage;
      return 0;
    }
    std::string name = a.rfind("--", 0) == 0 ? a.substr(2) : "", value;
    if (auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    } else if (i + 1 < args.size()) {
      value = args[++i];
    }
    if (name == "trusted-proxy") name = "trusted_proxy";
    if (name == "mail-dir") name = "mail_dir";
    if (name == "log-format") name = "log_format";
    if (name == "access-log") name = "access_log";
    if (name == "metrics-bind") name = "metrics_bind";
    if (name != "port" && name != "bind" && name != "content" && name != "db" && name != "threads" && name != "io" &&
        name != "static" && name != "trusted_proxy" && name != "mail_dir" && name != "metrics_bind" && name != "log_format" &&
        name != "access_log") {
      std::cerr << "ridge serve: '" << a << "' is not a flag; accepted: --port, --bind, --content, --db, --threads, --io, "
                   "--static, --trusted-proxy, --mail-dir, --metrics-bind, --log-format, --access-log\n";
      return 2;
    }
    if (value.empty()) {
      std::cerr << "ridge serve: --" << name << " needs a value\n";
      return 2;
    }
    settings[name] = value;
  }
  web::ServerOptions options;
  if (settings.count("port")) {
    const std::string& p = settings["port"];
    char* end = nullptr;
    long port = std::strtol(p.c_str(), &end, 10);
    if (p.empty() || *end != 0 || port < 0 || port > 65535) {
      std::cerr << "ridge serve: --port '" << p << "' is not a port; accepted: 0 to 65535 (0 picks a free one)\n";
      return 2;
    }
    options.port = static_cast<unsigned short>(port);
  }
  if (settings.count("bind")) options.bind = settings["bind"];
  if (settings.count("threads")) {
    const std::string& t = settings["threads"];
    char* end = nullptr;
    long n = std::strtol(t.c_str(), &end, 10);
    if (t.empty() || *end != 0 || n < 1 || n > 256) {
      std::cerr << "ridge serve: --threads '" << t << "' is out of range; accepted: 1 to 256\n";
      return 2;
    }
    options.threads = static_cast<int>(n);
  }
  if (settings.count("io")) {
    if (settings["io"] == "shared") {
      options.io = web::IoModel::kShared;
    } else if (settings["io"] != "per-thread") {
      std::cerr << "ridge serve: --io '" << settings["io"] << "' is not an I/O model; accepted: per-thread, shared\n";
      return 2;
    }
  }
  std::vector<std::string> trusted;
  if (settings.count("trusted_proxy")) {
    std::string list = settings["trusted_proxy"];
    for (size_t pos = 0; pos <= list.size();) {
      size_t comma = list.find(',', pos);
      std::string item = list.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
      pos = comma == std::string::npos ? list.size() + 1 : comma + 1;
      if (item.empty()) continue;
      if (!web::parse_cidr(item)) {
        std::cerr << "ridge serve: --trusted-proxy '" << item.substr(0, 80)
                  << "' is not an address block; accepted: CIDR such as 127.0.0.1/32, 10.0.0.0/8, ::1/128\n";
        return 2;
      }
      trusted.push_back(item);
    }
  }
  options.trusted_proxies = trusted;
  web::log::Options log_options;
  if (settings.count("log_format")) {
    const web::log::Format* f = web::log::parse_format(settings["log_format"]);
    if (f == nullptr) {
      std::cerr << "ridge serve: --log-format '" << settings["log_format"].substr(0, 80) << "' is not a log format; accepted: text, json\n";
      return 2;
    }
    log_options.format = *f;
  }
  if (settings.count("access_log")) {
    const std::string& v = settings["access_log"];
    if (v != "on" && v != "off") {
      std::cerr << "ridge serve: --access-log '" << v.substr(0, 80) << "' is not on or off\n";
      return 2;
    }
    log_options.access = v == "on";
  }
  web::log::configure(log_options);
  std::optional<web::ServerOptions> metrics_options;
  if (settings.count("metrics_bind")) {
    const std::string& m = settings["metrics_bind"];
    size_t colon = m.rfind(':');
    std::string host = colon == std::string::npos ? "" : m.substr(0, colon), port = colon == std::string::npos ? "" : m.substr(colon + 1);
    if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
    char* end = nullptr;
    long n = std::strtol(port.c_str(), &end, 10);
    boost::system::error_code ec;
    boost::asio::ip::make_address(host, ec);
    if (host.empty() || ec || port.empty() || *end != 0 || n < 0 || n > 65535) {
      std::cerr << "ridge serve: --metrics-bind '" << m.substr(0, 80)
                << "' is not an address and port; accepted: ADDR:PORT such as 127.0.0.1:9090 or [::1]:9090\n";
      return 2;
    }
    metrics_options.emplace();
    metrics_options->bind = host;
    metrics_options->port = static_cast<unsigned short>(n);
    metrics_options->threads = 1;
    metrics_options->workers = 1;
    metrics_options->handle_signals = false;  // the main listener's shutdown stops this one
    metrics_options->metrics = web::MetricsRoute::kOnly;
    metrics_options->trusted_proxies = trusted;
    options.metrics = web::MetricsRoute::kElsewhere;
  }
  std::string db = settings.count("db") ? settings["db"] : "sqlite:ridge.db";
  auto opened = store::open_store(db);
  if (!opened.ok()) {
    std::cerr << "ridge serve: " << opened.error().message << "\n";
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
  std::string content = settings.count("content") ? settings["content"] : default_content_dir();
  auto loaded = bank::load_bank(content, registry, *catalog, {/*lint=*/false});
  if (!loaded.errors.empty()) {
    for (const auto& d : loaded.errors) std::cerr << d.to_string() << "\n";
    std::cerr << "ridge serve: the content in " << content << " has " << loaded.errors.size()
              << " errors; run `ridge check " << content << "`\n";
    return 1;
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
    // The performance model's table for /calc, computed now (the model and runs do not change
    // while serving). Without the runs file the page simply has no table.
    if (std::filesystem::exists(data_dir + "/published-runs.toml")) {
      std::ostringstream out, err;
      if (run_validate({"--json"}, registry, *catalog, data_dir + "/published-runs.toml", out, err) == 0) {
        app_options.validation = nlohmann::json::parse(out.str(), nullptr, /*allow_exceptions=*/false);
      } else {
        std::cerr << "ridge serve: the validation table is left out: " << err.str();
      }
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
    if (settings.count("mail_dir")) mail_config.mail_dir = settings["mail_dir"];
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
                                     web::Assets(settings.count("static") ? settings["static"] : default_static_dir()),
                                     std::move(app_options));
  } catch (const std::exception& e) {
    std::cerr << "ridge serve: " << e.what() << "\n";
    return 1;
  }
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  options.on_listening = [&](unsigned short port) {
    std::cout << "ridge serve: " << questions << " questions, " << app->cached_pages() << " pages rendered in "
              << static_cast<int>(ms) << " ms; listening on http://" << options.bind << ":" << port << "/" << std::endl;
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
