// The account and mail pages' bodies (the weekly question's subscription, confirm, unsubscribe,
// email verification, password reset) and the account mails' HTML, as functions of plain view
// structs rendered from web/templates: no store, no Request, no clock. Every field is text the
// template escapes; none is inserted raw. The route wraps a page's body in layout().
// Thread safety: every function may be called from any thread (see template.h).
#pragma once

#include <cstdint>
#include <string>

namespace ridge::web::views {

// subscribe.mustache: the sign-up form for the weekly question.
struct SubscribeView {
  std::string message;    // the outcome of a sign-up ("" for none)
  std::string error;      // why a sign-up was refused ("" for none)
  std::string pre_token;  // the form's anti-forgery token (the ridge_pre cookie's value)
  std::string email;      // prefilled from ?email=
};
std::string subscribe_page(const SubscribeView& v);

// subscribe_confirm.mustache: a button, not a state change on GET (mail scanners follow links).
struct SubscribeConfirmView {
  std::string email, expires, sig;  // the signed link's fields, sent back by the form
};
std::string subscribe_confirm_page(const SubscribeConfirmView& v);
std::string subscribed_page(const std::string& email);

// unsubscribe.mustache: the one-click (RFC 8058) form, posting to the link it came from.
struct UnsubscribeView {
  std::string email, sig;
};
std::string unsubscribe_page(const UnsubscribeView& v);
std::string unsubscribed_page(const std::string& email);

// verify.mustache: a button that uses the single-use token.
struct VerifyView {
  std::string token, sig;
};
std::string verify_page(const VerifyView& v);
// signin_link.mustache: a button that spends a mailed sign-in token (same fields as VerifyView).
std::string signin_link_page(const VerifyView& v);
std::string verified_page();

// reset_request.mustache: the form asking for a reset link.
struct ResetRequestView {
  std::string message;    // the answer to a request ("" for none): the same whether or not an account exists
  std::string problem;    // why a request was refused ("" for none)
  std::string pre_token;  // as in SubscribeView
};
std::string reset_request_page(const ResetRequestView& v);

// reset_confirm.mustache: the new password's form.
struct ResetConfirmView {
  std::string problem;  // why the last password was refused ("" for none)
  std::string token, sig;
};
std::string reset_confirm_page(const ResetConfirmView& v);

// The HTML part of the account mails; `link` is the signed, single-use URL.
std::string verify_mail_html(const std::string& link);
std::string reset_mail_html(const std::string& link);

}  // namespace ridge::web::views
