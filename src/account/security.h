// Passwords (argon2id through libsodium), random tokens and their hashes. Session tokens
// are 256 random bits; the store keeps only their BLAKE2b hash.
#pragma once

#include <string>

namespace ridge::account {

// Initializes libsodium once; false if the platform has no usable randomness.
bool init_crypto();

// argon2id, libsodium's interactive limits. Empty on failure (out of memory).
std::string hash_password(const std::string& password);
bool verify_password(const std::string& hash, const std::string& password);

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
