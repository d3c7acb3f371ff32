// The pricing page's body as a function of a plain view struct, rendered from
// web/templates/pricing.mustache: no store, no Request, no clock. Every field is escaped text.
// Thread safety: may be called from any thread (see template.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace ridge::web::views {

struct PricingView {
  size_t free = 0, paid = 0;  // questions in the bank with an open or a paid worked answer
  std::string price;          // as displayed ("€19")
  int months = 0;             // what one payment buys
  int64_t access_until = 0;   // unix seconds; shown when after `now` (0 for never paid or signed out)
  int64_t now = 0;
  // What the page offers: nothing to pay with (grant-only), a sign-in link, or the checkout form.
  enum class Offer { kGrantOnly, kSignIn, kCheckout };
  Offer offer = Offer::kGrantOnly;
  std::string csrf;  // the checkout form's token (kCheckout)
};
std::string pricing_page(const PricingView& v);

}  // namespace ridge::web::views
