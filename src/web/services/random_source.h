// Randomness as an interface, as the clock is: the server draws from libsodium, tests from a
// seeded generator, so a drill seed or a readiness nonce is reproducible in a test.
#pragma once

#include <cstdint>
#include <mutex>
#include <random>
#include <string>

namespace ridge::web::services {

class RandomSource {
 public:
  virtual ~RandomSource() = default;
  // Fills `size` bytes at `out`. Thread-safe in both implementations.
  virtual void fill(void* out, size_t size) = 0;

  uint64_t next_u64();
  // `bytes` random bytes as lower-case hex (2 * bytes characters).
  std::string hex(size_t bytes);
};

// libsodium's randombytes_buf: the only source for anything an attacker must not guess.
class SodiumRandom final : public RandomSource {
 public:
  SodiumRandom();  // initializes libsodium (idempotent)
  void fill(void* out, size_t size) override;
};

// A deterministic stream for tests. Never use it to serve.
class SeededRandom final : public RandomSource {
 public:
  explicit SeededRandom(uint64_t seed) : rng_(seed) {}
  void fill(void* out, size_t size) override;

 private:
  std::mutex mutex_;
  std::mt19937_64 rng_;
};

}  // namespace ridge::web::services
