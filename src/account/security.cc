#include "account/security.h"

#include <sodium.h>

namespace ridge::account {

bool init_crypto() {
  static const bool ok = sodium_init() >= 0;
  return ok;
}

std::string hash_password(const std::string& password) {
  init_crypto();
  char out[crypto_pwhash_STRBYTES];
  if (crypto_pwhash_str_alg(out, password.data(), password.size(), crypto_pwhash_OPSLIMIT_INTERACTIVE,
                            crypto_pwhash_MEMLIMIT_INTERACTIVE, crypto_pwhash_ALG_ARGON2ID13) != 0) {
    return {};
  }
  return out;
}

bool verify_password(const std::string& hash, const std::string& password) {
  init_crypto();
  if (hash.empty() || hash.size() >= crypto_pwhash_STRBYTES) return false;
  return crypto_pwhash_str_verify(hash.c_str(), password.data(), password.size()) == 0;
}

namespace {
std::string hex(const unsigned char* data, size_t n) {
  std::string out(n * 2 + 1, '\0');
  sodium_bin2hex(out.data(), out.size(), data, n);
  out.pop_back();
  return out;
}
}  // namespace

std::string random_token() {
  init_crypto();
  unsigned char buf[32];
  randombytes_buf(buf, sizeof buf);
  return hex(buf, sizeof buf);
}

std::string token_hash(const std::string& token) {
  init_crypto();
  unsigned char out[32];
  crypto_generichash(out, sizeof out, reinterpret_cast<const unsigned char*>(token.data()), token.size(), nullptr, 0);
  return hex(out, sizeof out);
}

bool equal_tokens(const std::string& a, const std::string& b) {
  return a.size() == b.size() && !a.empty() && sodium_memcmp(a.data(), b.data(), a.size()) == 0;
}

std::string check_email(const std::string& email) {
  size_t at = email.find('@');
  if (email.size() > 254) return "is longer than 254 characters";
  if (at == std::string::npos || at == 0 || at + 1 >= email.size() || email.find('.', at) == std::string::npos ||
      email.find_first_of(" \t\r\n<>\"") != std::string::npos) {
    return "is not an email address";
  }
  return {};
}

std::string check_password(const std::string& password) {
  if (password.size() < 10) return "must be at least 10 characters";
  if (password.size() > 256) return "must be at most 256 characters";
  return {};
}

}  // namespace ridge::account
