// Result<T>: a value, or a Failure saying why there is none. One type for the engine (calc),
// the store and the services (issue 30): nothing throws on bad input or a store that does not
// answer; the edges (CLI, HTTP routes) turn a Failure into a message or a status.
#pragma once

#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace ridge {

// One thing wrong with one input. `field` is the parameter name as the user typed it (without
// dashes), `value` what was given, `accepted` what would have been valid. The web's JSON error
// shape ({"errors": [{"field", "value", "message", "accepted"}]}) is this struct.
struct FieldError {
  std::string field;
  std::string value;
  std::string message;
  std::string accepted;

  // "--gpu: 'h1000' is not a known GPU; accepted: a100-80gb-sxm, h100-sxm, ..."
  std::string to_string() const;
};

using Errors = std::vector<FieldError>;

// Joins errors into one message, one line each.
std::string to_string(const Errors& errors);

struct Failure {
  enum class Kind {
    kInvalid,      // the caller's input: 400 with `errors`
    kUnauthorized, // wrong credentials: 401
    kForbidden,    // the input is well formed but not the caller's to use: 403
    kConflict,     // already done (a used check, a used token, a unique key that exists): 409
    kLimited,      // a rate limit: 429 with `retry_after`
    kUnavailable,  // the store did not answer: 503, `detail` goes to the log, never to the user
    kInternal,     // a bug or broken content, not the caller's input: 500
    kUpstream,     // a provider (payments) did not answer: 502 with `retry_after`; `detail` is logged
  };
  Kind kind = Kind::kInvalid;
  Errors errors;        // what the user is told (empty for a store's failure)
  std::string detail;   // the store's or the provider's message, for the log
  int retry_after = 0;  // seconds, for kLimited, kUnavailable and kUpstream

  static Failure invalid(FieldError e) { return {Kind::kInvalid, {std::move(e)}, "", 0}; }
  static Failure invalid(Errors e) { return {Kind::kInvalid, std::move(e), "", 0}; }
  static Failure unauthorized(FieldError e) { return {Kind::kUnauthorized, {std::move(e)}, "", 0}; }
  static Failure forbidden(FieldError e) { return {Kind::kForbidden, {std::move(e)}, "", 0}; }
  static Failure conflict(FieldError e) { return {Kind::kConflict, {std::move(e)}, "", 0}; }
  static Failure limited(FieldError e, int retry_after) { return {Kind::kLimited, {std::move(e)}, "", retry_after}; }
  static Failure unavailable(std::string detail) { return {Kind::kUnavailable, {}, std::move(detail), 5}; }
  static Failure internal(FieldError e) { return {Kind::kInternal, {std::move(e)}, "", 0}; }
  static Failure upstream(FieldError e, int retry_after) { return {Kind::kUpstream, {std::move(e)}, "", retry_after}; }
  // A write the store refused because it collides (a unique key that exists, a row changed
  // since it was read): kConflict with the store's message as the detail and nothing for the
  // user; the caller decides what to say.
  static Failure store_conflict(std::string detail) { return {Kind::kConflict, {}, std::move(detail), 0}; }

  bool conflict() const { return kind == Kind::kConflict; }
  // The first error's message ("" when there is none): for pages that show one line.
  const std::string& message() const {
    static const std::string kNone;
    return errors.empty() ? kNone : errors.front().message;
  }
};

// A value or a Failure. value() on a failed Result is a programming error (std::get throws
// std::bad_variant_access); check ok() first. Implicit from the value, from one FieldError or
// a list of them (a Failure of kind invalid), and from a Failure, as std::expected is.
template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}                             // NOLINT: implicit by design
  Result(FieldError error) : v_(Failure::invalid(std::move(error))) {}  // NOLINT
  Result(Errors errors) : v_(Failure::invalid(std::move(errors))) {}    // NOLINT
  Result(Failure failure) : v_(std::move(failure)) {}                   // NOLINT

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  // Precondition: ok().
  const T& value() const& { return std::get<0>(v_); }
  T& value() & { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  const T& operator*() const& { return value(); }
  const T* operator->() const { return &value(); }

  // Precondition: !ok().
  const Failure& error() const { return std::get<1>(v_); }
  // The field errors of an invalid input: what calc's many call sites read.
  const Errors& errors() const { return error().errors; }

 private:
  std::variant<T, Failure> v_;
};

// The value of a call that gives back nothing but success.
struct Done {};

}  // namespace ridge
