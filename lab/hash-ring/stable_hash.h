// A 64-bit hash that is the same on every machine, compiler and run, for placing keys
// and replicas on a consistent-hash ring. std::hash promises none of that: its values may
// differ between standard libraries and (for some types) between runs.
#pragma once

#include <cstdint>
#include <string_view>

namespace ridge::lab {

// FNV-1a, 64-bit (Fowler, Noll, Vo; offset basis 0xcbf29ce484222325, prime 0x100000001b3).
std::uint64_t fnv1a64(std::string_view bytes);

// MurmurHash3's fmix64 finalizer (Appleby): a bijection that spreads every input bit over
// the output. FNV-1a alone leaves keys that differ in their last byte close together in
// the high bits, which is what a ring's ordering looks at.
std::uint64_t mix64(std::uint64_t x);

// mix64(fnv1a64(bytes)): the hash the ring uses for keys and for virtual-node points.
std::uint64_t stable_hash64(std::string_view bytes);

}  // namespace ridge::lab
