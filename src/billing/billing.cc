#include "billing/billing.h"

#include <curl/curl.h>
#include <sodium.h>

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <mutex>
#include <nlohmann/json.hpp>
#include <vector>

namespace ridge::billing {
namespace {

bool zero_decimal(const std::string& currency) {
  for (const char* c : {"BIF", "CLP", "DJF", "GNF", "JPY", "KMF", "KRW", "MGA", "PYG", "RWF", "UGX", "VND", "VUV", "XAF", "XOF", "XPF"}) {
    if (currency == c) return true;
  }
  return false;
}

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

std::string hmac_sha256_hex(const std::string& key, const std::string& message) {
  unsigned char mac[crypto_auth_hmacsha256_BYTES];
  crypto_auth_hmacsha256_state st;
  crypto_auth_hmacsha256_init(&st, reinterpret_cast<const unsigned char*>(key.data()), key.size());
  crypto_auth_hmacsha256_update(&st, reinterpret_cast<const unsigned char*>(message.data()), message.size());
  crypto_auth_hmacsha256_final(&st, mac);
  char hex[sizeof mac * 2 + 1];
  sodium_bin2hex(hex, sizeof hex, mac, sizeof mac);
  return hex;
}

size_t append_body(char* data, size_t size, size_t n, void* out) {
  auto* s = static_cast<std::string*>(out);
  if (s->size() + size * n > 1 << 20) return 0;  // a provider's answer is small
  s->append(data, size * n);
  return size * n;
}

}  // namespace

std::string Price::display() const {
  if (zero_decimal(currency)) return currency + " " + std::to_string(minor);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s %lld.%02lld", currency.c_str(), static_cast<long long>(minor / 100),
                static_cast<long long>(minor % 100));
  return buf;
}

std::string Price::currency_lower() const {
  std::string c = currency;
  for (auto& ch : c) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return c;
}

std::optional<Price> parse_price(const std::string& text, std::string& error) {
  size_t space = text.find(' ');
  std::string currency = text.substr(0, space), amount = space == std::string::npos ? "" : text.substr(space + 1);
  bool currency_ok = currency.size() == 3 && std::all_of(currency.begin(), currency.end(), [](char c) { return c >= 'A' && c <= 'Z'; });
  bool amount_ok = !amount.empty() && amount.size() <= 9 && std::all_of(amount.begin(), amount.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (!currency_ok || !amount_ok || std::stoll(amount) <= 0) {
    error = "RIDGE_PRICE '" + text.substr(0, 40) + "' is not a price; accepted: an ISO 4217 code and a positive amount in minor units, such as \"USD 2500\"";
    return std::nullopt;
  }
  return Price{currency, std::stoll(amount)};
}

std::optional<BillingConfig> billing_config_from_env(std::string& error) {
  BillingConfig c;
  if (std::string p = env("RIDGE_PRICE"); !p.empty()) {
    auto price = parse_price(p, error);
    if (!price) return std::nullopt;
    c.price = *price;
  }
  c.stripe_secret_key = env("RIDGE_STRIPE_SECRET_KEY");
  c.webhook_secret = env("RIDGE_STRIPE_WEBHOOK_SECRET");
  if (std::string base = env("RIDGE_STRIPE_API_BASE"); !base.empty()) {
    if (base.rfind("https://", 0) != 0 && base.rfind("http://", 0) != 0) {
      error = "RIDGE_STRIPE_API_BASE '" + base.substr(0, 80) + "' is not an http(s) URL";
      return std::nullopt;
    }
    while (!base.empty() && base.back() == '/') base.pop_back();
    c.stripe_api_base = base;
  }
  return c;
}

std::string rfc3339(int64_t unix_seconds) {
  std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

const char* to_string(Signature s) {
  switch (s) {
    case Signature::kOk: return "ok";
    case Signature::kMalformed: return "malformed Stripe-Signature header";
    case Signature::kStale: return "timestamp outside the tolerance";
    case Signature::kMismatch: return "no signature matches";
  }
  return "?";
}

Signature verify_stripe_signature(const std::string& header, const std::string& payload, const std::string& secret, int64_t now,
                                  int64_t tolerance) {
  if (secret.empty() || header.size() > 4096) return Signature::kMalformed;
  std::string timestamp;
  std::vector<std::string> v1;
  for (size_t pos = 0; pos <= header.size();) {
    size_t comma = header.find(',', pos);
    std::string item = header.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    pos = comma == std::string::npos ? header.size() + 1 : comma + 1;
    while (!item.empty() && item.front() == ' ') item.erase(item.begin());
    size_t eq = item.find('=');
    if (eq == std::string::npos) continue;
    std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    if (key == "t") timestamp = value;
    if (key == "v1") v1.push_back(value);
  }
  if (timestamp.empty() || timestamp.size() > 12 || v1.empty() ||
      !std::all_of(timestamp.begin(), timestamp.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return Signature::kMalformed;
  }
  std::string expected = hmac_sha256_hex(secret, timestamp + "." + payload);
  bool match = false;
  for (const auto& candidate : v1) {
    // Every candidate is compared, in constant time for its length.
    if (candidate.size() == expected.size() && sodium_memcmp(candidate.data(), expected.data(), expected.size()) == 0) match = true;
  }
  if (!match) return Signature::kMismatch;
  int64_t t = std::stoll(timestamp);
  if (t < now - tolerance || t > now + tolerance) return Signature::kStale;
  return Signature::kOk;
}

std::string stripe_signature_header(const std::string& payload, const std::string& secret, int64_t timestamp) {
  std::string t = std::to_string(timestamp);
  return "t=" + t + ",v1=" + hmac_sha256_hex(secret, t + "." + payload);
}

Checkout create_checkout_session(const BillingConfig& config, const std::string& account_id, const std::string& email,
                                 const std::string& success_url, const std::string& cancel_url) {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  CURL* curl = curl_easy_init();
  if (!curl) return {"", "curl_easy_init failed"};
  auto field = [&](const std::string& k, const std::string& v) {
    char* ek = curl_easy_escape(curl, k.c_str(), static_cast<int>(k.size()));
    char* ev = curl_easy_escape(curl, v.c_str(), static_cast<int>(v.size()));
    std::string out = std::string(ek ? ek : "") + "=" + (ev ? ev : "");
    curl_free(ek);
    curl_free(ev);
    return out;
  };
  std::string body = field("mode", "payment") + "&" + field("client_reference_id", account_id) + "&" +
                     field("success_url", success_url) + "&" + field("cancel_url", cancel_url) + "&" +
                     field("line_items[0][quantity]", "1") + "&" +
                     field("line_items[0][price_data][currency]", config.price.currency_lower()) + "&" +
                     field("line_items[0][price_data][unit_amount]", std::to_string(config.price.minor)) + "&" +
                     field("line_items[0][price_data][product_data][name]",
                           "ridge: " + std::to_string(config.months) + " months of worked answers") +
                     "&" + field("metadata[account_id]", account_id);
  if (!email.empty()) body += '&' + field("customer_email", email);
  std::string url = config.stripe_api_base + "/v1/checkout/sessions", response;
  std::string auth = "Authorization: Bearer " + config.stripe_secret_key;
  curl_slist* headers = curl_slist_append(nullptr, auth.c_str());
  headers = curl_slist_append(headers, "Content-Type: application/x-www-form-urlencoded");
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.c_str());
  curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, append_body);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &response);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT, 20L);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, 5L);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
  CURLcode rc = curl_easy_perform(curl);
  long status = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  curl_slist_free_all(headers);
  curl_easy_cleanup(curl);
  if (rc != CURLE_OK) return {"", std::string("checkout request failed: ") + curl_easy_strerror(rc)};
  auto j = nlohmann::json::parse(response, nullptr, false);
  if (status != 200 || !j.is_object() || !j["url"].is_string()) {
    std::string why = j.is_object() && j["error"].is_object() && j["error"]["message"].is_string() ? j["error"]["message"].get<std::string>() : "";
    return {"", "checkout answered HTTP " + std::to_string(status) + (why.empty() ? "" : ": " + why.substr(0, 200))};
  }
  std::string session_url = j["url"];
  if (session_url.rfind("https://", 0) != 0 && session_url.rfind("http://", 0) != 0) return {"", "checkout answered a URL that is not http(s)"};
  return {session_url, ""};
}

}  // namespace ridge::billing
