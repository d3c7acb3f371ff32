// Result<T>: a value or a list of field errors. The engine never throws on bad input;
// it returns one of these, and the edges (CLI, HTTP) turn the errors into messages.
#pragma once

#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace ridge::calc {

// One thing wrong with one input. `field` is the parameter name as the user typed it
// (without dashes), `value` what was given, `accepted` what would have been valid.
struct FieldError {
  std::string field;
  std::string value;
  std::string message;
  std::string accepted;

  // "--gpu: 'h1000' is not a known GPU; accepted: a100-80gb-sxm, h100-sxm, ..."
  std::string to_string() const;
};

using Errors = std::vector<FieldError>;

template <class T>
class Result {
 public:
  Result(T value) : data_(std::move(value)) {}  // NOLINT: implicit by design
  Result(FieldError error) : data_(Errors{std::move(error)}) {}  // NOLINT
  Result(Errors errors) : data_(std::move(errors)) {}  // NOLINT

  bool ok() const { return data_.index() == 0; }
  explicit operator bool() const { return ok(); }

  // Precondition: ok().
  const T& value() const& { return std::get<0>(data_); }
  T& value() & { return std::get<0>(data_); }
  T&& value() && { return std::get<0>(std::move(data_)); }
  const T& operator*() const& { return value(); }
  const T* operator->() const { return &value(); }

  // Precondition: !ok().
  const Errors& errors() const { return std::get<1>(data_); }

 private:
  std::variant<T, Errors> data_;
};

// Joins errors into one message, one line each.
std::string to_string(const Errors& errors);

}  // namespace ridge::calc
