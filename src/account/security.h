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

// The same for a server: at most one fewer hash than the cores runs (one on one core) and at
// most kHashWaiting more wait for a slot; past that the call does no work and answers busy (the
// route answers 503 with Retry-After), so a flood of password checks ties up a bounded number
// of worker threads (slots + kHashWaiting), never the pool, and leaves a core to other pages.
inline constexpr int kHashWaiting = 8;
enum class Verified { kMatch, kMismatch, kBusy };
Verified verify_password_bounded(const std::string& hash, const std::string& password);
// nullopt: busy. An empty string: the hash failed (out of memory).
std::optional<std::string> hash_password_bounded(const std::string& password);
// Hashes running or waiting now (for tests and metrics).
int hashes_admitted();
// Hashes running now (holding a slot), for tests.
int hashes_running();
// Every hash runs on a thread of its own this many nice steps below the server's threads, and
// the caller waits: under a sign-in flood the kernel's scheduler gives the hashing thread about a
// tenth of what its caller gets when both want a core, so the I/O threads and the workers
// answering other pages run first (issue 28: /api/me's p95 under the flood read 104 ms with
// hashes at the workers' priority). Relative, so a server started under `nice` keeps the gap.
inline constexpr int kHashingNice = 10;
// Lowers the calling thread's priority by `steps` nice values, to 19 at most (only ever lower:
// raising it back needs a privilege). Call it once per thread. For threads that run only work a
// flood can send: hashing, the heavy lane.
void lower_this_thread(int steps);
// Every place among the hashes running or waiting is taken: a bounded call now would answer
// busy. A caller checks it first to answer busy without the store round trips a refusal costs.
bool hashing_full();

// 32 random bytes as 64 hex characters.
std::string random_token();
// BLAKE2b-256 of the token, hex.
std::string token_hash(const std::string& token);
// Constant-time comparison of two strings of equal length.
bool equal_tokens(const std::string& a, const std::string& b);

// Why a password or email is not acceptable, or empty when it is.
std::string check_email(const std::string& email);
std::string check_password(const std::string& password);

// The key a client address is limited under: an IPv4 address as it is; an IPv6 address by
// its /64 prefix (one subscriber is usually given a whole /64, so keying each /128 gave one
// attacker 2^64 budgets); an IPv4-mapped IPv6 address as its IPv4 address. Anything else
// (a test's made-up name, a Unix socket) is returned unchanged.
std::string network_key(const std::string& address);

// The mailbox an address delivers to, for per-recipient mail budgets: lower case, the
// sub-address (`+tag`) dropped, and for Gmail the dots of the local part dropped and
// googlemail.com read as gmail.com (Google documents both as the same inbox:
// https://support.google.com/mail/answer/7436150 and /10313). victim+1@ and Victim+2@ are one
// budget, so nobody can fill one inbox by varying the tag.
std::string mailbox_key(const std::string& email);

}  // namespace ridge::account
