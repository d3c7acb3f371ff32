#include "web/views/account_views.h"

#include "web/http.h"
#include "web/template.h"

namespace ridge::web::views {

namespace {

// A message field and its section flag ({{#has_NAME}}): an empty message shows nothing.
void put_message(View& d, const std::string& name, const std::string& text) {
  put(d, "has_" + name, !text.empty());
  put(d, name, text);
}

}  // namespace

std::string subscribe_page(const SubscribeView& v) {
  View d;
  put_message(d, "message", v.message);
  put_message(d, "error", v.error);
  put(d, "pre_token", v.pre_token);
  put(d, "email", v.email);
  return render("subscribe", d);
}

std::string subscribe_confirm_page(const SubscribeConfirmView& v) {
  View d;
  put(d, "email", v.email);
  put(d, "expires", v.expires);
  put(d, "sig", v.sig);
  return render("subscribe_confirm", d);
}

std::string subscribed_page(const std::string& email) { return render("subscribed", object_with("email", email)); }

std::string unsubscribe_page(const UnsubscribeView& v) {
  View d;
  put(d, "email", v.email);
  put(d, "email_query", url_encode(v.email));  // the template escapes it for the attribute
  put(d, "sig", v.sig);
  return render("unsubscribe", d);
}

std::string unsubscribed_page(const std::string& email) { return render("unsubscribed", object_with("email", email)); }

std::string verify_page(const VerifyView& v) {
  View d;
  put(d, "token", v.token);
  put(d, "sig", v.sig);
  return render("verify", d);
}

std::string verified_page() { return render("verified", View()); }

std::string reset_request_page(const ResetRequestView& v) {
  View d;
  put_message(d, "message", v.message);
  put_message(d, "problem", v.problem);
  put(d, "pre_token", v.pre_token);
  return render("reset_request", d);
}

std::string reset_confirm_page(const ResetConfirmView& v) {
  View d;
  put_message(d, "problem", v.problem);
  put(d, "token", v.token);
  put(d, "sig", v.sig);
  return render("reset_confirm", d);
}

std::string verify_mail_html(const std::string& link) { return render("mail_verify", object_with("link", link)); }
std::string reset_mail_html(const std::string& link) { return render("mail_reset", object_with("link", link)); }

}  // namespace ridge::web::views
