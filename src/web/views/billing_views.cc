#include "web/views/billing_views.h"

#include "billing/billing.h"
#include "web/template.h"

namespace ridge::web::views {

std::string pricing_page(const PricingView& v) {
  View d;
  put(d, "free", std::to_string(v.free));
  put(d, "paid", std::to_string(v.paid));
  put(d, "price", v.price);
  put(d, "months", std::to_string(v.months));
  put(d, "has_access", v.access_until > v.now);
  put(d, "access_until", v.access_until > v.now ? billing::rfc3339(v.access_until) : std::string());
  put(d, "grant_only", v.offer == PricingView::Offer::kGrantOnly);
  put(d, "sign_in", v.offer == PricingView::Offer::kSignIn);
  put(d, "checkout", v.offer == PricingView::Offer::kCheckout);
  put(d, "csrf", v.csrf);
  return render("pricing", d);
}

}  // namespace ridge::web::views
