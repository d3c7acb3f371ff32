#include "account/security.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <semaphore>
#include <set>
#include <string_view>
#include <system_error>
#include <thread>

#include <arpa/inet.h>
#include <sodium.h>
#include <sys/resource.h>
#include <unistd.h>

namespace ridge::account {

bool init_crypto() {
  static const bool ok = sodium_init() >= 0;
  return ok;
}

namespace {
// Each hash takes 64 MiB (MEMLIMIT_INTERACTIVE) and a core for tens of milliseconds. At most
// one fewer than the cores run at once (one on one core), however many worker threads ask: a
// sign-in flood leaves a core to everyone else (issue 28: with a hash per core, /api/me's p95
// read 194 ms under 100 clients signing in), and memory stays bounded.
unsigned hashing_slot_count() {
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  return std::max(1u, cores - 1);
}
std::counting_semaphore<>& hashing_slots() {
  static std::counting_semaphore<> slots(static_cast<std::ptrdiff_t>(hashing_slot_count()));
  return slots;
}
std::atomic<int>& running() {
  static std::atomic<int> n{0};
  return n;
}
struct HashingSlot {
  HashingSlot() {
    hashing_slots().acquire();
    running().fetch_add(1);
  }
  ~HashingSlot() {
    running().fetch_sub(1);
    hashing_slots().release();
  }
  HashingSlot(const HashingSlot&) = delete;
  HashingSlot& operator=(const HashingSlot&) = delete;
};

std::atomic<int>& admitted() {
  static std::atomic<int> n{0};
  return n;
}
int admission_limit() {
  static const int limit = static_cast<int>(hashing_slot_count()) + kHashWaiting;
  return limit;
}
// A place among the hashes running or waiting, if one is free. Taken without waiting.
class Admission {
 public:
  Admission() {
    int n = admitted().load();
    while (n < admission_limit() && !admitted().compare_exchange_weak(n, n + 1)) {
    }
    ok_ = n < admission_limit();
  }
  ~Admission() {
    if (ok_) admitted().fetch_sub(1);
  }
  Admission(const Admission&) = delete;
  Admission& operator=(const Admission&) = delete;
  bool ok() const { return ok_; }

 private:
  bool ok_ = false;
};
}  // namespace

void lower_this_thread(int steps) {
  const id_t tid = static_cast<id_t>(::gettid());
  errno = 0;
  const int now = ::getpriority(PRIO_PROCESS, tid);
  if (errno == 0 && now < 19) (void)::setpriority(PRIO_PROCESS, tid, std::min(19, now + steps));
}

namespace {
// Runs `f` on a thread of its own kHashingNice steps below its caller and waits for it (a thread costs tens of
// microseconds, a hash tens of milliseconds). Where no thread can be started, on the caller's.
template <class F>
auto at_hashing_priority(F f) -> decltype(f()) {
  decltype(f()) out{};
  try {
    std::thread t([&] {
      lower_this_thread(kHashingNice);
      out = f();
    });
    t.join();
  } catch (const std::system_error&) {
    out = f();
  }
  return out;
}
}  // namespace

int hashes_admitted() { return admitted().load(); }
int hashes_running() { return running().load(); }
bool hashing_full() { return admitted().load() >= admission_limit(); }

Verified verify_password_bounded(const std::string& hash, const std::string& password) {
  Admission admission;
  if (!admission.ok()) return Verified::kBusy;
  return verify_password(hash, password) ? Verified::kMatch : Verified::kMismatch;
}

std::optional<std::string> hash_password_bounded(const std::string& password) {
  Admission admission;
  if (!admission.ok()) return std::nullopt;
  return hash_password(password);
}

std::string hash_password(const std::string& password) {
  init_crypto();
  HashingSlot slot;
  return at_hashing_priority([&]() -> std::string {
    char out[crypto_pwhash_STRBYTES];
    if (crypto_pwhash_str_alg(out, password.data(), password.size(), crypto_pwhash_OPSLIMIT_INTERACTIVE,
                              crypto_pwhash_MEMLIMIT_INTERACTIVE, crypto_pwhash_ALG_ARGON2ID13) != 0) {
      return {};
    }
    return out;
  });
}

bool verify_password(const std::string& hash, const std::string& password) {
  init_crypto();
  if (hash.empty() || hash.size() >= crypto_pwhash_STRBYTES) return false;
  HashingSlot slot;
  return at_hashing_priority([&] { return crypto_pwhash_str_verify(hash.c_str(), password.data(), password.size()) == 0; });
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
  // The HTML standard's valid e-mail address: a local part of atext and dots, '@', then
  // labels of letters, digits and inner hyphens (at most 63 each) joined by dots; we also
  // ask for at least one dot in the domain (a deliverable address).
  if (email.size() > 254) return "is longer than 254 characters";
  size_t at = email.find('@');
  if (at == std::string::npos || at == 0 || email.find('@', at + 1) != std::string::npos) {
    return "is not an email address (one '@' between a name and a domain)";
  }
  static constexpr std::string_view kLocal = ".!#$%&'*+/=?^_`{|}~-";
  for (size_t i = 0; i < at; ++i) {
    unsigned char c = static_cast<unsigned char>(email[i]);
    if (!std::isalnum(c) && kLocal.find(static_cast<char>(c)) == std::string_view::npos) {
      return "is not an email address (the part before '@' holds a character that is not allowed)";
    }
  }
  std::string_view domain = std::string_view(email).substr(at + 1);
  if (domain.find('.') == std::string_view::npos) return "is not an email address (the domain has no dot)";
  size_t start_label = 0;
  for (size_t i = 0; i <= domain.size(); ++i) {
    if (i < domain.size() && domain[i] != '.') {
      unsigned char c = static_cast<unsigned char>(domain[i]);
      if (!std::isalnum(c) && c != '-') return "is not an email address (the domain holds a character that is not allowed)";
      continue;
    }
    std::string_view label = domain.substr(start_label, i - start_label);
    if (label.empty() || label.size() > 63 || label.front() == '-' || label.back() == '-') {
      return "is not an email address (each part of the domain is 1 to 63 letters, digits or inner hyphens)";
    }
    start_label = i + 1;
  }
  return {};
}

std::string check_password(const std::string& password) {
  // Length in code points (UTF-8 lead bytes), not bytes.
  size_t chars = 0;
  for (unsigned char c : password) chars += (c & 0xC0) != 0x80;
  if (chars < 10) return "must be at least 10 characters";
  if (password.size() > 256) return "must be at most 256 bytes";
  if (password.find('\0') != std::string::npos) return "must not contain a NUL character";
  if (password.find_first_not_of(" \t\r\n") == std::string::npos) return "must not be only spaces";
  if (password.find_first_not_of(password[0]) == std::string::npos) return "must not be one character repeated";
  // The most common passwords of ten or more characters (public breach-corpus top lists).
  static const std::set<std::string, std::less<>> kCommon = {
      "1234567890", "0123456789", "12345678910", "123456789a", "1q2w3e4r5t", "qwertyuiop", "1qaz2wsx3edc",
      "password123", "password12", "password1!", "iloveyou123", "abcdefghij", "abc1234567", "0987654321",
      "qwerty1234", "qwertyuiop1", "asdfghjkl;", "zxcvbnm123", "letmein123", "welcome123", "football123",
      "1234qwerasdf", "passw0rd123", "administrator", "a123456789", "123456789q", "princess123", "sunshine123"};
  std::string lower;
  for (unsigned char c : password) lower += static_cast<char>(std::tolower(c));
  if (kCommon.count(lower)) return "is one of the most common passwords; choose another";
  return {};
}

std::string network_key(const std::string& address) {
  unsigned char v6[16];
  if (address.find(':') == std::string::npos || inet_pton(AF_INET6, address.c_str(), v6) != 1) return address;
  static const unsigned char kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  char text[INET6_ADDRSTRLEN];
  if (std::equal(kMapped, kMapped + 12, v6)) {
    if (inet_ntop(AF_INET, v6 + 12, text, sizeof text) != nullptr) return text;
    return address;
  }
  std::fill(v6 + 8, v6 + 16, 0);
  if (inet_ntop(AF_INET6, v6, text, sizeof text) == nullptr) return address;
  return std::string(text) + "/64";
}

std::string mailbox_key(const std::string& email) {
  std::string e = email;
  std::transform(e.begin(), e.end(), e.begin(), [](unsigned char c) { return std::tolower(c); });
  size_t at = e.rfind('@');
  if (at == std::string::npos) return e;
  std::string local = e.substr(0, at), domain = e.substr(at + 1);
  if (size_t plus = local.find('+'); plus != std::string::npos && plus > 0) local.resize(plus);
  if (domain == "googlemail.com") domain = "gmail.com";
  if (domain == "gmail.com") local.erase(std::remove(local.begin(), local.end(), '.'), local.end());
  return local + "@" + domain;
}

}  // namespace ridge::account
