// Passwords (argon2id through libsodium), random tokens and their hashes. Session tokens
// are 256 random bits; the store keeps only their BLAKE2b hash.
#pragma once

#include <optional>
#include <string>

namespace ridge::account {

// Initializes libsodium once; false if the platform has no usable randomness.
bool init_crypto();

// argon2id, libsodium's interactive limits. Empty on failure (out of memory). These wait for
// a hashing slot however long it takes: for the command line, not for a server's workers.
std::string hash_password(const std::string& password);
bool verify_password(const std::string& hash, const std::string& password);

// The same for a server: at most one hash per core runs and at most kHashWaiting more wait
// for a slot; past that the call does no work and answers busy (the route answers 503 with
// Retry-After), so a flood of password checks ties up a bounded number of worker threads
// (cores + kHashWaiting), never the pool.
inline constexpr int kHashWaiting = 8;
enum class Verified { kMatch, kMismatch, kBusy };
Verified verify_password_bounded(const std::string& hash, const std::string& password);
// nullopt: busy. An empty string: the hash failed (out of memory).
std::optional<std::string> hash_password_bounded(const std::string& password);
// Hashes running or waiting now (for tests and metrics).
int hashes_admitted();

// 32 random bytes as 64 hex characters.
std::string random_token();
// BLAKE2b-256 of the token, hex.
std::string token_hash(const std::string& token);
// Constant-time comparison of two strings of equal length.
bool equal_tokens(const std::string& a, const std::string& b);

// Why a password or email is not acceptable, or empty when it is.
std::string check_email(const std::string& email);
std::string check_password(const std::string& password);

}  // namespace ridge::account
