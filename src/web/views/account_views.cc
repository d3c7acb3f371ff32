#include "web/views/account_views.h"

#include <initializer_list>
#include <utility>

#include "web/http.h"
#include "web/template.h"

namespace ridge::web::views {

namespace {

using Fields = std::initializer_list<std::pair<std::string, std::string>>;

// A template's data: every field is text, and each message has a `has_NAME` flag beside it,
// so an empty message shows nothing ({{#has_NAME}}).
View fields(Fields text, Fields messages = {}) {
  View d;
  for (const auto& [name, value] : text) put(d, name, value);
  for (const auto& [name, value] : messages) {
    put(d, "has_" + name, !value.empty());
    put(d, name, value);
  }
  return d;
}

}  // namespace

std::string subscribe_page(const SubscribeView& v) {
  return render("subscribe", fields({{"pre_token", v.pre_token}, {"email", v.email}}, {{"message", v.message}, {"error", v.error}}));
}

std::string subscribe_confirm_page(const SubscribeConfirmView& v) {
  return render("subscribe_confirm", fields({{"email", v.email}, {"expires", v.expires}, {"sig", v.sig}}));
}

std::string subscribed_page(const std::string& email) { return render("subscribed", fields({{"email", email}})); }

std::string unsubscribe_page(const UnsubscribeView& v) {
  // The form posts to the link it came from; the template escapes the URL-encoded address.
  return render("unsubscribe", fields({{"email", v.email}, {"email_query", url_encode(v.email)}, {"sig", v.sig}}));
}

std::string unsubscribed_page(const std::string& email) { return render("unsubscribed", fields({{"email", email}})); }

std::string verify_page(const VerifyView& v) { return render("verify", fields({{"token", v.token}, {"sig", v.sig}})); }
std::string signin_link_page(const VerifyView& v) { return render("signin_link", fields({{"token", v.token}, {"sig", v.sig}})); }

std::string verified_page() { return render("verified", View()); }

std::string reset_request_page(const ResetRequestView& v) {
  return render("reset_request", fields({{"pre_token", v.pre_token}}, {{"message", v.message}, {"problem", v.problem}}));
}

std::string reset_confirm_page(const ResetConfirmView& v) {
  return render("reset_confirm", fields({{"token", v.token}, {"sig", v.sig}}, {{"problem", v.problem}}));
}

std::string verify_mail_html(const std::string& link) { return render("mail_verify", fields({{"link", link}})); }
std::string reset_mail_html(const std::string& link) { return render("mail_reset", fields({{"link", link}})); }

}  // namespace ridge::web::views
