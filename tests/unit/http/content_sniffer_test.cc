#include "lib/http/content_sniffer.h"

#include "gtest/gtest.h"

namespace crawler::http {
namespace {

// WHATWG MIME Sniffing §7.1: identifying a resource with an unknown MIME type.
TEST(MimeSniffing_7_1_UnknownType, SignaturesOfCommonFormats) {
  struct Case {
    const char* declared;
    std::string body;
    const char* want;
  };
  const Case cases[] = {
      {"", "<!DOCTYPE html><html>", "text/html"},
      {"", "  \n<HTML lang=en>", "text/html"},
      {"", "\xEF\xBB\xBF<html>", "text/html"},
      {"", "<p>hi", "text/html"},
      {"", "<!-- comment --><div>", "text/html"},
      {"unknown/unknown", "<body>", "text/html"},
      {"*/*", "<title>x</title>", "text/html"},
      {"", "<paragraph>", "text/plain"},  // "<p" must be followed by space or '>'
      {"", "<?xml version=\"1.0\"?><urlset xmlns=\"x\">", "application/sitemap+xml"},
      {"", "<?xml version=\"1.0\"?><rss>", "application/rss+xml"},
      {"", "<?xml version=\"1.0\"?><note/>", "text/xml"},
      {"", "%PDF-1.7", "application/pdf"},
      {"", "\x89PNG\r\n\x1A\n....", "image/png"},
      {"", "GIF89a..", "image/gif"},
      {"", "\xFF\xD8\xFF\xE0", "image/jpeg"},
      {"", std::string("\x1F\x8B\x08\x00", 4), "application/x-gzip"},
      {"", "just some words", "text/plain"},
      {"", std::string("bin\x00ary", 7), "application/octet-stream"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(SniffContentType(c.declared, c.body), c.want) << c.body;
  }
}

// §7: a declared type is trusted; text/plain is checked for binary bytes (§7.2); XML documents
// are refined by their root so sitemaps are recognised whatever the server says.
TEST(MimeSniffing_7_DeclaredType, TrustedExceptTextPlainAndXmlRefined) {
  EXPECT_EQ(SniffContentType("text/html", "%PDF-1.7"), "text/html");
  EXPECT_EQ(SniffContentType("application/pdf", "<html>"), "application/pdf");
  EXPECT_EQ(SniffContentType("text/plain", "hello"), "text/plain");
  EXPECT_EQ(SniffContentType("text/plain", std::string("\x00\x01", 2)),
            "application/octet-stream");
  EXPECT_EQ(SniffContentType("application/xml", "<?xml version='1.0'?>\n<sitemapindex>"),
            "application/sitemap+xml");
  EXPECT_EQ(SniffContentType("text/xml", "<s:urlset xmlns:s='x'>"), "application/sitemap+xml");
  EXPECT_EQ(SniffContentType("text/xml", "<data/>"), "text/xml");
}

TEST(IsHtml, HtmlAndXhtml) {
  EXPECT_TRUE(IsHtml("text/html"));
  EXPECT_TRUE(IsHtml("application/xhtml+xml"));
  EXPECT_FALSE(IsHtml("text/plain"));
}

}  // namespace
}  // namespace crawler::http
