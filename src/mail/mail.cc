#include "mail/mail.h"

#include "web/url_encode.h"

#include <curl/curl.h>
#include <sodium.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <tuple>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <mutex>

namespace ridge::mail {
namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

std::string one_line(std::string v) {
  for (auto& c : v) {
    if (c == '\r' || c == '\n' || c == '\0') c = ' ';
  }
  return v;
}

bool ascii(const std::string& s) {
  for (unsigned char c : s) {
    if (c >= 0x80) return false;
  }
  return true;
}

std::string base64(const std::string& data) {
  if (data.empty()) return "";
  std::string out(sodium_base64_encoded_len(data.size(), sodium_base64_VARIANT_ORIGINAL), '\0');
  sodium_bin2base64(out.data(), out.size(), reinterpret_cast<const unsigned char*>(data.data()), data.size(),
                    sodium_base64_VARIANT_ORIGINAL);
  out.resize(std::strlen(out.c_str()));
  return out;
}

// Base64 in lines of 76 (RFC 2045).
std::string base64_lines(const std::string& data) {
  std::string b = base64(data), out;
  for (size_t i = 0; i < b.size(); i += 76) out += b.substr(i, 76) + "\r\n";
  return out;
}

// RFC 2047 for a non-ASCII header value.
std::string encode_header(const std::string& v) { return ascii(v) ? v : "=?UTF-8?B?" + base64(v) + "?="; }

std::string random_hex(size_t bytes) {
  std::string raw(bytes, '\0');
  randombytes_buf(raw.data(), raw.size());
  std::string hex(bytes * 2 + 1, '\0');
  sodium_bin2hex(hex.data(), hex.size(), reinterpret_cast<const unsigned char*>(raw.data()), raw.size());
  hex.pop_back();
  return hex;
}

std::string rfc5322_date(int64_t now) {
  std::time_t t = static_cast<std::time_t>(now);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%a, %d %b %Y %H:%M:%S +0000", &tm);
  return buf;
}

struct Upload {
  const std::string* data;
  size_t offset = 0;
};

size_t read_upload(char* buffer, size_t size, size_t n, void* userp) {
  auto* u = static_cast<Upload*>(userp);
  size_t left = u->data->size() - u->offset, take = std::min(left, size * n);
  std::memcpy(buffer, u->data->data() + u->offset, take);
  u->offset += take;
  return take;
}

std::string deliver_smtp(const MailConfig& config, const std::string& recipient, const std::string& message) {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  CURL* curl = curl_easy_init();
  if (!curl) return "curl_easy_init failed";
  std::string from = '<' + config.from_address() + '>', to = '<' + recipient + '>';
  curl_slist* rcpt = curl_slist_append(nullptr, to.c_str());
  Upload upload{&message};
  curl_easy_setopt(curl, CURLOPT_URL, config.smtp_url.c_str());
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "smtp,smtps");
  // STARTTLS whenever the server offers it; with credentials, TLS or nothing, so a password
  // never crosses the network in the clear.
  curl_easy_setopt(curl, CURLOPT_USE_SSL, config.smtp_user.empty() ? static_cast<long>(CURLUSESSL_TRY) : static_cast<long>(CURLUSESSL_ALL));
  if (!config.smtp_user.empty()) {
    curl_easy_setopt(curl, CURLOPT_USERNAME, config.smtp_user.c_str());
    curl_easy_setopt(curl, CURLOPT_PASSWORD, config.smtp_password.c_str());
  }
  if (!config.smtp_ca_file.empty()) curl_easy_setopt(curl, CURLOPT_CAINFO, config.smtp_ca_file.c_str());
  curl_easy_setopt(curl, CURLOPT_MAIL_FROM, from.c_str());
  curl_easy_setopt(curl, CURLOPT_MAIL_RCPT, rcpt);
  curl_easy_setopt(curl, CURLOPT_READFUNCTION, read_upload);
  curl_easy_setopt(curl, CURLOPT_READDATA, &upload);
  curl_easy_setopt(curl, CURLOPT_UPLOAD, 1L);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, 10L);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT, 30L);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  char errbuf[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, errbuf);
  CURLcode rc = curl_easy_perform(curl);
  curl_slist_free_all(rcpt);
  curl_easy_cleanup(curl);
  if (rc == CURLE_OK) return "";
  return std::string(curl_easy_strerror(rc)) + (errbuf[0] ? std::string(": ") + errbuf : "");
}

std::string deliver_dir(const MailConfig& config, int64_t id, const std::string& message) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(config.mail_dir, ec);
  if (ec) return "cannot create " + config.mail_dir + ": " + ec.message();
  char name[64];
  std::snprintf(name, sizeof name, "%012lld.eml", static_cast<long long>(id));
  fs::path final_path = fs::path(config.mail_dir) / name, tmp = final_path;
  tmp += ".tmp-" + random_hex(4);
  {
    std::ofstream out(tmp, std::ios::binary);
    out << message;
    out.flush();
    if (!out) return "cannot write " + tmp.string();
  }
  fs::rename(tmp, final_path, ec);  // whole or not at all
  if (ec) return "cannot rename to " + final_path.string() + ": " + ec.message();
  return "";
}

}  // namespace

std::string MailConfig::from_address() const {
  size_t lt = from.rfind('<'), gt = from.rfind('>');
  if (lt != std::string::npos && gt != std::string::npos && gt > lt) return from.substr(lt + 1, gt - lt - 1);
  return from;
}

std::optional<MailConfig> mail_config_from_env(std::string& error) {
  MailConfig c;
  c.smtp_url = env("RIDGE_SMTP_URL");
  if (!c.smtp_url.empty() && c.smtp_url.rfind("smtp://", 0) != 0 && c.smtp_url.rfind("smtps://", 0) != 0) {
    error = "RIDGE_SMTP_URL '" + c.smtp_url.substr(0, 80) + "' is not an SMTP URL; accepted: smtp://host:port, smtps://host:port";
    return std::nullopt;
  }
  c.smtp_user = env("RIDGE_SMTP_USER");
  c.smtp_password = env("RIDGE_SMTP_PASSWORD");
  c.smtp_ca_file = env("RIDGE_SMTP_CA_FILE");
  if (std::string from = env("RIDGE_MAIL_FROM"); !from.empty()) {
    if (from.find_first_of("\r\n") != std::string::npos || from.find('@') == std::string::npos) {
      error = "RIDGE_MAIL_FROM is not an address; accepted: ridge@example.com or \"ridge <ridge@example.com>\"";
      return std::nullopt;
    }
    c.from = from;
  }
  if (std::string base = env("RIDGE_BASE_URL"); !base.empty()) {
    if (base.rfind("https://", 0) != 0 && base.rfind("http://", 0) != 0) {
      error = "RIDGE_BASE_URL '" + base.substr(0, 80) + "' is not an http(s) URL";
      return std::nullopt;
    }
    while (!base.empty() && base.back() == '/') base.pop_back();
    c.base_url = base;
  }
  for (auto [name, field, max] : {std::tuple{"RIDGE_MAIL_RETRY_SECONDS", &c.retry_base_seconds, 3600},
                                  std::tuple{"RIDGE_MAIL_POLL_SECONDS", &c.poll_seconds, 3600}}) {
    std::string v = env(name);
    if (v.empty()) continue;
    char* end = nullptr;
    long n = std::strtol(v.c_str(), &end, 10);
    if (*end != 0 || n < 1 || n > max) {
      error = std::string(name) + " '" + v.substr(0, 20) + "' is out of range; accepted: 1 to " + std::to_string(max);
      return std::nullopt;
    }
    *field = static_cast<int>(n);
  }
  return c;
}

std::string render(const MailConfig& config, const Message& m, int64_t now) {
  std::string from_addr = config.from_address();
  std::string domain = from_addr.substr(from_addr.find('@') == std::string::npos ? from_addr.size() : from_addr.find('@') + 1);
  if (domain.empty()) domain = "localhost";
  std::string out;
  out += "From: " + one_line(config.from) + "\r\n";
  out += "To: " + one_line(m.to) + "\r\n";
  out += "Subject: " + encode_header(one_line(m.subject)) + "\r\n";
  out += "Date: " + rfc5322_date(now) + "\r\n";
  out += "Message-ID: <" + random_hex(16) + "@" + one_line(domain) + ">\r\n";
  out += "MIME-Version: 1.0\r\n";
  if (!m.unsubscribe_url.empty()) {
    out += "List-Unsubscribe: <" + one_line(m.unsubscribe_url) + ">, <mailto:" + one_line(from_addr) + "?subject=unsubscribe>\r\n";
    out += "List-Unsubscribe-Post: List-Unsubscribe=One-Click\r\n";
  }
  out += "Auto-Submitted: auto-generated\r\n";
  if (m.html.empty()) {
    out += "Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n" + base64_lines(m.text);
    return out;
  }
  std::string boundary = "=_ridge_" + random_hex(12);
  out += "Content-Type: multipart/alternative; boundary=\"" + boundary + "\"\r\n\r\n";
  out += "--" + boundary + "\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n" + base64_lines(m.text);
  out += "--" + boundary + "\r\nContent-Type: text/html; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n" + base64_lines(m.html);
  out += "--" + boundary + "--\r\n";
  return out;
}

std::string deliver(const MailConfig& config, int64_t id, const std::string& recipient, const std::string& message) {
  if (recipient.find_first_of("\r\n<>") != std::string::npos) return "the recipient is not a plain address";
  return config.uses_smtp() ? deliver_smtp(config, recipient, message) : deliver_dir(config, id, message);
}

LinkSigner::LinkSigner(const std::string& secret) {
  if (sodium_init() < 0) std::abort();
  static const char kContext[] = "ridge mail links v1";
  if (secret.empty()) {
    randombytes_buf(key_, sizeof key_);
  } else {
    crypto_generichash(key_, sizeof key_, reinterpret_cast<const unsigned char*>(kContext), sizeof kContext - 1,
                       reinterpret_cast<const unsigned char*>(secret.data()), secret.size());
  }
}

std::string LinkSigner::sign(const std::string& purpose, const std::vector<std::string>& fields) const {
  // Length-prefixed, so no two field lists sign the same bytes.
  std::string message = std::to_string(purpose.size()) + ":" + purpose;
  for (const auto& f : fields) message += '|' + std::to_string(f.size()) + ':' + f;
  unsigned char mac[crypto_auth_hmacsha256_BYTES];
  crypto_auth_hmacsha256_state st;
  crypto_auth_hmacsha256_init(&st, key_, sizeof key_);
  crypto_auth_hmacsha256_update(&st, reinterpret_cast<const unsigned char*>(message.data()), message.size());
  crypto_auth_hmacsha256_final(&st, mac);
  char hex[sizeof mac * 2 + 1];
  sodium_bin2hex(hex, sizeof hex, mac, sizeof mac);
  return hex;
}

bool LinkSigner::verify(const std::string& purpose, const std::vector<std::string>& fields, const std::string& signature) const {
  std::string expected = sign(purpose, fields);
  return signature.size() == expected.size() && sodium_memcmp(signature.data(), expected.data(), expected.size()) == 0;
}


std::string confirm_url(const MailConfig& config, const LinkSigner& signer, const std::string& email, int64_t expires) {
  std::string x = std::to_string(expires);
  return config.base_url + "/subscribe/confirm?email=" + web::url_encode(email) + "&expires=" + x + "&sig=" + signer.sign("confirm", {email, x});
}

std::string unsubscribe_url(const MailConfig& config, const LinkSigner& signer, const std::string& email) {
  return config.base_url + "/unsubscribe?email=" + web::url_encode(email) + "&sig=" + signer.sign("unsubscribe", {email});
}

std::string token_url(const MailConfig& config, const LinkSigner& signer, const std::string& path, const std::string& purpose,
                      const std::string& token) {
  return config.base_url + path + "?token=" + token + "&sig=" + signer.sign(purpose, {token});
}

}  // namespace ridge::mail
