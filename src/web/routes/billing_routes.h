// Billing: the pricing page, Stripe Checkout and its webhook. The route parses and checks; the
// store grants (once per event, in one transaction); the provider's page takes the payment, so
// no card data ever reaches ridge.
#pragma once

#include "bank/question.h"
#include "web/http.h"
#include "web/routes/context.h"

namespace ridge::web::routes {

// GET /pricing: the price, what it opens, and the way to pay (or to sign in first).
Response pricing(const Request& req, const Context& ctx);
// POST /billing/checkout (signed in, CSRF): a redirect to the provider's checkout page.
Response checkout(const Request& req, const Context& ctx);
// POST /billing/webhook: the provider's signed event; 400 for a bad signature, 503 on a store
// failure (the provider retries).
Response webhook(const Request& req, const Context& ctx);

// 402 for a paid question's answer without access, naming the price and where to pay.
Response payment_required(const bank::Question& q, const Context& ctx);

}  // namespace ridge::web::routes
