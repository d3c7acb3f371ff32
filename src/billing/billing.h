// Paid access: the price, the payment provider's configuration, the Stripe-Signature check
// of its webhooks and the creation of a Checkout Session over its REST API. No card data
// passes through ridge: the provider's page takes the payment, its signed webhook grants.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace ridge::billing {

// A price in minor units of an ISO 4217 currency ("USD 2500" is 25.00 US dollars).
struct Price {
  std::string currency = "USD";
  int64_t minor = 2500;
  // "USD 25.00" (zero-decimal currencies such as JPY without the decimals).
  std::string display() const;
  std::string currency_lower() const;
};

// Parses "USD 2500"; nullopt and `error` naming what is wrong otherwise.
std::optional<Price> parse_price(const std::string& text, std::string& error);

struct BillingConfig {
  Price price;
  int months = 6;  // what one payment buys
  std::string stripe_secret_key;  // RIDGE_STRIPE_SECRET_KEY; never logged
  std::string stripe_api_base = "https://api.stripe.com";
  std::string webhook_secret;  // RIDGE_STRIPE_WEBHOOK_SECRET; never logged
  // Checkout needs the key; the webhook needs its secret. Without both the site is grant-only.
  bool enabled() const { return !stripe_secret_key.empty() && !webhook_secret.empty(); }
};

// From RIDGE_PRICE, RIDGE_STRIPE_SECRET_KEY, RIDGE_STRIPE_API_BASE, RIDGE_STRIPE_WEBHOOK_SECRET.
// nullopt with `error` naming the variable when one is malformed.
std::optional<BillingConfig> billing_config_from_env(std::string& error);

// "2027-06-01T19:55:45Z"
std::string rfc3339(int64_t unix_seconds);

enum class Signature { kOk, kMalformed, kStale, kMismatch };
const char* to_string(Signature s);

// Checks a Stripe-Signature header ("t=TIMESTAMP,v1=HEX[,v1=HEX...]") against the raw
// payload: HMAC-SHA256 of "t.payload" with `secret`, compared in constant time with every
// v1 value (several during a secret rotation); the timestamp within `tolerance` seconds of `now`.
Signature verify_stripe_signature(const std::string& header, const std::string& payload, const std::string& secret,
                                  int64_t now, int64_t tolerance = 300);

// The header Stripe would send for `payload` at `timestamp` (tests).
std::string stripe_signature_header(const std::string& payload, const std::string& secret, int64_t timestamp);

struct Checkout {
  std::string url;    // the hosted payment page, on success
  std::string error;  // why not, for the log (never the key)
};

// POST {api_base}/v1/checkout/sessions: one line item of `price`, client_reference_id =
// `account_id`. Blocks for at most 20 s; call it off the I/O threads.
Checkout create_checkout_session(const BillingConfig& config, const std::string& account_id, const std::string& email,
                                 const std::string& success_url, const std::string& cancel_url);

}  // namespace ridge::billing
