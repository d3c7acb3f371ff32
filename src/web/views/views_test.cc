// The account, mail and pricing views: what reaches the page is escaped where it must be, and
// each optional part shows only when its field is set.
#include <gtest/gtest.h>

#include "web/views/account_views.h"
#include "web/views/billing_views.h"

namespace ridge::web::views {
namespace {

TEST(AccountViews, SubscribeEscapesThePrefilledAddressAndShowsOnlyTheSetMessage) {
  std::string page = subscribe_page({"", "", "pre123", "a\"><script>@x.com"});
  EXPECT_NE(page.find("value=\"a&quot;&gt;&lt;script&gt;@x.com\""), std::string::npos) << page;
  EXPECT_EQ(page.find("<script>"), std::string::npos);
  EXPECT_EQ(page.find("subscribe-message"), std::string::npos);
  EXPECT_EQ(page.find("subscribe-error"), std::string::npos);
  page = subscribe_page({"", "email <x> is not an address", "pre123", ""});
  EXPECT_NE(page.find("id=\"subscribe-error\">email &lt;x&gt; is not an address</p>"), std::string::npos) << page;
}

TEST(AccountViews, UnsubscribePostsToItsLinkUrlEncodedThenEscaped) {
  std::string page = unsubscribe_page({"a+b&c@example.com", "ff00"});
  EXPECT_NE(page.find("action=\"/unsubscribe?email=a%2Bb%26c%40example.com&amp;sig=ff00\""), std::string::npos) << page;
  EXPECT_NE(page.find("<strong>a+b&amp;c@example.com</strong>"), std::string::npos) << page;
}

TEST(AccountViews, ResetConfirmCarriesTheTokenAndShowsTheProblem) {
  std::string page = reset_confirm_page({"password must have at least 10 characters", "t0k", "s1g"});
  EXPECT_NE(page.find("name=\"token\" value=\"t0k\""), std::string::npos);
  EXPECT_NE(page.find("name=\"sig\" value=\"s1g\""), std::string::npos);
  EXPECT_NE(page.find("id=\"reset-error\">password must have at least 10 characters</p>"), std::string::npos) << page;
  EXPECT_EQ(reset_confirm_page({"", "t", "s"}).find("reset-error"), std::string::npos);
}

TEST(AccountViews, MailLinksAreEscapedForTheAttribute) {
  std::string html = verify_mail_html("https://ridge.test/verify?token=ab&sig=cd");
  EXPECT_NE(html.find("href=\"https://ridge.test/verify?token=ab&amp;sig=cd\""), std::string::npos) << html;
  html = reset_mail_html("https://ridge.test/reset/confirm?token=ab&sig=cd");
  EXPECT_NE(html.find("href=\"https://ridge.test/reset/confirm?token=ab&amp;sig=cd\""), std::string::npos) << html;
}

TEST(BillingViews, PricingOffersOneWayToPayAndShowsCurrentAccessOnly) {
  PricingView v;
  v.free = 3;
  v.paid = 7;
  v.price = "USD <25>";
  v.months = 6;
  v.now = 1000;
  v.access_until = 999;  // ended: not shown
  v.offer = PricingView::Offer::kCheckout;
  v.csrf = "c\"s";
  std::string page = pricing_page(v);
  EXPECT_NE(page.find("<p>3 questions are free"), std::string::npos) << page;
  EXPECT_NE(page.find("The other 7 worked answers"), std::string::npos);
  EXPECT_NE(page.find("<strong id=\"price\">USD &lt;25&gt;</strong> for 6 months"), std::string::npos);
  EXPECT_NE(page.find("name=\"csrf\" value=\"c&quot;s\""), std::string::npos);
  EXPECT_EQ(page.find("id=\"access\""), std::string::npos);
  EXPECT_EQ(page.find("grant-only"), std::string::npos);
  EXPECT_EQ(page.find("/signin?next=/pricing"), std::string::npos);
  v.access_until = 1001;
  v.offer = PricingView::Offer::kGrantOnly;
  page = pricing_page(v);
  EXPECT_NE(page.find("<p id=\"access\">You have access until 1970-01-01T00:16:41Z.</p>"), std::string::npos) << page;
  EXPECT_NE(page.find("id=\"grant-only\""), std::string::npos);
  EXPECT_EQ(page.find("id=\"checkout\""), std::string::npos);
  v.offer = PricingView::Offer::kSignIn;
  EXPECT_NE(pricing_page(v).find("<a href=\"/signin?next=/pricing\">Sign in</a>"), std::string::npos);
}

}  // namespace
}  // namespace ridge::web::views
