// Tests only: the fixture of the tests that run accounts, practice and paid access through
// App::handle (account_test.cc, paid_access_test.cc, practice_test.cc): the App on the real
// bank over a fresh SQLite store, a fake clock, billing keys and mail, and a client that keeps
// a session cookie and its CSRF token.
#pragma once

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sodium.h>
#include <unistd.h>

#include <filesystem>
#include <stdexcept>
#include <nlohmann/json.hpp>

#include "account/clock.h"
#include "account/security.h"
#include "bank/loader.h"
#include "billing/billing.h"
#include "calc/derivation.h"
#include "calc/test_catalog.h"
#include "practice/drills.h"
#include "web/app.h"
#include "web/pages.h"
#include "web/test_app.h"

namespace ridge::web {

constexpr const char* kWebhookSecret = "whsec_unit_test_secret";

class Practice : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = testing::fresh_database("practice");
    auto opened = store::open_store("sqlite:" + path_.string());
    ASSERT_TRUE(opened.ok()) << opened.error().detail;
    store_ = std::move(opened).value();
    AppOptions options;
    options.store = store_.get();
    options.clock = &clock_;
    options.billing.webhook_secret = kWebhookSecret;
    options.billing.stripe_secret_key = "sk_test_unused";
    mail_config_.base_url = "https://ridge.test";
    options.mail = &mail_config_;
    options.signer = &signer_;
    app_ = testing::real_app(options);
  }
  void TearDown() override {
    app_.reset();
    store_.reset();
    testing::remove_database(path_);
  }

  struct Client {
    std::string cookie, csrf;
  };

  Response call(const std::string& method, const std::string& target, const std::string& body = "", const Client* c = nullptr,
                bool with_csrf = true, const std::string& remote = "10.0.0.1") {
    Request req;
    req.method = method;
    req.target = target;
    EXPECT_TRUE(parse_target(target, req));
    req.body = body;
    req.remote = remote;
    if (c && !c->cookie.empty()) req.headers["cookie"] = c->cookie;
    if (c && with_csrf && !c->csrf.empty()) req.headers["x-csrf-token"] = c->csrf;
    return app_->handle(req);
  }

  // A header as the server would send it: from the prepared block of a cached page when the
  // response has one (the server then writes only that block), else from `headers`.
  static std::string header(const Response& r, const std::string& name) {
    if (r.prebuilt_headers != nullptr) {
      const std::string& block = *r.prebuilt_headers;
      const std::string key = name + ": ";
      for (size_t at = 0; at < block.size();) {
        size_t end = block.find("\r\n", at);
        if (end == std::string::npos) end = block.size();
        if (block.compare(at, key.size(), key) == 0) return block.substr(at + key.size(), end - at - key.size());
        at = end + 2;
      }
      return "";
    }
    for (const auto& [k, v] : r.headers) {
      if (k == name) return v;
    }
    return "";
  }

  Client signup(const std::string& email) {
    Response r = call("POST", "/api/signup", nlohmann::json{{"email", email}, {"password", "correct horse battery"}}.dump());
    EXPECT_EQ(r.status, 201) << r.body;
    std::string cookie = header(r, "Set-Cookie");
    return {cookie.substr(0, cookie.find(';')), nlohmann::json::parse(r.body)["csrf_token"]};
  }

  // The decoded text parts of every queued message to `to` (and marks them sent, so each is read once).
  std::string queued_text(const std::string& to) {
    std::string out;
    auto batch = store_->claim_mail(clock_.now(), 60, 100);
    for (const auto& m : *batch) {
      EXPECT_TRUE(store_->mail_sent(m.id, clock_.now()).ok());
      if (m.recipient != to) continue;
      const std::string marker = "Content-Transfer-Encoding: base64\r\n\r\n";
      for (size_t at = m.message.find(marker); at != std::string::npos; at = m.message.find(marker, at + 1)) {
        size_t start = at + marker.size(), end = m.message.find("\r\n\r\n", start);
        end = std::min(end, m.message.find("--", start));
        std::string b64 = m.message.substr(start, end == std::string::npos ? std::string::npos : end - start);
        std::string bin(b64.size(), '\0');
        size_t len = 0;
        sodium_base642bin(reinterpret_cast<unsigned char*>(bin.data()), bin.size(), b64.data(), b64.size(), "\r\n", &len, nullptr,
                          sodium_base64_VARIANT_ORIGINAL);
        out += bin.substr(0, len);
      }
    }
    return out;
  }
  static std::string link(const std::string& text, const std::string& path) {
    size_t at = text.find("https://ridge.test" + path + "?");
    if (at == std::string::npos) return "";
    size_t end = text.find_first_of(" \n\"<", at);
    return text.substr(at + std::string("https://ridge.test").size(), end - at - std::string("https://ridge.test").size());
  }
  // A form with its pre-session token: GET, then POST with the cookie.
  Response post_with_pre(const std::string& path, const std::string& fields) {
    Response page = call("GET", path);
    std::string cookie = header(page, "Set-Cookie");
    cookie = cookie.substr(0, cookie.find(';'));
    std::string pre = cookie.substr(cookie.find('=') + 1);
    Client c{cookie, ""};
    return call("POST", path, "pre=" + pre + "&" + fields, &c);
  }

  mail::MailConfig mail_config_;
  mail::LinkSigner signer_{"unit test secret"};
  std::filesystem::path path_;
  account::FakeClock clock_{1'800'000'000};
  std::unique_ptr<store::Store> store_;
  std::unique_ptr<App> app_;
};

}  // namespace ridge::web
