// Accounts through App::handle: sign-up, sign-in and its budgets, sessions, settings, and the
// mail they cause (verification, reset, the weekly question), on a real SQLite store and a fake clock.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "web/practice_fixture.h"

namespace ridge::web {
namespace {

using nlohmann::json;

TEST_F(Practice, SignupSetsAHardenedCookieAndACsrfToken) {
  Response r = call("POST", "/api/signup", json{{"email", "A@Example.com"}, {"password", "correct horse battery"}}.dump());
  ASSERT_EQ(r.status, 201);
  std::string cookie = header(r, "Set-Cookie");
  EXPECT_NE(cookie.find("HttpOnly"), std::string::npos);
  EXPECT_NE(cookie.find("SameSite=Lax"), std::string::npos);
  EXPECT_EQ(json::parse(r.body)["csrf_token"].get<std::string>().size(), 64u);
  // The stored session is the token's hash, not the token.
  std::string token = cookie.substr(cookie.find('=') + 1, 64);
  EXPECT_FALSE(store_->find_session(token)->has_value());
  // Bad input names the field.
  Response bad = call("POST", "/api/signup", json{{"email", "nope"}, {"password", "correct horse battery"}}.dump());
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(json::parse(bad.body)["errors"][0]["field"], "email");
  Response weak = call("POST", "/api/signup", json{{"email", "b@example.com"}, {"password", "short"}}.dump());
  EXPECT_EQ(json::parse(weak.body)["errors"][0]["field"], "password");
}

TEST_F(Practice, WrongPasswordsAreRateLimitedAndNeverSayWhichIsWrong) {
  signup("c@example.com");
  std::string wrong = json{{"email", "c@example.com"}, {"password", "not the password"}}.dump();
  std::string unknown = json{{"email", "nobody@example.com"}, {"password", "not the password"}}.dump();
  Response r1 = call("POST", "/api/signin", wrong, nullptr, true, "10.0.0.2");
  Response r2 = call("POST", "/api/signin", unknown, nullptr, true, "10.0.0.3");
  EXPECT_EQ(r1.status, 401);
  EXPECT_EQ(r1.body, r2.body);  // the same answer for a registered and an unknown email
  // A guesser at one address gets five failures on this account, then waits.
  for (int i = 0; i < 4; ++i) EXPECT_EQ(call("POST", "/api/signin", wrong, nullptr, true, "10.0.0.2").status, 401);
  Response limited = call("POST", "/api/signin", wrong, nullptr, true, "10.0.0.2");
  EXPECT_EQ(limited.status, 429);
  EXPECT_FALSE(header(limited, "Retry-After").empty());
  clock_.advance(60);
  EXPECT_EQ(call("POST", "/api/signin", wrong, nullptr, true, "10.0.0.2").status, 401);  // one more a minute
}

// Finding 6: five wrong passwords from five addresses locked the owner out; six correct
// sign-ins in a row hit 429.
TEST_F(Practice, Finding06_OthersFailuresNeverLockTheOwnerOut) {
  signup("owner@example.com");
  std::string wrong = json{{"email", "owner@example.com"}, {"password", "not the password"}}.dump();
  std::string right = json{{"email", "owner@example.com"}, {"password", "correct horse battery"}}.dump();
  for (int i = 0; i < 10; ++i) call("POST", "/api/signin", wrong, nullptr, true, "10.1.0." + std::to_string(i));
  EXPECT_EQ(call("POST", "/api/signin", right, nullptr, true, "10.0.0.50").status, 200);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(call("POST", "/api/signin", right, nullptr, true, "10.0.0.50").status, 200) << i;
}

// Issue 28 (medium): after 100 wrong passwords from 20 addresses the owner's right password
// from a fresh address got 429, and one failure a minute kept it so. The account-wide budget
// is other people's failures: it no longer refuses; the owner gets a sign-in link by mail.
TEST_F(Practice, Finding28_OthersFailuresOnAnAccountMailTheOwnerALinkInsteadOfLockingThemOut) {
  signup("target@example.com");
  queued_text("target@example.com");  // the verification mail
  std::string wrong = json{{"email", "target@example.com"}, {"password", "not the password"}}.dump();
  std::string right = json{{"email", "target@example.com"}, {"password", "correct horse battery"}}.dump();
  // 20 addresses x 5 failures: each pair's own budget (5) and each address's (30) hold; the
  // account's (100) is spent.
  for (int a = 0; a < 20; ++a) {
    for (int i = 0; i < 5; ++i) EXPECT_EQ(call("POST", "/api/signin", wrong, nullptr, true, "10.9.0." + std::to_string(a)).status, 401);
  }
  Response owner = call("POST", "/api/signin", right, nullptr, true, "10.8.0.1");
  EXPECT_EQ(owner.status, 429);  // the password is not checked while the account is under attack...
  EXPECT_NE(owner.body.find("sign-in link"), std::string::npos) << owner.body;
  EXPECT_EQ(header(owner, "Set-Cookie"), "");
  // ...but the owner is not locked out: the link signs them in, once.
  std::string path = link(queued_text("target@example.com"), "/signin/link");
  ASSERT_FALSE(path.empty());
  Response page = call("GET", path);
  EXPECT_EQ(page.status, 200);
  EXPECT_NE(page.body.find("id=\"signin-link\""), std::string::npos);  // a button: scanners do not spend it
  Request parsed;
  ASSERT_TRUE(parse_target(path, parsed));
  std::string fields = "token=" + *parsed.param("token") + "&sig=" + *parsed.param("sig");
  Response in = call("POST", "/signin/link", fields);
  ASSERT_EQ(in.status, 303) << in.body;
  EXPECT_EQ(header(in, "Location"), "/dashboard");
  std::string cookie = header(in, "Set-Cookie");
  Client c{cookie.substr(0, cookie.find(';')), ""};
  EXPECT_EQ(json::parse(call("GET", "/api/me", "", &c).body)["signed_in"], true);
  EXPECT_EQ(call("POST", "/signin/link", fields).status, 400);  // used
  // A changed token or signature is refused before the store is read.
  EXPECT_EQ(call("POST", "/signin/link", "token=" + std::string(64, 'a') + "&sig=" + *parsed.param("sig")).status, 400);
}

// Issue 28 (medium): behind one shared address (NAT), 35 failures on made-up accounts locked
// out a colleague with the right password. The address's budget no longer refuses either.
TEST_F(Practice, Finding28_FailuresOnMadeUpAccountsBehindANatDoNotLockOutARealOne) {
  signup("colleague@example.com");
  queued_text("colleague@example.com");
  for (int i = 0; i < 35; ++i) {
    call("POST", "/api/signin", json{{"email", "made-up-" + std::to_string(i) + "@example.com"}, {"password", "guess guess"}}.dump(),
         nullptr, true, "198.51.100.7");
  }
  Response colleague = call("POST", "/api/signin", json{{"email", "colleague@example.com"}, {"password", "correct horse battery"}}.dump(),
                            nullptr, true, "198.51.100.7");
  Response nobody = call("POST", "/api/signin", json{{"email", "nobody-here@example.com"}, {"password", "correct horse battery"}}.dump(),
                         nullptr, true, "198.51.100.7");
  EXPECT_EQ(colleague.status, 429);
  EXPECT_EQ(colleague.body, nobody.body);  // the same answer whether or not the account exists
  std::string path = link(queued_text("colleague@example.com"), "/signin/link");
  ASSERT_FALSE(path.empty()) << "the colleague gets a sign-in link";
  Request parsed;
  ASSERT_TRUE(parse_target(path, parsed));
  EXPECT_EQ(call("POST", "/signin/link", "token=" + *parsed.param("token") + "&sig=" + *parsed.param("sig"), nullptr, true,
                 "198.51.100.7").status, 303);
  // The pair budget still refuses a guesser outright: 5 wrong on one account from one address.
  std::string wrong = json{{"email", "colleague@example.com"}, {"password", "not the password"}}.dump();
  for (int i = 0; i < 5; ++i) call("POST", "/api/signin", wrong, nullptr, true, "203.0.113.5");
  Response refused = call("POST", "/api/signin", wrong, nullptr, true, "203.0.113.5");
  EXPECT_EQ(refused.status, 429);
  EXPECT_EQ(refused.body.find("sign-in link"), std::string::npos);
}

// Issue 28 (medium): each IPv6 /128 counted as a separate address.
TEST_F(Practice, Finding28_AnIpv6GuesserIsOneAddressPerSlash64) {
  signup("v6@example.com");
  std::string wrong = json{{"email", "v6@example.com"}, {"password", "not the password"}}.dump();
  for (int i = 1; i <= 5; ++i) {
    EXPECT_EQ(call("POST", "/api/signin", wrong, nullptr, true, "2001:db8:7:7::" + std::to_string(i)).status, 401);
  }
  EXPECT_EQ(call("POST", "/api/signin", wrong, nullptr, true, "2001:db8:7:7:ffff::9").status, 429);  // same /64: the pair's budget
  EXPECT_EQ(call("POST", "/api/signin", wrong, nullptr, true, "2001:db8:7:8::1").status, 401);        // the next /64
}

// Issue 28 (medium): mail budgets were keyed on the literal address and per purpose: victim+N@
// filled one inbox, and one address got 9 mails in a burst (3 of each kind) against a
// documented 3.
TEST_F(Practice, Finding28_OneInboxGetsThreeMailsInABurstWhateverTheTagOrKind) {
  signup("victim@example.com");  // 1: the verification mail
  for (int i = 0; i < 4; ++i) {
    post_with_pre("/reset", "email=victim%40example.com");  // a reset each
    signup("Victim+" + std::to_string(i) + "@example.com");  // new accounts on tagged addresses: a verification each
  }
  int to_victim = 0;
  auto batch = store_->claim_mail(clock_.now(), 60, 100);
  ASSERT_TRUE(batch.ok());
  for (const auto& m : *batch) to_victim += account::mailbox_key(m.recipient) == "victim@example.com";
  EXPECT_EQ(to_victim, 3);
}

// Finding 4: 32 users signing in from one address (a proxy, an office): 22 got 429.
TEST_F(Practice, Finding04_ManyUsersBehindOneAddressAllSignIn) {
  for (int i = 0; i < 32; ++i) {
    Response r = call("POST", "/api/signup", json{{"email", "user" + std::to_string(i) + "@example.com"},
                                                  {"password", "correct horse battery"}}.dump(), nullptr, true,
                      "10.2.0." + std::to_string(i));
    ASSERT_EQ(r.status, 201);
  }
  // Ten junk attempts from the shared address first.
  std::string junk = json{{"email", "nobody@example.com"}, {"password", "guess guess guess"}}.dump();
  for (int i = 0; i < 10; ++i) call("POST", "/api/signin", junk, nullptr, true, "192.0.2.1");
  for (int i = 0; i < 32; ++i) {
    std::string body = json{{"email", "user" + std::to_string(i) + "@example.com"}, {"password", "correct horse battery"}}.dump();
    EXPECT_EQ(call("POST", "/api/signin", body, nullptr, true, "192.0.2.1").status, 200) << i;
  }
}

// Finding 2: next= injected a Set-Cookie and redirected off-site; the sign-in form had no CSRF token.
TEST_F(Practice, Finding02_NextIsALocalPathAndTheFormNeedsItsToken) {
  signup("n@example.com");
  Response form = call("GET", "/signin?next=/x%0d%0aSet-Cookie:%20ridge_session=attacker");
  ASSERT_EQ(form.status, 200);
  std::string pre_cookie = header(form, "Set-Cookie");
  ASSERT_EQ(pre_cookie.rfind("ridge_pre=", 0), 0u) << pre_cookie;
  std::string pre = pre_cookie.substr(10, 64);
  EXPECT_EQ(form.body.find("attacker"), std::string::npos);  // the bad next is not kept in the form
  EXPECT_NE(form.body.find("name=\"pre\" value=\"" + pre + "\""), std::string::npos);
  EXPECT_NE(header(form, "Cache-Control").find("no-store"), std::string::npos);

  auto post = [&](const std::string& target, const std::string& body, const std::string& cookie) {
    Request req;
    req.method = "POST";
    req.target = target;
    EXPECT_TRUE(parse_target(target, req));
    req.body = body;
    req.remote = "10.0.0.1";
    if (!cookie.empty()) req.headers["cookie"] = cookie;
    return app_->handle(req);
  };
  std::string creds = "email=n%40example.com&password=correct+horse+battery";
  // Without the pre-session token (a cross-site form): refused, nobody signed in.
  Response csrf = post("/signin", creds, "");
  EXPECT_EQ(csrf.status, 403);
  EXPECT_EQ(header(csrf, "Location"), "");
  for (const char* bad : {"/x%0d%0aSet-Cookie:%20ridge_session=attacker;%20Path=/", "/%5Cevil.com", "/%09/evil",
                          "//evil.com", "https://evil.com", "/ok%00"}) {
    Response r = post(std::string("/signin?next=") + bad, creds + "&pre=" + pre, "ridge_pre=" + pre);
    ASSERT_EQ(r.status, 303) << bad << " " << r.body;
    EXPECT_EQ(header(r, "Location"), "/dashboard") << bad;
    int cookies = 0;
    for (const auto& [k, v] : r.headers) {
      if (k == "Set-Cookie" && v.find("attacker") != std::string::npos) ADD_FAILURE() << "injected cookie for " << bad;
      cookies += k == "Set-Cookie";
    }
    EXPECT_EQ(cookies, 2);  // the session, and the cleared pre-session token
  }
  Response ok = post("/signin?next=/review%3Ftopic%3Dkernels", creds + "&pre=" + pre, "ridge_pre=" + pre);
  EXPECT_EQ(header(ok, "Location"), "/review?topic=kernels");
}

TEST(SafeNext, OnlyLocalPathsPass) {
  EXPECT_EQ(safe_next("/q/kv-cache"), "/q/kv-cache");
  EXPECT_EQ(safe_next("/search?q=a&page=2"), "/search?q=a&page=2");
  for (const char* bad : {"", "x", "//evil", "/\\evil", "/\t/evil", "/a\r\nSet-Cookie: x", "/a b", "http://evil"}) {
    EXPECT_EQ(safe_next(bad), "/dashboard") << bad;
  }
  EXPECT_FALSE(valid_header_value("a\r\nb"));
  EXPECT_TRUE(valid_header_value("private, no-store"));
}

// Finding 13: weak passwords and malformed addresses were accepted.
TEST(AccountRules, Finding13_PasswordsAndEmails) {
  EXPECT_FALSE(account::check_password(std::string(10, ' ')).empty());
  EXPECT_FALSE(account::check_password(std::string(10, '\0')).empty());
  EXPECT_FALSE(account::check_password("1234567890").empty());
  EXPECT_FALSE(account::check_password("aaaaaaaaaaaa").empty());
  EXPECT_FALSE(account::check_password("\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9x").empty());  // 6 characters, 11 bytes
  EXPECT_TRUE(account::check_password("correct horse battery").empty());
  EXPECT_TRUE(account::check_password("\xC3\xA9t\xC3\xA9 \xC3\xA0 Paris 2026").empty());
  for (const char* bad : {"a@b.", "x@y@z.com", "a@b", "@b.com", "a b@c.com", "a@-b.com", "a@b..com"}) {
    EXPECT_FALSE(account::check_email(bad).empty()) << bad;
  }
  for (const char* good : {"a@b.co", "first.last+tag@sub.example.org"}) EXPECT_TRUE(account::check_email(good).empty()) << good;
}

TEST_F(Practice, Finding13_SignupDoesNotRevealARegisteredAddress) {
  signup("taken@example.com");
  Response again = call("POST", "/api/signup", json{{"email", "taken@example.com"}, {"password", "another long pass"}}.dump());
  EXPECT_EQ(again.status, 201);
  EXPECT_TRUE(json::parse(again.body).contains("csrf_token"));
}

// Finding 15: 16 KB of unknown parameters produced a 705 KB error; 201 read "Unknown".
TEST_F(Practice, Finding15_ShortErrorsAndTrueReasons) {
  std::string target = "/api/calc/roofline?gpu=h100-sxm";
  for (int i = 0; target.size() < 16000; ++i) target += "&junk" + std::to_string(i) + "=" + std::string(40, 'x');
  Response r = call("GET", target);
  EXPECT_EQ(r.status, 400);
  EXPECT_LT(r.body.size(), 8000u) << r.body.size();
  EXPECT_EQ(status_reason(201), "Created");
  EXPECT_EQ(status_reason(402), "Payment Required");
}

TEST_F(Practice, ExpiredSessionsAreRefused) {
  Client a = signup("d@example.com");
  EXPECT_EQ(call("GET", "/api/progress", "", &a).status, 200);
  clock_.advance(31 * 86400);
  EXPECT_EQ(call("GET", "/api/progress", "", &a).status, 401);
}

TEST_F(Practice, MeShowsTheAccountIdAndTheEndOfAccess) {
  Client a = signup("me@example.com");
  json me = json::parse(call("GET", "/api/me", "", &a).body);
  auto user = *store_->find_user_by_email("me@example.com");
  EXPECT_EQ(me["account_id"], user->account_id);
  EXPECT_NE(me["account_id"], std::to_string(user->id));
  EXPECT_TRUE(me["access_until"].is_null());
  int64_t until = *store_->grant(user->id, 6, clock_.now());
  me = json::parse(call("GET", "/api/me", "", &a).body);
  EXPECT_EQ(me["access_until"], billing::rfc3339(until));
  EXPECT_EQ(me["access_until"].get<std::string>().back(), 'Z');
  EXPECT_NE(std::string(call("GET", "/settings", "", &a).view()).find(billing::rfc3339(until)), std::string::npos);
  EXPECT_NE(std::string(call("GET", "/pricing").view()).find("USD 25.00"), std::string::npos);
}

TEST_F(Practice, SignoutAndAccountDeletion) {
  Client a = signup("h@example.com");
  EXPECT_EQ(call("POST", "/api/signout", "", &a, false).status, 403);
  EXPECT_EQ(call("POST", "/api/signout", "", &a).status, 200);
  EXPECT_EQ(call("GET", "/api/progress", "", &a).status, 401);
  Client b = signup("i@example.com");
  call("POST", "/api/reviews", json{{"slug", "prefill-vs-decode"}, {"grade", 3}}.dump(), &b);
  Response del = call("POST", "/settings", "action=delete&current=correct+horse+battery&csrf=" + b.csrf, &b, false);
  EXPECT_EQ(del.status, 303);
  EXPECT_FALSE(store_->find_user_by_email("i@example.com")->has_value());
}

TEST_F(Practice, ResetLinksWorkOnceForThirtyMinutes) {
  Client a = signup("reset-unit@example.com");
  queued_text("reset-unit@example.com");  // the verification mail
  Response asked = post_with_pre("/reset", "email=reset-unit%40example.com");
  EXPECT_EQ(asked.status, 200);
  std::string path = link(queued_text("reset-unit@example.com"), "/reset/confirm");
  ASSERT_FALSE(path.empty());
  Request parsed;
  ASSERT_TRUE(parse_target(path, parsed));
  std::string fields = "token=" + *parsed.param("token") + "&sig=" + *parsed.param("sig") + "&password=a+brand+new+passphrase";
  clock_.advance(31 * 60);
  Response late = call("POST", "/reset/confirm", fields);
  EXPECT_EQ(late.status, 400);
  EXPECT_NE(late.body.find("expired"), std::string::npos);
  EXPECT_EQ(json::parse(call("GET", "/api/me", "", &a).body)["signed_in"], true);  // nothing changed
  // A fresh link within the 30 minutes works, once.
  clock_.advance(120);  // the recipient's mail budget refills
  post_with_pre("/reset", "email=reset-unit%40example.com");
  path = link(queued_text("reset-unit@example.com"), "/reset/confirm");
  ASSERT_FALSE(path.empty());
  ASSERT_TRUE(parse_target(path, parsed = Request{}));
  fields = "token=" + *parsed.param("token") + "&sig=" + *parsed.param("sig") + "&password=a+brand+new+passphrase";
  clock_.advance(29 * 60);
  EXPECT_EQ(call("POST", "/reset/confirm", fields).status, 303);
  EXPECT_EQ(call("POST", "/reset/confirm", fields).status, 400);
  EXPECT_EQ(json::parse(call("GET", "/api/me", "", &a).body)["signed_in"], false);  // the old session ended
}

TEST_F(Practice, SettingsSendANewVerificationLinkThatVerifies) {
  Client a = signup("again@example.com");
  queued_text("again@example.com");  // the first link, let lapse
  clock_.advance(31 * 60);
  EXPECT_NE(std::string(call("GET", "/settings", "", &a).view()).find("resend-verification"), std::string::npos);
  EXPECT_EQ(call("POST", "/settings", "action=verify", &a, false).status, 403);  // no CSRF token
  EXPECT_EQ(call("POST", "/settings", "action=verify&csrf=" + a.csrf, &a).status, 200);
  std::string path = link(queued_text("again@example.com"), "/verify");
  ASSERT_FALSE(path.empty());
  Request parsed;
  ASSERT_TRUE(parse_target(path, parsed));
  EXPECT_EQ(call("POST", "/verify", "token=" + *parsed.param("token") + "&sig=" + *parsed.param("sig")).status, 200);
  EXPECT_EQ(json::parse(call("GET", "/api/me", "", &a).body)["email_verified"], true);
}

// Issue 28 (high): 100 concurrent wrong current passwords on /settings were all answered 200.
// The budget was added in the service; the page now says so in its status too: 429 and Retry-After.
TEST_F(Practice, Finding28_ASpentPasswordBudgetOnSettingsIsA429WithRetryAfter) {
  Client a = signup("budget@example.com");
  for (int i = 0; i < 5; ++i) {
    Response wrong = call("POST", "/settings", "action=password&current=wrong+" + std::to_string(i) + "&new=a+new+long+passphrase&csrf=" + a.csrf, &a);
    EXPECT_EQ(wrong.status, 200) << i;  // a wrong password is shown on the page
  }
  Response limited = call("POST", "/settings", "action=delete&current=wrong+again&csrf=" + a.csrf, &a);
  EXPECT_EQ(limited.status, 429);
  std::string retry = header(limited, "Retry-After");
  ASSERT_FALSE(retry.empty());
  EXPECT_GT(std::stoi(retry), 0);
  EXPECT_NE(std::string(limited.view()).find("Account settings"), std::string::npos);  // still the page, with its message
  EXPECT_EQ(json::parse(call("GET", "/api/me", "", &a).body)["signed_in"], true);  // nothing was deleted
}

TEST_F(Practice, SubscribeAnswersAlikeAndLinksAreSigned) {
  auto sub = [&](const std::string& email) {
    Request req;
    req.method = "POST";
    req.target = req.path = "/api/subscribe";
    req.headers["content-type"] = "application/json";
    req.body = json{{"email", email}}.dump();
    req.remote = "10.1.1." + std::to_string(email.size());
    return app_->handle(req);
  };
  Response first = sub("s1@example.com");
  EXPECT_EQ(first.status, 202);
  std::string text = queued_text("s1@example.com");
  std::string confirm = link(text, "/subscribe/confirm");
  ASSERT_FALSE(confirm.empty());
  Request parsed;
  ASSERT_TRUE(parse_target(confirm, parsed));
  std::string form = "email=s1%40example.com&expires=" + *parsed.param("expires") + "&sig=" + *parsed.param("sig");
  EXPECT_EQ(call("POST", "/subscribe/confirm", form).status, 200);
  EXPECT_EQ((*store_->find_subscription("s1@example.com"))->status, "confirmed");
  EXPECT_EQ(sub("s1@example.com").body, first.body);  // confirmed: the same answer
  EXPECT_EQ(sub("bad").status, 400);
  std::string unsub = mail::unsubscribe_url(mail_config_, signer_, "s1@example.com").substr(std::string("https://ridge.test").size());
  EXPECT_EQ(call("POST", unsub.substr(0, unsub.size() - 1) + "0", "List-Unsubscribe=One-Click").status, 400);
  EXPECT_EQ(call("POST", unsub, "List-Unsubscribe=One-Click").status, 200);
  EXPECT_EQ((*store_->find_subscription("s1@example.com"))->status, "unsubscribed");
  // An expired confirmation link is refused.
  sub("s2@example.com");
  confirm = link(queued_text("s2@example.com"), "/subscribe/confirm");
  ASSERT_TRUE(parse_target(confirm, parsed = Request{}));
  clock_.advance(8 * 86400);
  EXPECT_EQ(call("POST", "/subscribe/confirm", "email=s2%40example.com&expires=" + *parsed.param("expires") + "&sig=" + *parsed.param("sig")).status, 400);
}

}  // namespace
}  // namespace ridge::web
