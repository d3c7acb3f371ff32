// What a service call gives back: a value, or why there is none. A service never throws and
// never returns HTML or JSON text; the route maps a failure to a status and the view renders.
#pragma once

#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace ridge::web::services {

// One refused input: the field, the value given, what is wrong and what is accepted. The
// JSON error shape ({"errors": [{"field", "value", "message", "accepted"}]}) is this struct.
struct FieldError {
  std::string field, value, message, accepted;
};

struct Failure {
  enum class Kind {
    kInvalid,      // the caller's input: 400 with `errors`
    kUnauthorized, // wrong credentials: 401
    kForbidden,    // the input is well formed but not the caller's to use: 403
    kConflict,     // already done (a used check, a used token): 409
    kLimited,      // a rate limit: 429 with `retry_after`
    kUnavailable,  // the store did not answer: 503, `detail` goes to the log, never to the user
    kInternal,     // a bug or broken content, not the caller's input: 500
    kUpstream,     // a provider (payments) did not answer: 502 with `retry_after`; `detail` is logged
  };
  Kind kind = Kind::kInvalid;
  std::vector<FieldError> errors;  // what the user is told (empty for kUnavailable)
  std::string detail;              // kUnavailable: the store's message, for the log
  int retry_after = 0;             // seconds, for kLimited and kUnavailable

  static Failure invalid(FieldError e) { return {Kind::kInvalid, {std::move(e)}, "", 0}; }
  static Failure unauthorized(FieldError e) { return {Kind::kUnauthorized, {std::move(e)}, "", 0}; }
  static Failure forbidden(FieldError e) { return {Kind::kForbidden, {std::move(e)}, "", 0}; }
  static Failure conflict(FieldError e) { return {Kind::kConflict, {std::move(e)}, "", 0}; }
  static Failure limited(FieldError e, int retry_after) { return {Kind::kLimited, {std::move(e)}, "", retry_after}; }
  static Failure unavailable(std::string detail) { return {Kind::kUnavailable, {}, std::move(detail), 5}; }
  static Failure internal(FieldError e) { return {Kind::kInternal, {std::move(e)}, "", 0}; }
  static Failure upstream(FieldError e, int retry_after) { return {Kind::kUpstream, {std::move(e)}, "", retry_after}; }
  // The first error's message ("" when there is none): for pages that show one line.
  const std::string& message() const {
    static const std::string kNone;
    return errors.empty() ? kNone : errors.front().message;
  }
};

// A value or a Failure. value() on a failed Outcome is a programming error (std::get throws
// std::bad_variant_access); check ok() first.
template <class T>
class [[nodiscard]] Outcome {
 public:
  Outcome(T value) : v_(std::move(value)) {}          // NOLINT: implicit, as std::expected
  Outcome(Failure failure) : v_(std::move(failure)) {}  // NOLINT
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  const T& value() const& { return std::get<0>(v_); }
  T& value() & { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  const T& operator*() const& { return value(); }
  const T* operator->() const { return &value(); }
  const Failure& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Failure> v_;
};

struct Done {};

}  // namespace ridge::web::services
