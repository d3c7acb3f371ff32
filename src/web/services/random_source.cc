#include "web/services/random_source.h"

#include <sodium.h>

#include <cstring>

#include "account/security.h"

namespace ridge::web::services {

uint64_t RandomSource::next_u64() {
  uint64_t v = 0;
  fill(&v, sizeof v);
  return v;
}

std::string RandomSource::hex(size_t bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string raw(bytes, '\0'), out;
  fill(raw.data(), raw.size());
  out.reserve(bytes * 2);
  for (unsigned char c : raw) {
    out += kDigits[c >> 4];
    out += kDigits[c & 15];
  }
  return out;
}

SodiumRandom::SodiumRandom() { account::init_crypto(); }

void SodiumRandom::fill(void* out, size_t size) { randombytes_buf(out, size); }

void SeededRandom::fill(void* out, size_t size) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto* bytes = static_cast<unsigned char*>(out);
  while (size > 0) {
    uint64_t v = rng_();
    size_t n = std::min(size, sizeof v);
    std::memcpy(bytes, &v, n);
    bytes += n;
    size -= n;
  }
}

}  // namespace ridge::web::services
