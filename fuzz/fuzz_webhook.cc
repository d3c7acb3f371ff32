// Fuzzes the Stripe-Signature parser and check: the first line of the input is the header,
// the rest the payload. It must never crash, and a header it builds itself must verify.
#include <cstdint>
#include <string>

#include "billing/billing.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  size_t nl = text.find('\n');
  std::string header = text.substr(0, nl), payload = nl == std::string::npos ? "" : text.substr(nl + 1);
  (void)ridge::billing::verify_stripe_signature(header, payload, "whsec_fuzz", 1800000000);
  std::string good = ridge::billing::stripe_signature_header(payload, "whsec_fuzz", 1800000000);
  if (ridge::billing::verify_stripe_signature(good, payload, "whsec_fuzz", 1800000000) != ridge::billing::Signature::kOk) __builtin_trap();
  return 0;
}
