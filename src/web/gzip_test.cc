// Cached pages gzip'd (issue 30, item 3): Accept-Encoding as RFC 9110 reads it, the bytes
// round-trip, and the App serves the gzip'd copy with its own ETag, Vary and 304s to a client
// that accepts gzip, identity to any other.
#include "web/gzip.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <string>

#include "web/app.h"
#include "web/http.h"
#include "web/test_app.h"

namespace ridge::web {
namespace {

std::string gunzip(const std::string& gz) {
  z_stream zs{};
  EXPECT_EQ(inflateInit2(&zs, 15 + 16), Z_OK);
  std::string out;
  char buf[16384];
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
  zs.avail_in = static_cast<uInt>(gz.size());
  int rc = Z_OK;
  while (rc == Z_OK) {
    zs.next_out = reinterpret_cast<Bytef*>(buf);
    zs.avail_out = sizeof buf;
    rc = inflate(&zs, Z_NO_FLUSH);
    out.append(buf, sizeof buf - zs.avail_out);
  }
  inflateEnd(&zs);
  EXPECT_EQ(rc, Z_STREAM_END);
  return out;
}

TEST(Gzip, AcceptEncodingAsRfc9110ReadsIt) {
  EXPECT_FALSE(accepts_gzip(""));  // no header: identity only
  EXPECT_TRUE(accepts_gzip("gzip"));
  EXPECT_TRUE(accepts_gzip("GZip"));  // codings are case-insensitive
  EXPECT_TRUE(accepts_gzip("x-gzip"));
  EXPECT_TRUE(accepts_gzip("gzip, deflate, br"));
  EXPECT_TRUE(accepts_gzip("br;q=1.0, gzip;q=0.1"));
  EXPECT_TRUE(accepts_gzip(" deflate ,  gzip ; q=0.5 "));
  EXPECT_FALSE(accepts_gzip("deflate, br"));
  EXPECT_FALSE(accepts_gzip("identity"));
  EXPECT_FALSE(accepts_gzip("gzip;q=0"));
  EXPECT_FALSE(accepts_gzip("gzip; q=0.000"));
  EXPECT_FALSE(accepts_gzip("gzip;q=2"));     // not a qvalue: no acceptance
  EXPECT_FALSE(accepts_gzip("gzip;q=abc"));
  EXPECT_TRUE(accepts_gzip("*"));
  EXPECT_FALSE(accepts_gzip("*;q=0"));
  EXPECT_FALSE(accepts_gzip("*, gzip;q=0"));  // named and refused: the * does not bring it back
  EXPECT_TRUE(accepts_gzip("gzip;q=0, x-gzip"));
}

TEST(Gzip, BytesRoundTrip) {
  std::string page;
  for (int i = 0; i < 2000; ++i) page += "<li><a href=\"/q/question-" + std::to_string(i) + "\">A question</a></li>\n";
  std::string gz = gzip_compress(page);
  ASSERT_GE(gz.size(), 18u);  // RFC 1952: a 10-byte header and an 8-byte trailer at least
  EXPECT_EQ(static_cast<unsigned char>(gz[0]), 0x1f);
  EXPECT_EQ(static_cast<unsigned char>(gz[1]), 0x8b);
  EXPECT_LT(gz.size() * 4, page.size());  // a list repeats itself: well under a quarter
  EXPECT_EQ(gunzip(gz), page);
  EXPECT_EQ(gunzip(gzip_compress("")), "");
}

class GzipPages : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { app_ = testing::real_app(AppOptions{}).release(); }
  static void TearDownTestSuite() {
    delete app_;
    app_ = nullptr;
  }
  static Response get(const std::string& target, const std::string& accept = "", const std::string& if_none_match = "",
                      const std::string& method = "GET") {
    Request req;
    req.method = method;
    req.target = target;
    EXPECT_TRUE(parse_target(target, req));
    if (!accept.empty()) req.headers["accept-encoding"] = accept;
    if (!if_none_match.empty()) req.headers["if-none-match"] = if_none_match;
    return app_->handle(req);
  }
  static std::string head(const Response& r) { return r.prebuilt_headers ? *r.prebuilt_headers : std::string(); }
  static std::string header(const Response& r, const std::string& name) {
    for (const auto& [k, v] : r.headers) {
      if (k == name) return v;
    }
    return "";
  }
  static std::string free_page() {
    for (const auto& q : app_->bank().questions) {
      if (q.free) return "/q/" + q.slug;
    }
    return "";
  }
  static App* app_;
};
App* GzipPages::app_ = nullptr;

TEST_F(GzipPages, AClientThatAcceptsGzipGetsTheGzippedCopyWithItsOwnEtag) {
  for (const std::string& path : {free_page(), std::string("/"), std::string("/easy")}) {
    Response plain = get(path);
    ASSERT_EQ(plain.status, 200) << path;
    EXPECT_EQ(head(plain).find("Content-Encoding"), std::string::npos) << path;
    EXPECT_NE(head(plain).find("Vary: Accept-Encoding\r\n"), std::string::npos) << path;
    Response zipped = get(path, "gzip, deflate, br");
    ASSERT_EQ(zipped.status, 200) << path;
    EXPECT_NE(head(zipped).find("Content-Encoding: gzip\r\n"), std::string::npos) << path;
    EXPECT_NE(head(zipped).find("Vary: Accept-Encoding\r\n"), std::string::npos) << path;
    EXPECT_NE(head(zipped).find("Content-Length: " + std::to_string(zipped.view().size()) + "\r\n"), std::string::npos) << path;
    EXPECT_LT(zipped.view().size(), plain.view().size()) << path;
    EXPECT_EQ(gunzip(std::string(zipped.view())), plain.view()) << path;
    EXPECT_NE(header(zipped, "ETag"), header(plain, "ETag")) << path;
    EXPECT_NE(head(zipped).find("ETag: " + header(zipped, "ETag") + "\r\n"), std::string::npos) << path;
    // q=0 refuses gzip; so does a client that names only other codings.
    EXPECT_EQ(get(path, "gzip;q=0").view(), plain.view()) << path;
    EXPECT_EQ(get(path, "br").view(), plain.view()) << path;
  }
}

TEST_F(GzipPages, ConditionalRequestsAnswer304PerEncodingAndHeadSendsTheGzipLength) {
  const std::string path = free_page();
  Response plain = get(path), zipped = get(path, "gzip");
  const std::string plain_tag = header(plain, "ETag"), zip_tag = header(zipped, "ETag");
  Response not_modified = get(path, "gzip", zip_tag);
  EXPECT_EQ(not_modified.status, 304);
  EXPECT_TRUE(not_modified.view().empty());
  EXPECT_EQ(header(not_modified, "Vary"), "Accept-Encoding");
  EXPECT_EQ(header(not_modified, "ETag"), zip_tag);
  EXPECT_EQ(get(path, "", plain_tag).status, 304);
  // The other encoding's tag does not match: the full answer, in the encoding asked for.
  Response other = get(path, "", zip_tag);
  EXPECT_EQ(other.status, 200);
  EXPECT_EQ(other.view(), plain.view());
  Response other_zipped = get(path, "gzip", plain_tag);
  EXPECT_EQ(other_zipped.status, 200);
  EXPECT_EQ(other_zipped.view(), zipped.view());
  // HEAD: the gzip'd copy's headers (its length), the server sends no body.
  Response head_only = get(path, "gzip", "", "HEAD");
  EXPECT_TRUE(head_only.head_only);
  EXPECT_EQ(head(head_only), head(zipped));
}

}  // namespace
}  // namespace ridge::web
