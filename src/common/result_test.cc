// The shared Result type (issue 30 item 1): each constructor and accessor, and a calc failure
// passed up through a service (design grading) reaching the route's JSON with its field,
// value, message and accepted as calc wrote them.
#include "common/result.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "design/challenge.h"
#include "web/test_app.h"

namespace ridge {
namespace {

TEST(Result, FromValue) {
  Result<int> r = 42;
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(static_cast<bool>(r));
  EXPECT_EQ(r.value(), 42);
  EXPECT_EQ(*r, 42);
}

TEST(Result, ArrowAndMoveOut) {
  Result<std::string> r = std::string("abc");
  EXPECT_EQ(r->size(), 3u);
  r.value() += "d";  // the non-const value() is a reference into the Result
  EXPECT_EQ(*r, "abcd");
  std::string taken = std::move(r).value();
  EXPECT_EQ(taken, "abcd");
  // A move-only value comes out by std::move(r).value().
  Result<std::unique_ptr<int>> p = std::make_unique<int>(7);
  std::unique_ptr<int> owned = std::move(p).value();
  EXPECT_EQ(*owned, 7);
}

TEST(Result, FromOneFieldErrorIsInvalid) {
  Result<int> r = FieldError{"gpu", "h1000", "is not a known GPU", "h100-sxm"};
  ASSERT_FALSE(r.ok());
  EXPECT_FALSE(static_cast<bool>(r));
  EXPECT_EQ(r.error().kind, Failure::Kind::kInvalid);
  ASSERT_EQ(r.errors().size(), 1u);
  EXPECT_EQ(&r.errors(), &r.error().errors);  // errors() is error().errors, not a copy
  EXPECT_EQ(r.errors()[0].field, "gpu");
  EXPECT_EQ(r.errors()[0].value, "h1000");
  EXPECT_EQ(r.errors()[0].message, "is not a known GPU");
  EXPECT_EQ(r.errors()[0].accepted, "h100-sxm");
  EXPECT_EQ(r.error().message(), "is not a known GPU");
  EXPECT_TRUE(r.error().detail.empty());
  EXPECT_EQ(r.error().retry_after, 0);
}

TEST(Result, FromErrorsKeepsEveryOneInOrder) {
  Errors two{{"a", "1", "too small", ">= 2"}, {"b", "", "is required", "a number"}};
  Result<double> r = two;
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, Failure::Kind::kInvalid);
  ASSERT_EQ(r.errors().size(), 2u);
  EXPECT_EQ(r.errors()[0].field, "a");
  EXPECT_EQ(r.errors()[1].field, "b");
}

TEST(Result, FromFailureKeepsKindDetailAndRetry) {
  Result<Done> down = Failure::unavailable("database is locked");
  ASSERT_FALSE(down.ok());
  EXPECT_EQ(down.error().kind, Failure::Kind::kUnavailable);
  EXPECT_EQ(down.error().detail, "database is locked");
  EXPECT_TRUE(down.errors().empty());  // nothing for the user
  EXPECT_EQ(down.error().message(), "");
  EXPECT_EQ(down.error().retry_after, 5);
  EXPECT_FALSE(down.error().conflict());

  Result<int> dup = Failure::store_conflict("UNIQUE constraint failed: users.email");
  EXPECT_EQ(dup.error().kind, Failure::Kind::kConflict);
  EXPECT_TRUE(dup.error().conflict());
  EXPECT_EQ(dup.error().detail, "UNIQUE constraint failed: users.email");

  Result<int> slow = Failure::limited({"email", "a@b.c", "too many attempts", "one a minute"}, 60);
  EXPECT_EQ(slow.error().kind, Failure::Kind::kLimited);
  EXPECT_EQ(slow.error().retry_after, 60);
  EXPECT_EQ(slow.errors().at(0).field, "email");
}

TEST(Failure, EachFactorySetsItsKind) {
  FieldError e{"f", "v", "m", "a"};
  EXPECT_EQ(Failure::invalid(e).kind, Failure::Kind::kInvalid);
  EXPECT_EQ(Failure::unauthorized(e).kind, Failure::Kind::kUnauthorized);
  EXPECT_EQ(Failure::forbidden(e).kind, Failure::Kind::kForbidden);
  EXPECT_EQ(Failure::conflict(e).kind, Failure::Kind::kConflict);
  EXPECT_EQ(Failure::internal(e).kind, Failure::Kind::kInternal);
  Failure up = Failure::upstream(e, 30);
  EXPECT_EQ(up.kind, Failure::Kind::kUpstream);
  EXPECT_EQ(up.retry_after, 30);
  EXPECT_EQ(up.errors.at(0).accepted, "a");
}

TEST(FieldError, ToStringNamesFieldValueAndAccepted) {
  // Hand-built: "--" + field + ": " + "'" + value + "' " + message + "; accepted: " + accepted.
  EXPECT_EQ((FieldError{"gpu", "h1000", "is not a known GPU", "a100, h100"}).to_string(),
            "--gpu: 'h1000' is not a known GPU; accepted: a100, h100");
  // No value and nothing accepted: neither part is printed.
  EXPECT_EQ((FieldError{"model", "", "is required", ""}).to_string(), "--model: is required");
  EXPECT_EQ(to_string(Errors{{"a", "", "x", ""}, {"b", "", "y", ""}}), "--a: x\n--b: y\n");
}

// POST /api/design/ID: the route parses the body, DesignService::grade passes calc's
// validate_submission failure up as it is (no copy into another error type), and the route
// writes it in the JSON error shape. No store: grading works without one.
TEST(ResultThroughTheLayers, ACalcFailureReachesTheRoutesJsonIntact) {
  auto loaded = design::load_challenges(std::string(ridge::source_dir()) + "/content/challenges");
  ASSERT_TRUE(loaded.errors.empty()) << to_string(loaded.errors);
  const design::Challenge* c = nullptr;
  for (const auto& each : loaded.challenges) {
    if (each.id == "chat-70b-interactive") c = &each;
  }
  ASSERT_NE(c, nullptr);
  // TP 3 is not among chat-70b-interactive's choices (content/challenges: 1, 2, 4, 8).
  const design::Design given{{"gpu", "h100-sxm"}, {"tp", "3"}, {"replicas", "4"}, {"max_batch", "32"},
                             {"weights_dtype", "fp8"}, {"kv_dtype", "fp8"}};
  Result<design::Design> calc_side = design::validate_submission(*c, given);
  ASSERT_FALSE(calc_side.ok());
  ASSERT_EQ(calc_side.errors().size(), 1u);
  EXPECT_EQ(calc_side.errors()[0].field, "tp");
  EXPECT_EQ(calc_side.errors()[0].value, "3");
  EXPECT_EQ(calc_side.errors()[0].accepted, "1, 2, 4, 8");

  web::AppOptions options;
  options.design_challenges = loaded.challenges;
  auto app = web::testing::real_app(options);
  web::Request req;
  req.method = "POST";
  req.target = "/api/design/chat-70b-interactive";
  ASSERT_TRUE(web::parse_target(req.target, req));
  req.body = R"({"gpu": "h100-sxm", "tp": 3, "replicas": 4, "max_batch": 32, "weights_dtype": "fp8", "kv_dtype": "fp8"})";
  req.remote = "10.0.0.1";
  web::Response r = app->handle(req);
  ASSERT_EQ(r.status, 400) << r.view();
  auto errors = nlohmann::json::parse(r.view())["errors"];
  ASSERT_EQ(errors.size(), 1u) << r.view();
  const FieldError& want = calc_side.errors()[0];
  EXPECT_EQ(errors[0]["field"], want.field);
  EXPECT_EQ(errors[0]["value"], want.value);
  EXPECT_EQ(errors[0]["message"], want.message);
  EXPECT_EQ(errors[0]["accepted"], want.accepted);
}

}  // namespace
}  // namespace ridge
