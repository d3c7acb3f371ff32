// Outgoing mail: configuration, RFC 5322 messages, the two transports (SMTP through libcurl
// with STARTTLS when the server offers it, or .eml files in a directory) and signed links.
// Nothing here sends on a request's path: routes queue messages in the store and the
// Sender (sender.h) delivers them, retrying with backoff.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ridge::mail {

struct MailConfig {
  std::string smtp_url;       // RIDGE_SMTP_URL, smtp://host:port (smtps:// for implicit TLS); empty: the directory
  std::string smtp_user;      // RIDGE_SMTP_USER
  std::string smtp_password;  // RIDGE_SMTP_PASSWORD; never logged
  std::string smtp_ca_file;   // RIDGE_SMTP_CA_FILE: a CA bundle for a server on a private CA (default: the system's)
  std::string from = "ridge <ridge@localhost>";  // RIDGE_MAIL_FROM
  std::string mail_dir = "mail";                 // --mail-dir: where messages go without SMTP
  std::string base_url = "http://localhost:8080";  // RIDGE_BASE_URL: links in messages
  int retry_base_seconds = 30;                   // RIDGE_MAIL_RETRY_SECONDS: first backoff, doubling to an hour
  int poll_seconds = 5;                          // RIDGE_MAIL_POLL_SECONDS: how often the sender looks for due mail
  bool uses_smtp() const { return !smtp_url.empty(); }
  // The bare address of `from` ("ridge@example.com").
  std::string from_address() const;
};

// From the environment; nullopt and `error` naming the variable when one is malformed.
std::optional<MailConfig> mail_config_from_env(std::string& error);

struct Message {
  std::string to;  // a bare address, already checked
  std::string subject;
  std::string text;
  std::string html;  // empty: text only
  // For subscription mail (RFC 2369 and RFC 8058): the signed one-click URL; the mailto is
  // derived from the From address. Empty: no List-Unsubscribe headers.
  std::string unsubscribe_url;
};

// The whole message (headers, MIME multipart/alternative, base64 bodies, CRLF line ends).
// CR and LF in header values are replaced by spaces, so no input can add a header.
std::string render(const MailConfig& config, const Message& message, int64_t now);

// Delivers one rendered message: SMTP or a file in the mail directory. Empty on success,
// otherwise why (for the log: never the password).
std::string deliver(const MailConfig& config, int64_t id, const std::string& recipient, const std::string& message);

// HMAC-SHA256 over a purpose and its fields, keyed from RIDGE_SECRET, so a link in a mail
// proves that this site made it. Verification is constant-time.
class LinkSigner {
 public:
  // An empty secret draws a random key (links then die with the process; serve warns).
  explicit LinkSigner(const std::string& secret);
  std::string sign(const std::string& purpose, const std::vector<std::string>& fields) const;
  bool verify(const std::string& purpose, const std::vector<std::string>& fields, const std::string& signature) const;

 private:
  unsigned char key_[32];
};

// Links that go out in mail, signed by `signer`. Subscription links carry the address; account
// links carry a random single-use token whose hash the store keeps.
std::string confirm_url(const MailConfig& config, const LinkSigner& signer, const std::string& email, int64_t expires);
std::string unsubscribe_url(const MailConfig& config, const LinkSigner& signer, const std::string& email);
std::string token_url(const MailConfig& config, const LinkSigner& signer, const std::string& path, const std::string& purpose,
                      const std::string& token);

}  // namespace ridge::mail
