// Tests for SitemapParser / ParseSitemap, named after the sections of the sitemaps.org protocol
// (https://www.sitemaps.org/protocol.html) they pin: "XML tag definitions", "Entity escaping",
// "Using Sitemap index files" (including the 50,000 / 50MB limits), "Other Sitemap formats"
// (text file), "Extending the Sitemaps protocol"; then gzip, streaming and malformed input.
#include "lib/sitemap/sitemap_parser.h"

#include <zlib.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/civil_time.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/sitemap/parse_sitemap.h"
#include "lib/sitemap/sitemap_entry.h"

namespace crawler::sitemap {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr int64_t kProtocolMaxUrls = 50'000;
constexpr int64_t kProtocolMaxBytes = 52'428'800;

std::string Urlset(std::string_view urls) {
  return absl::StrCat(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n",
      absl::string_view(urls.data(), urls.size()), "</urlset>\n");
}

std::string Url(std::string_view loc) {
  return absl::StrCat("<url><loc>", absl::string_view(loc.data(), loc.size()), "</loc></url>\n");
}

absl::Time Utc(int64_t y, int m, int d, int hh = 0, int mm = 0, int ss = 0) {
  return absl::FromCivil(absl::CivilSecond(y, m, d, hh, mm, ss), absl::UTCTimeZone());
}

std::vector<std::string> Locs(const SitemapResult& result) {
  std::vector<std::string> locs;
  for (const SitemapEntry& entry : result.entries) locs.push_back(entry.loc);
  return locs;
}

// gzip (RFC 1952) of `data`, produced with zlib in-process.
std::string Gzip(std::string_view data) {
  z_stream stream{};
  EXPECT_EQ(
      deflateInit2(&stream, Z_BEST_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 9, Z_DEFAULT_STRATEGY),
      Z_OK);
  std::string out(deflateBound(&stream, data.size()) + 64, '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  stream.avail_in = static_cast<uInt>(data.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&stream, Z_FINISH), Z_STREAM_END);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return out;
}

// A gzip member whose content is `prefix` followed by `filler_bytes` spaces, compressed in a
// streaming fashion so the test never holds the inflated form either.
std::string GzipBomb(std::string_view prefix, int64_t filler_bytes) {
  z_stream stream{};
  EXPECT_EQ(deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 9,
                         Z_DEFAULT_STRATEGY),
            Z_OK);
  std::string out;
  std::string window(1 << 16, '\0');
  const std::string spaces(1 << 20, ' ');
  auto pump = [&](std::string_view in, int flush) {
    stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    stream.avail_in = static_cast<uInt>(in.size());
    do {
      stream.next_out = reinterpret_cast<Bytef*>(window.data());
      stream.avail_out = static_cast<uInt>(window.size());
      deflate(&stream, flush);
      out.append(window.data(), window.size() - stream.avail_out);
    } while (stream.avail_out == 0);
  };
  pump(prefix, Z_NO_FLUSH);
  for (int64_t left = filler_bytes; left > 0;) {
    const int64_t n = std::min<int64_t>(left, static_cast<int64_t>(spaces.size()));
    pump(std::string_view(spaces.data(), static_cast<size_t>(n)), Z_NO_FLUSH);
    left -= n;
  }
  pump({}, Z_FINISH);
  deflateEnd(&stream);
  return out;
}

// Feeds `body` split at the given offsets (ascending), then finishes.
SitemapResult ParseInChunks(std::string_view body, const std::vector<size_t>& splits,
                            const SitemapOptions& options = {}) {
  SitemapResult result;
  SitemapParser parser(options, [&](SitemapEntry e) { result.entries.push_back(std::move(e)); });
  size_t begin = 0;
  for (size_t split : splits) {
    const absl::Status status = parser.Feed(body.substr(begin, split - begin));
    begin = split;
    if (!status.ok()) break;
  }
  result.status = parser.Feed(body.substr(begin));
  if (result.status.ok()) result.status = parser.Finish();
  result.kind = parser.kind();
  result.stats = parser.stats();
  return result;
}

// ---------------------------------------------------------------------------------------------
// "XML tag definitions"

TEST(SitemapsOrg_XmlTagDefinitions, TheProtocolsSampleDocument) {
  const SitemapResult result = ParseSitemap(Urlset(R"(
   <url>
      <loc>http://www.example.com/</loc>
      <lastmod>2005-01-01</lastmod>
      <changefreq>monthly</changefreq>
      <priority>0.8</priority>
   </url>
)"));
  ASSERT_TRUE(result.status.ok()) << result.status;
  EXPECT_EQ(result.kind, SitemapKind::kUrlset);
  ASSERT_EQ(result.entries.size(), 1u);
  const SitemapEntry& entry = result.entries[0];
  EXPECT_EQ(entry.loc, "http://www.example.com/");
  EXPECT_EQ(entry.lastmod, Utc(2005, 1, 1));
  EXPECT_EQ(entry.changefreq, ChangeFreq::kMonthly);
  EXPECT_EQ(entry.priority, 0.8);
  EXPECT_FALSE(entry.is_sitemap);
  EXPECT_EQ(result.stats.entries, 1);
  EXPECT_EQ(result.stats.skipped_entries, 0);
  EXPECT_EQ(result.stats.invalid_fields, 0);
  EXPECT_FALSE(result.stats.gzip);
}

struct UrlCase {
  std::string name;
  std::string url_element;         // one <url>...</url>
  std::optional<std::string> loc;  // nullopt: the entry is skipped
  std::optional<absl::Time> lastmod = std::nullopt;
  std::optional<ChangeFreq> changefreq = std::nullopt;
  std::optional<double> priority = std::nullopt;
  int64_t invalid_fields = 0;
};

TEST(SitemapsOrg_XmlTagDefinitions, FieldsOfOneUrl) {
  const UrlCase cases[] = {
      {"only loc is required", "<url><loc>http://a.example/</loc></url>", "http://a.example/"},
      {"loc is trimmed", "<url><loc>\n\t  http://a.example/x \r\n </loc></url>",
       "http://a.example/x"},
      {"inner whitespace of loc is kept", "<url><loc> http://a.example/a b </loc></url>",
       "http://a.example/a b"},
      {"missing loc skips the entry", "<url><lastmod>2005-01-01</lastmod></url>", std::nullopt},
      {"empty loc skips the entry", "<url><loc>   </loc></url>", std::nullopt},
      {"self-closing loc skips the entry", "<url><loc/></url>", std::nullopt},
      {"first of two locs stands", "<url><loc>http://a/1</loc><loc>http://a/2</loc></url>",
       "http://a/1", std::nullopt, std::nullopt, std::nullopt, 1},
      {"fields in any order",
       "<url><priority>1.0</priority><changefreq>never</changefreq>"
       "<lastmod>2004-12-23T18:00:15+00:00</lastmod><loc>http://a/</loc></url>",
       "http://a/", Utc(2004, 12, 23, 18, 0, 15), ChangeFreq::kNever, 1.0},
      {"lastmod date with time", "<url><loc>http://a/</loc><lastmod>2004-11-23</lastmod></url>",
       "http://a/", Utc(2004, 11, 23)},
      {"unparseable lastmod is dropped and counted",
       "<url><loc>http://a/</loc><lastmod>yesterday</lastmod></url>", "http://a/", std::nullopt,
       std::nullopt, std::nullopt, 1},
      {"changefreq always", "<url><loc>http://a/</loc><changefreq>always</changefreq></url>",
       "http://a/", std::nullopt, ChangeFreq::kAlways},
      {"changefreq hourly", "<url><loc>http://a/</loc><changefreq>hourly</changefreq></url>",
       "http://a/", std::nullopt, ChangeFreq::kHourly},
      {"changefreq daily", "<url><loc>http://a/</loc><changefreq>daily</changefreq></url>",
       "http://a/", std::nullopt, ChangeFreq::kDaily},
      {"changefreq weekly", "<url><loc>http://a/</loc><changefreq>weekly</changefreq></url>",
       "http://a/", std::nullopt, ChangeFreq::kWeekly},
      {"changefreq monthly", "<url><loc>http://a/</loc><changefreq>monthly</changefreq></url>",
       "http://a/", std::nullopt, ChangeFreq::kMonthly},
      {"changefreq yearly", "<url><loc>http://a/</loc><changefreq>yearly</changefreq></url>",
       "http://a/", std::nullopt, ChangeFreq::kYearly},
      {"changefreq never", "<url><loc>http://a/</loc><changefreq>never</changefreq></url>",
       "http://a/", std::nullopt, ChangeFreq::kNever},
      {"changefreq ignores ASCII case and whitespace",
       "<url><loc>http://a/</loc><changefreq> Weekly\n</changefreq></url>", "http://a/",
       std::nullopt, ChangeFreq::kWeekly},
      {"unknown changefreq is dropped and counted",
       "<url><loc>http://a/</loc><changefreq>fortnightly</changefreq></url>", "http://a/",
       std::nullopt, std::nullopt, std::nullopt, 1},
      {"priority 0.0", "<url><loc>http://a/</loc><priority>0.0</priority></url>", "http://a/",
       std::nullopt, std::nullopt, 0.0},
      {"priority 1", "<url><loc>http://a/</loc><priority>1</priority></url>", "http://a/",
       std::nullopt, std::nullopt, 1.0},
      {"priority .5", "<url><loc>http://a/</loc><priority>.5</priority></url>", "http://a/",
       std::nullopt, std::nullopt, 0.5},
      {"priority above 1.0 is dropped and counted",
       "<url><loc>http://a/</loc><priority>1.5</priority></url>", "http://a/", std::nullopt,
       std::nullopt, std::nullopt, 1},
      {"negative priority is dropped and counted",
       "<url><loc>http://a/</loc><priority>-0.1</priority></url>", "http://a/", std::nullopt,
       std::nullopt, std::nullopt, 1},
      {"priority with an exponent is not the protocol's decimal",
       "<url><loc>http://a/</loc><priority>1e-1</priority></url>", "http://a/", std::nullopt,
       std::nullopt, std::nullopt, 1},
      {"priority nan", "<url><loc>http://a/</loc><priority>nan</priority></url>", "http://a/",
       std::nullopt, std::nullopt, std::nullopt, 1},
      {"unknown child elements are ignored",
       "<url><loc>http://a/</loc><title>About</title><foo><loc>http://b/</loc></foo></url>",
       "http://a/"},
      {"markup inside loc is dropped, its text with it",
       "<url><loc>http://a/<b>bold</b>x</loc></url>", "http://a/x"},
  };
  for (const UrlCase& c : cases) {
    SCOPED_TRACE(c.name);
    const SitemapResult result = ParseSitemap(Urlset(c.url_element));
    ASSERT_TRUE(result.status.ok()) << result.status;
    if (!c.loc.has_value()) {
      EXPECT_THAT(result.entries, IsEmpty());
      EXPECT_EQ(result.stats.skipped_entries, 1);
      continue;
    }
    ASSERT_EQ(result.entries.size(), 1u);
    const SitemapEntry& entry = result.entries[0];
    EXPECT_EQ(entry.loc, *c.loc);
    EXPECT_EQ(entry.lastmod, c.lastmod);
    EXPECT_EQ(entry.changefreq, c.changefreq);
    EXPECT_EQ(entry.priority, c.priority);
    EXPECT_EQ(result.stats.invalid_fields, c.invalid_fields);
    EXPECT_EQ(result.stats.skipped_entries, 0);
  }
}

TEST(SitemapsOrg_XmlTagDefinitions, LocMustBeLessThan2048Characters) {
  const std::string prefix = "http://a.example/";
  const std::string fits = prefix + std::string(2047 - prefix.size(), 'x');
  const std::string too_long = fits + "y";
  const SitemapResult result =
      ParseSitemap(Urlset(Url(fits) + Url(too_long) + Url("  \n" + fits + std::string(5000, ' ')) +
                          Url("http://a.example/after")));
  ASSERT_TRUE(result.status.ok()) << result.status;
  EXPECT_THAT(Locs(result), ElementsAre(fits, fits, "http://a.example/after"));
  EXPECT_EQ(result.stats.skipped_entries, 1);
}

TEST(SitemapsOrg_XmlTagDefinitions, MaxLocBytesIsAnOption) {
  SitemapOptions options;
  options.max_loc_bytes = 11;
  const SitemapResult result =
      ParseSitemap(Urlset(Url("http://a/b") + Url("http://a/bc") + Url("http://a/bcd")), options);
  ASSERT_TRUE(result.status.ok()) << result.status;
  EXPECT_THAT(Locs(result), ElementsAre("http://a/b", "http://a/bc"));
  EXPECT_EQ(result.stats.skipped_entries, 1);
}

TEST(SitemapsOrg_XmlTagDefinitions, NamespacesAccepted) {
  const std::string namespaces[] = {
      "",  // no namespace at all
      " xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"",
      " xmlns=\"https://www.sitemaps.org/schemas/sitemap/0.9\"",
      " xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9/\"",
      " xmlns=\"http://www.google.com/schemas/sitemap/0.84\"",
  };
  for (const std::string& ns : namespaces) {
    SCOPED_TRACE(ns);
    const SitemapResult result =
        ParseSitemap(absl::StrCat("<urlset", ns, ">", Url("http://a/"), "</urlset>"));
    ASSERT_TRUE(result.status.ok()) << result.status;
    EXPECT_EQ(result.kind, SitemapKind::kUrlset);
    EXPECT_THAT(Locs(result), ElementsAre("http://a/"));
  }
}

TEST(SitemapsOrg_XmlTagDefinitions, PrefixedSitemapNamespaceWorks) {
  const SitemapResult result = ParseSitemap(
      "<sm:urlset xmlns:sm=\"http://www.sitemaps.org/schemas/sitemap/0.9\">"
      "<sm:url><sm:loc>http://a/</sm:loc><sm:priority>0.3</sm:priority></sm:url></sm:urlset>");
  ASSERT_TRUE(result.status.ok()) << result.status;
  ASSERT_EQ(result.entries.size(), 1u);
  EXPECT_EQ(result.entries[0].loc, "http://a/");
  EXPECT_EQ(result.entries[0].priority, 0.3);
}

TEST(SitemapsOrg_XmlTagDefinitions, RootMustBeUrlsetOrSitemapindex) {
  const std::string documents[] = {
      "<html><body><a href=\"http://a/\">a</a></body></html>",
      "<!DOCTYPE html><html><head></head></html>",
      "<rss version=\"2.0\"><channel><item><link>http://a/</link></item></channel></rss>",
      "<urlset xmlns=\"http://example.com/not-sitemaps\">" + Url("http://a/") + "</urlset>",
  };
  for (const std::string& document : documents) {
    SCOPED_TRACE(document);
    const SitemapResult result = ParseSitemap(document);
    EXPECT_EQ(result.status.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(result.status.message()), HasSubstr("not a sitemap"));
    EXPECT_THAT(result.entries, IsEmpty());
    EXPECT_EQ(result.kind, SitemapKind::kUnknown);
  }
}

// ---------------------------------------------------------------------------------------------
// "Entity escaping"

TEST(SitemapsOrg_EntityEscaping, EscapesAndCharacterReferencesAreDecoded) {
  struct Case {
    std::string loc_xml;
    std::string loc;
  };
  const Case cases[] = {
      // The protocol's own examples.
      {"http://www.example.com/ümlat.php&amp;q=name", "http://www.example.com/ümlat.php&q=name"},
      {"http://www.example.com/%C3%BCmlat.php&amp;q=name",
       "http://www.example.com/%C3%BCmlat.php&q=name"},
      {"http://www.example.com/&#252;mlat.php&amp;q=name",
       "http://www.example.com/ümlat.php&q=name"},
      // All five entities of the protocol's table.
      {"http://a/?q=&apos;&quot;&gt;&lt;&amp;", "http://a/?q='\"><&"},
      {"http://a/&#x41;&#66;", "http://a/AB"},
      {"<![CDATA[http://a/?x=1&y=<2>]]>", "http://a/?x=1&y=<2>"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.loc_xml);
    const SitemapResult result = ParseSitemap(Urlset(Url(c.loc_xml)));
    ASSERT_TRUE(result.status.ok()) << result.status;
    EXPECT_THAT(Locs(result), ElementsAre(c.loc));
  }
}

TEST(SitemapsOrg_EntityEscaping, UnescapedAmpersandIsMalformedAndKeepsThePrefix) {
  const SitemapResult result =
      ParseSitemap(Urlset(Url("http://a/1") + Url("http://a/?x=1&y=2") + Url("http://a/3")));
  EXPECT_EQ(result.status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(result.status.message()), HasSubstr("malformed XML at line"));
  EXPECT_THAT(Locs(result), ElementsAre("http://a/1"));
}

TEST(SitemapsOrg_EntityEscaping, HtmlEntitiesAreNotXml) {
  const SitemapResult result = ParseSitemap(Urlset(Url("http://a/1") + Url("http://a/&nbsp;")));
  EXPECT_EQ(result.status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Locs(result), ElementsAre("http://a/1"));
}

TEST(SitemapsOrg_EntityEscaping, EntityDeclarationsAreRefused) {
  const std::string documents[] = {
      // Billion laughs.
      "<?xml version=\"1.0\"?><!DOCTYPE urlset [<!ENTITY a \"aaaaaaaaaa\">"
      "<!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;\"><!ENTITY c \"&b;&b;&b;&b;&b;&b;&b;&b;\">]>"
      "<urlset><url><loc>http://a/&c;</loc></url></urlset>",
      // External entity (XXE).
      "<?xml version=\"1.0\"?><!DOCTYPE urlset [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>"
      "<urlset><url><loc>http://a/&x;</loc></url></urlset>",
  };
  for (const std::string& document : documents) {
    const SitemapResult result = ParseSitemap(document);
    EXPECT_EQ(result.status.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(result.status.message()), HasSubstr("entity declarations"));
    EXPECT_THAT(result.entries, IsEmpty());
  }
}

TEST(SitemapsOrg_EntityEscaping, DoctypeWithoutEntitiesIsHarmless) {
  const SitemapResult result =
      ParseSitemap("<?xml version=\"1.0\"?><!DOCTYPE urlset SYSTEM \"http://a/x.dtd\">" +
                   std::string("<urlset>") + Url("http://a/") + "</urlset>");
  ASSERT_TRUE(result.status.ok()) << result.status;
  EXPECT_THAT(Locs(result), ElementsAre("http://a/"));
}

// ---------------------------------------------------------------------------------------------
// "Using Sitemap index files"

TEST(SitemapsOrg_SitemapIndex, TheProtocolsSampleIndex) {
  const SitemapResult result = ParseSitemap(R"(<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
   <sitemap>
      <loc>http://www.example.com/sitemap1.xml.gz</loc>
      <lastmod>2004-10-01T18:23:17+00:00</lastmod>
   </sitemap>
   <sitemap>
      <loc>http://www.example.com/sitemap2.xml.gz</loc>
      <lastmod>2005-01-01</lastmod>
   </sitemap>
</sitemapindex>
)");
  ASSERT_TRUE(result.status.ok()) << result.status;
  EXPECT_EQ(result.kind, SitemapKind::kSitemapIndex);
  ASSERT_EQ(result.entries.size(), 2u);
  EXPECT_EQ(result.entries[0].loc, "http://www.example.com/sitemap1.xml.gz");
  EXPECT_EQ(result.entries[0].lastmod, Utc(2004, 10, 1, 18, 23, 17));
  EXPECT_TRUE(result.entries[0].is_sitemap);
  EXPECT_EQ(result.entries[1].loc, "http://www.example.com/sitemap2.xml.gz");
  EXPECT_EQ(result.entries[1].lastmod, Utc(2005, 1, 1));
  EXPECT_TRUE(result.entries[1].is_sitemap);
}

TEST(SitemapsOrg_SitemapIndex, OnlyLocAndLastmodAreDefinedForASitemap) {
  const SitemapResult result = ParseSitemap(
      "<sitemapindex><sitemap><loc>http://a/s.xml</loc><changefreq>daily</changefreq>"
      "<priority>0.9</priority></sitemap></sitemapindex>");
  ASSERT_TRUE(result.status.ok()) << result.status;
  ASSERT_EQ(result.entries.size(), 1u);
  EXPECT_FALSE(result.entries[0].changefreq.has_value());
  EXPECT_FALSE(result.entries[0].priority.has_value());
}

TEST(SitemapsOrg_SitemapIndex, EntriesOfTheOtherKindAreSkippedAndCounted) {
  const SitemapResult index = ParseSitemap(
      "<sitemapindex><url><loc>http://a/page</loc></url>"
      "<sitemap><loc>http://a/s.xml</loc></sitemap></sitemapindex>");
  ASSERT_TRUE(index.status.ok()) << index.status;
  EXPECT_THAT(Locs(index), ElementsAre("http://a/s.xml"));
  EXPECT_EQ(index.stats.skipped_entries, 1);

  const SitemapResult urlset = ParseSitemap("<urlset><sitemap><loc>http://a/s.xml</loc></sitemap>" +
                                            Url("http://a/page") + "</urlset>");
  ASSERT_TRUE(urlset.status.ok()) << urlset.status;
  EXPECT_THAT(Locs(urlset), ElementsAre("http://a/page"));
  EXPECT_FALSE(urlset.entries[0].is_sitemap);
  EXPECT_EQ(urlset.stats.skipped_entries, 1);
}

// The limits are stated in this section: "no more than 50,000 URLs and ... no larger than 50MB
// (52,428,800 bytes)", and "Sitemap index files may not list more than 50,000 Sitemaps".

TEST(SitemapsOrg_Limits, DefaultsAreTheProtocols) {
  const SitemapOptions options;
  EXPECT_EQ(options.max_urls, kProtocolMaxUrls);
  EXPECT_EQ(options.max_uncompressed_bytes, kProtocolMaxBytes);
  EXPECT_EQ(options.max_loc_bytes, 2047);
}

std::string ManyUrls(int64_t count) {
  std::string urls;
  for (int64_t i = 0; i < count; ++i) absl::StrAppend(&urls, Url(absl::StrCat("http://a/", i)));
  return Urlset(urls);
}

TEST(SitemapsOrg_Limits, FiftyThousandUrlsAreAccepted) {
  const SitemapResult result = ParseSitemap(ManyUrls(kProtocolMaxUrls));
  ASSERT_TRUE(result.status.ok()) << result.status;
  EXPECT_EQ(result.entries.size(), static_cast<size_t>(kProtocolMaxUrls));
  EXPECT_EQ(result.entries.back().loc, absl::StrCat("http://a/", kProtocolMaxUrls - 1));
  EXPECT_FALSE(result.stats.truncated);
}

TEST(SitemapsOrg_Limits, TheNextUrlStopsWithResourceExhausted) {
  const SitemapResult result = ParseSitemap(ManyUrls(kProtocolMaxUrls + 10));
  EXPECT_EQ(result.status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(result.status.message()), HasSubstr("50000 URLs"));
  EXPECT_EQ(result.entries.size(), static_cast<size_t>(kProtocolMaxUrls));
  EXPECT_EQ(result.entries.back().loc, absl::StrCat("http://a/", kProtocolMaxUrls - 1));
  EXPECT_TRUE(result.stats.truncated);
}

TEST(SitemapsOrg_Limits, SkippedEntriesDoNotCount) {
  SitemapOptions options;
  options.max_urls = 2;
  const SitemapResult result = ParseSitemap(
      Urlset(Url("http://a/1") + "<url></url><url><loc/></url>" + Url("http://a/2")), options);
  ASSERT_TRUE(result.status.ok()) << result.status;
  EXPECT_THAT(Locs(result), ElementsAre("http://a/1", "http://a/2"));
}

TEST(SitemapsOrg_Limits, IndexSitemapsAreLimitedToo) {
  SitemapOptions options;
  options.max_urls = 2;
  const SitemapResult result = ParseSitemap(
      "<sitemapindex><sitemap><loc>http://a/1</loc></sitemap><sitemap><loc>http://a/2</loc>"
      "</sitemap><sitemap><loc>http://a/3</loc></sitemap></sitemapindex>",
      options);
  EXPECT_EQ(result.status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(result.status.message()), HasSubstr("2 sitemaps"));
  EXPECT_THAT(Locs(result), ElementsAre("http://a/1", "http://a/2"));
}

TEST(SitemapsOrg_Limits, TextFileIsLimitedToo) {
  std::string text;
  for (int64_t i = 0; i <= kProtocolMaxUrls; ++i) absl::StrAppend(&text, "http://a/", i, "\n");
  const SitemapResult result = ParseSitemap(text);
  EXPECT_EQ(result.status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(result.entries.size(), static_cast<size_t>(kProtocolMaxUrls));
  EXPECT_EQ(result.kind, SitemapKind::kText);
}

TEST(SitemapsOrg_Limits, UncompressedBytesAtTheCapPassAndOneMoreFails) {
  const std::string document = Urlset(Url("http://a/1") + Url("http://a/2"));
  SitemapOptions options;
  options.max_uncompressed_bytes = static_cast<int64_t>(document.size());
  const SitemapResult exact = ParseSitemap(document, options);
  ASSERT_TRUE(exact.status.ok()) << exact.status;
  EXPECT_EQ(exact.stats.uncompressed_bytes, options.max_uncompressed_bytes);

  const SitemapResult over = ParseSitemap(document + " ", options);
  EXPECT_EQ(over.status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(Locs(over), ElementsAre("http://a/1", "http://a/2"));
  EXPECT_TRUE(over.stats.truncated);
}

TEST(SitemapsOrg_Limits, EntriesBeforeTheByteCapAreKept) {
  const std::string document = Urlset(Url("http://a/1") + Url("http://a/2") + Url("http://a/3"));
  SitemapOptions options;
  // The cap falls inside the third <url>.
  options.max_uncompressed_bytes = static_cast<int64_t>(document.find("http://a/3"));
  const SitemapResult result = ParseSitemap(document, options);
  EXPECT_EQ(result.status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(result.status.message()), HasSubstr("uncompressed"));
  EXPECT_THAT(Locs(result), ElementsAre("http://a/1", "http://a/2"));
  EXPECT_EQ(result.stats.uncompressed_bytes, options.max_uncompressed_bytes);
}

TEST(SitemapsOrg_Limits, FiftyMegabytesOfPlainXmlPassAndOneMoreByteFails) {
  const std::string head = Urlset(Url("http://a/1"));  // ends in "</urlset>\n"
  std::string document = head;
  document.resize(static_cast<size_t>(kProtocolMaxBytes), '\n');  // trailing whitespace is fine
  const SitemapResult exact = ParseSitemap(document);
  ASSERT_TRUE(exact.status.ok()) << exact.status;
  EXPECT_THAT(Locs(exact), ElementsAre("http://a/1"));

  document.push_back('\n');
  const SitemapResult over = ParseSitemap(document);
  EXPECT_EQ(over.status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(Locs(over), ElementsAre("http://a/1"));
}

// ---------------------------------------------------------------------------------------------
// "Other Sitemap formats": text file

TEST(SitemapsOrg_TextFile, OneUrlPerLine) {
  struct Case {
    std::string name;
    std::string body;
    std::vector<std::string> locs;
    int64_t skipped = 0;
  };
  const Case cases[] = {
      {"LF",
       "http://www.example.com/catalog?item=1\nhttp://www.example.com/catalog?item=11\n",
       {"http://www.example.com/catalog?item=1", "http://www.example.com/catalog?item=11"}},
      {"CRLF and no final newline", "http://a/1\r\nhttp://a/2", {"http://a/1", "http://a/2"}},
      {"CR alone", "http://a/1\rhttp://a/2\r", {"http://a/1", "http://a/2"}},
      {"blank lines and surrounding whitespace are skipped",
       "\n\n  http://a/1  \n\t\n \thttp://a/2\t\n\n",
       {"http://a/1", "http://a/2"}},
      {"UTF-8 byte-order mark", "\xEF\xBB\xBFhttp://a/1\n", {"http://a/1"}},
      {"UTF-8 is kept as is", "http://a/\xC3\xBCmlat\n", {"http://a/\xC3\xBCmlat"}},
      {"invalid UTF-8 skips the line",
       "http://a/\xC3\n\xFFhttp://a/x\nhttp://a/2\n",
       {"http://a/2"},
       2},
      {"overlong UTF-8 form skips the line", "http://a/\xC0\xAF\nhttp://a/2\n", {"http://a/2"}, 1},
      {"UTF-16 surrogate skips the line", "http://a/\xED\xA0\x80\nhttp://a/2\n", {"http://a/2"}, 1},
      {"control characters skip the line",
       "http://a/\x01x\nhttp://a/b\tc\nhttp://a/2\n",
       {"http://a/2"},
       2},
      {"an empty file has no URLs", "", {}},
      {"a file of whitespace has no URLs", " \n\r\n\t ", {}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const SitemapResult result = ParseSitemap(c.body);
    ASSERT_TRUE(result.status.ok()) << result.status;
    EXPECT_EQ(result.kind, SitemapKind::kText);
    EXPECT_EQ(Locs(result), c.locs);
    EXPECT_EQ(result.stats.skipped_entries, c.skipped);
    for (const SitemapEntry& entry : result.entries) {
      EXPECT_FALSE(entry.is_sitemap);
      EXPECT_FALSE(entry.lastmod.has_value());
    }
  }
}

TEST(SitemapsOrg_TextFile, OverlongLinesAreSkippedWithoutBufferingThem) {
  const std::string long_line = "http://a/" + std::string(10'000'000, 'x');
  const SitemapResult result = ParseSitemap("http://a/1\n" + long_line + "\nhttp://a/2\n");
  ASSERT_TRUE(result.status.ok()) << result.status;
  EXPECT_THAT(Locs(result), ElementsAre("http://a/1", "http://a/2"));
  EXPECT_EQ(result.stats.skipped_entries, 1);
}

// ---------------------------------------------------------------------------------------------
// "Extending the Sitemaps protocol"

TEST(SitemapsOrg_Extending, ExtensionNamespacesAreIgnored) {
  const SitemapResult result = ParseSitemap(R"(<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"
        xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"
        xmlns:news="http://www.google.com/schemas/sitemap-news/0.9"
        xmlns:video="http://www.google.com/schemas/sitemap-video/1.1"
        xmlns:xhtml="http://www.w3.org/1999/xhtml">
  <url>
    <loc>http://a.example/page</loc>
    <image:image><image:loc>http://a.example/img.jpg</image:loc></image:image>
    <xhtml:link rel="alternate" hreflang="de" href="http://a.example/de/page"/>
    <news:news>
      <news:publication><news:name>A</news:name><news:language>en</news:language></news:publication>
      <news:publication_date>2008-12-23</news:publication_date>
      <news:title>T</news:title>
    </news:news>
    <video:video><video:content_loc>http://a.example/v.mp4</video:content_loc></video:video>
    <lastmod>2008-12-23</lastmod>
  </url>
  <image:image><image:loc>http://a.example/stray.jpg</image:loc></image:image>
  <url><loc>http://a.example/second</loc></url>
</urlset>
)");
  ASSERT_TRUE(result.status.ok()) << result.status;
  ASSERT_THAT(Locs(result), ElementsAre("http://a.example/page", "http://a.example/second"));
  EXPECT_EQ(result.entries[0].lastmod, Utc(2008, 12, 23));
  EXPECT_EQ(result.stats.skipped_entries, 0);
  EXPECT_EQ(result.stats.invalid_fields, 0);
}

TEST(SitemapsOrg_Extending, AForeignLocIsNotOurs) {
  const SitemapResult result = ParseSitemap(
      "<urlset xmlns:x=\"http://example.com/x\"><url><x:loc>http://a/x</x:loc></url></urlset>");
  ASSERT_TRUE(result.status.ok()) << result.status;
  EXPECT_THAT(result.entries, IsEmpty());
  EXPECT_EQ(result.stats.skipped_entries, 1);
}

TEST(SitemapsOrg_Extending, AnUndeclaredPrefixIsMalformed) {
  const SitemapResult result =
      ParseSitemap(Urlset(Url("http://a/1") + "<url><loc>http://a/2</loc><image:image/></url>"));
  EXPECT_EQ(result.status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Locs(result), ElementsAre("http://a/1"));
}

// ---------------------------------------------------------------------------------------------
// gzip ("You can compress your Sitemap files using gzip")

TEST(Gzip, DetectedByMagicBytesAndInflated) {
  const std::string xml = Urlset(Url("http://a/1") + Url("http://a/2"));
  const SitemapResult plain = ParseSitemap(xml);
  const SitemapResult gzip = ParseSitemap(Gzip(xml));
  ASSERT_TRUE(gzip.status.ok()) << gzip.status;
  EXPECT_EQ(gzip.entries, plain.entries);
  EXPECT_EQ(gzip.kind, SitemapKind::kUrlset);
  EXPECT_TRUE(gzip.stats.gzip);
  EXPECT_FALSE(plain.stats.gzip);
  EXPECT_EQ(gzip.stats.uncompressed_bytes, static_cast<int64_t>(xml.size()));
}

TEST(Gzip, TextSitemapAndIndex) {
  const SitemapResult text = ParseSitemap(Gzip("http://a/1\nhttp://a/2\n"));
  ASSERT_TRUE(text.status.ok()) << text.status;
  EXPECT_EQ(text.kind, SitemapKind::kText);
  EXPECT_THAT(Locs(text), ElementsAre("http://a/1", "http://a/2"));

  const SitemapResult index =
      ParseSitemap(Gzip("<sitemapindex><sitemap><loc>http://a/s</loc></sitemap></sitemapindex>"));
  ASSERT_TRUE(index.status.ok()) << index.status;
  EXPECT_EQ(index.kind, SitemapKind::kSitemapIndex);
  EXPECT_THAT(Locs(index), ElementsAre("http://a/s"));
}

TEST(Gzip, ConcatenatedMembersAreOneStream) {
  const std::string xml = Urlset(Url("http://a/1") + Url("http://a/2"));
  const size_t cut = xml.find("<url>", xml.find("<url>") + 1);
  const SitemapResult result = ParseSitemap(Gzip(xml.substr(0, cut)) + Gzip(xml.substr(cut)));
  ASSERT_TRUE(result.status.ok()) << result.status;
  EXPECT_THAT(Locs(result), ElementsAre("http://a/1", "http://a/2"));
}

TEST(Gzip, TrailingGarbageAfterTheLastMemberIsIgnored) {
  const SitemapResult result = ParseSitemap(Gzip("http://a/1\n") + std::string(512, '\0') + "junk");
  ASSERT_TRUE(result.status.ok()) << result.status;
  EXPECT_THAT(Locs(result), ElementsAre("http://a/1"));
}

TEST(Gzip, TruncatedStreamKeepsThePrefix) {
  std::string urls;
  for (int i = 0; i < 5000; ++i) absl::StrAppend(&urls, Url(absl::StrCat("http://a/", i)));
  const std::string gzip = Gzip(Urlset(urls));
  const SitemapResult result = ParseSitemap(std::string_view(gzip).substr(0, gzip.size() / 2));
  EXPECT_EQ(result.status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(result.status.message()), HasSubstr("truncated gzip"));
  ASSERT_GT(result.entries.size(), 100u);
  ASSERT_LT(result.entries.size(), 5000u);
  for (size_t i = 0; i < result.entries.size(); ++i) {
    ASSERT_EQ(result.entries[i].loc, absl::StrCat("http://a/", i));
  }
}

TEST(Gzip, CorruptStreamIsInvalidArgument) {
  std::string gzip = Gzip(Urlset(Url("http://a/1") + Url("http://a/2")));
  gzip[gzip.size() - 5] ^= 0x55;  // inside the CRC-32 / length trailer
  const SitemapResult result = ParseSitemap(gzip);
  EXPECT_EQ(result.status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(result.status.message()), HasSubstr("corrupt gzip"));
  EXPECT_THAT(Locs(result), ElementsAre("http://a/1", "http://a/2"));  // read before the trailer
}

TEST(Gzip, BombStopsAtTheCapWithResourceExhausted) {
  // 64 MiB of whitespace after one URL, compressed about 1000:1.
  const int64_t inflated = int64_t{64} << 20;
  const std::string bomb = GzipBomb("<urlset>" + Url("http://a/1"), inflated);
  ASSERT_LT(static_cast<int64_t>(bomb.size()) * 500, inflated);
  const SitemapResult result = ParseSitemap(bomb);
  EXPECT_EQ(result.status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(Locs(result), ElementsAre("http://a/1"));
  EXPECT_EQ(result.stats.uncompressed_bytes, kProtocolMaxBytes);
  EXPECT_TRUE(result.stats.truncated);
}

TEST(Gzip, BombStopsAtASmallCapWithoutInflatingTheRest) {
  SitemapOptions options;
  options.max_uncompressed_bytes = 1000;
  const std::string bomb = GzipBomb("http://a/1\n", int64_t{8} << 20);
  SitemapResult result;
  SitemapParser parser(options, [&](SitemapEntry e) { result.entries.push_back(std::move(e)); });
  // Fed one compressed byte at a time, the parser must stop long before the end of the input.
  size_t fed = 0;
  absl::Status status;
  while (fed < bomb.size() && status.ok())
    status = parser.Feed(std::string_view(bomb).substr(fed++, 1));
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_LT(fed, bomb.size() / 2);
  EXPECT_EQ(parser.stats().uncompressed_bytes, 1000);
  EXPECT_THAT(Locs(result), ElementsAre("http://a/1"));
}

// ---------------------------------------------------------------------------------------------
// Streaming: chunk boundaries never change the result.

std::vector<std::string> StreamingDocuments() {
  return {
      Urlset("<url><loc>http://a/&amp;1</loc><lastmod>2024-01-31T10:00:00.5+01:00</lastmod>"
             "<changefreq>daily</changefreq><priority>0.5</priority></url>"
             "<url>\n <loc> http://a/\xC3\xBC </loc>\n</url>"),
      "\xEF\xBB\xBF  \n<sitemapindex><sitemap><loc>http://a/s</loc><lastmod>2024</lastmod>"
      "</sitemap></sitemapindex>",
      "\xEF\xBB\xBFhttp://a/1\r\n\r\n  http://a/2  \nhttp://a/3",
      Gzip(Urlset(Url("http://a/1") + Url("http://a/2"))),
      Urlset(Url("http://a/1") + "<url><loc>http://a/2</lo"),  // malformed
  };
}

TEST(Streaming, EverySplitPointGivesTheSameResult) {
  for (const std::string& document : StreamingDocuments()) {
    const SitemapResult whole = ParseSitemap(document);
    ASSERT_FALSE(whole.entries.empty());
    for (size_t split = 0; split <= document.size(); ++split) {
      const SitemapResult parts = ParseInChunks(document, {split});
      ASSERT_EQ(parts.entries, whole.entries) << "split at " << split;
      ASSERT_EQ(parts.status.code(), whole.status.code()) << "split at " << split;
      ASSERT_EQ(parts.kind, whole.kind) << "split at " << split;
    }
  }
}

TEST(Streaming, ByteByByteGivesTheSameResult) {
  for (const std::string& document : StreamingDocuments()) {
    std::vector<size_t> splits;
    for (size_t i = 1; i < document.size(); ++i) splits.push_back(i);
    const SitemapResult whole = ParseSitemap(document);
    const SitemapResult bytes = ParseInChunks(document, splits);
    EXPECT_EQ(bytes.entries, whole.entries);
    EXPECT_EQ(bytes.status, whole.status);
    // After an error the count says how far the parser got, which depends on the chunking.
    if (whole.status.ok()) {
      EXPECT_EQ(bytes.stats.uncompressed_bytes, whole.stats.uncompressed_bytes);
    }
  }
}

TEST(Streaming, EntriesArriveBeforeTheDocumentEnds) {
  std::vector<std::string> seen;
  SitemapParser parser({}, [&](SitemapEntry e) { seen.push_back(e.loc); });
  ASSERT_TRUE(parser.Feed("<urlset>" + Url("http://a/1") + Url("http://a/2") + "<url>").ok());
  EXPECT_THAT(seen, ElementsAre("http://a/1", "http://a/2"));
  EXPECT_EQ(parser.kind(), SitemapKind::kUrlset);
  ASSERT_TRUE(parser.Feed("<loc>http://a/3</loc></url></urlset>").ok());
  EXPECT_THAT(seen, ElementsAre("http://a/1", "http://a/2", "http://a/3"));
  EXPECT_TRUE(parser.Finish().ok());
}

// expat 2.5 rescans an unfinished token on every XML_Parse call; the parser holds bytes back
// while a long token is open (see FeedXml). Whatever is held must still come out: at the end, at
// an error, and at a limit.
TEST(Streaming, LongTokensInSmallChunksLoseNothing) {
  const std::string comment = "<!--" + std::string(300'000, 'c') + "-->";
  const std::string attribute = "<x a=\"" + std::string(300'000, 'v') + "\"/>";
  const std::string document =
      Urlset(Url("http://a/1") + comment + Url("http://a/2") + attribute + Url("http://a/3"));
  std::vector<size_t> splits;
  for (size_t i = 1000; i < document.size(); i += 1000) splits.push_back(i);

  const SitemapResult chunked = ParseInChunks(document, splits);
  ASSERT_TRUE(chunked.status.ok()) << chunked.status;
  EXPECT_THAT(Locs(chunked), ElementsAre("http://a/1", "http://a/2", "http://a/3"));

  // A byte cap that falls after the second URL: it must still be delivered from held bytes.
  SitemapOptions options;
  options.max_uncompressed_bytes = static_cast<int64_t>(document.find("http://a/3"));
  const SitemapResult capped = ParseInChunks(document, splits, options);
  EXPECT_EQ(capped.status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(Locs(capped), ElementsAre("http://a/1", "http://a/2"));

  // A truncated gzip stream likewise.
  const std::string gzip = Gzip(document);
  const std::string cut = gzip.substr(0, gzip.size() - 4);
  std::vector<size_t> gzip_splits;
  for (size_t i = 50; i < cut.size(); i += 50) gzip_splits.push_back(i);
  const SitemapResult truncated = ParseInChunks(cut, gzip_splits);
  EXPECT_EQ(truncated.status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Locs(truncated), ElementsAre("http://a/1", "http://a/2", "http://a/3"));
}

TEST(Streaming, KindIsUnknownUntilDecided) {
  SitemapParser parser({}, nullptr);
  EXPECT_EQ(parser.kind(), SitemapKind::kUnknown);
  ASSERT_TRUE(parser.Feed("  \n").ok());
  EXPECT_EQ(parser.kind(), SitemapKind::kUnknown);
  ASSERT_TRUE(parser.Feed("http").ok());
  EXPECT_EQ(parser.kind(), SitemapKind::kText);
  ASSERT_TRUE(parser.Finish().ok());
  EXPECT_EQ(parser.stats().entries, 1);  // counted even without a callback
}

TEST(Streaming, ErrorsAreStickyAndFeedAfterFinishIsAPreconditionFailure) {
  SitemapParser parser({}, nullptr);
  const absl::Status first = parser.Feed("<urlset><url></urlset>");
  EXPECT_EQ(first.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(parser.Feed(Url("http://a/")), first);
  EXPECT_EQ(parser.Finish(), first);
  EXPECT_EQ(parser.stats().entries, 0);
  EXPECT_EQ(parser.Feed("x").code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(parser.Finish().code(), absl::StatusCode::kFailedPrecondition);
}

TEST(Streaming, ParserIsMovable) {
  std::vector<std::string> seen;
  SitemapParser first({}, [&](SitemapEntry e) { seen.push_back(e.loc); });
  ASSERT_TRUE(first.Feed("<urlset>" + Url("http://a/1")).ok());
  SitemapParser second = std::move(first);
  ASSERT_TRUE(second.Feed(Url("http://a/2") + "</urlset>").ok());
  ASSERT_TRUE(second.Finish().ok());
  EXPECT_THAT(seen, ElementsAre("http://a/1", "http://a/2"));
}

// ---------------------------------------------------------------------------------------------
// Malformed XML: "the URLs read so far plus an error".

TEST(MalformedXml, EveryTruncationKeepsAPrefixOfTheEntries) {
  const std::string document = Urlset(
      "<url><loc>http://a/1</loc><lastmod>2024-01-01</lastmod></url>"
      "<url><loc>http://a/2</loc></url><url><loc>http://a/3</loc></url>");
  const SitemapResult full = ParseSitemap(document);
  ASSERT_TRUE(full.status.ok()) << full.status;
  ASSERT_EQ(full.entries.size(), 3u);
  const size_t root_end = document.find("</urlset>") + std::string_view("</urlset>").size();
  for (size_t cut = 0; cut < root_end; ++cut) {
    const SitemapResult result = ParseSitemap(std::string_view(document).substr(0, cut));
    SCOPED_TRACE(absl::StrCat("cut at ", cut));
    ASSERT_LE(result.entries.size(), full.entries.size());
    for (size_t i = 0; i < result.entries.size(); ++i) {
      ASSERT_EQ(result.entries[i], full.entries[i]);
    }
    if (cut == 0) {
      EXPECT_TRUE(result.status.ok());  // an empty body is an empty text sitemap
    } else {
      EXPECT_EQ(result.status.code(), absl::StatusCode::kInvalidArgument);
    }
  }
}

TEST(MalformedXml, ErrorsKeepTheEntriesReadBefore) {
  struct Case {
    std::string name;
    std::string document;
    std::vector<std::string> locs;
  };
  const Case cases[] = {
      {"mismatched tag",
       "<urlset>" + Url("http://a/1") + "<url><loc>http://a/2</url></urlset>",
       {"http://a/1"}},
      {"junk after the root", Urlset(Url("http://a/1")) + "<urlset/>", {"http://a/1"}},
      {"a second root", Urlset(Url("http://a/1")) + Urlset(Url("http://a/2")), {"http://a/1"}},
      {"unclosed root",
       "<urlset>" + Url("http://a/1") + Url("http://a/2"),
       {"http://a/1", "http://a/2"}},
      {"invalid UTF-8", "<urlset>" + Url("http://a/1") + Url("http://a/\xFF"), {"http://a/1"}},
      {"a control character",
       "<urlset>" + Url("http://a/1") + Url("http://a/\x01"),
       {"http://a/1"}},
      {"an unknown encoding", "<?xml version=\"1.0\" encoding=\"x-unknown\"?><urlset/>", {}},
      {"only the XML declaration", "<?xml version=\"1.0\"?>", {}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const SitemapResult result = ParseSitemap(c.document);
    EXPECT_EQ(result.status.code(), absl::StatusCode::kInvalidArgument) << result.status;
    EXPECT_EQ(Locs(result), c.locs);
  }
}

TEST(MalformedXml, LeadingWhitespaceBeforeTheDeclarationIsTolerated) {
  const SitemapResult result = ParseSitemap("\r\n  \t" + Urlset(Url("http://a/1")));
  ASSERT_TRUE(result.status.ok()) << result.status;
  EXPECT_THAT(Locs(result), ElementsAre("http://a/1"));
}

TEST(MalformedXml, ByteOrderMarksAreHonoured) {
  const SitemapResult utf8 = ParseSitemap("\xEF\xBB\xBF" + Urlset(Url("http://a/1")));
  ASSERT_TRUE(utf8.status.ok()) << utf8.status;
  EXPECT_THAT(Locs(utf8), ElementsAre("http://a/1"));

  // UTF-16LE with its byte-order mark: expat decodes it.
  const std::string ascii = "<urlset><url><loc>http://a/2</loc></url></urlset>";
  std::string utf16 = "\xFF\xFE";
  for (const char c : ascii) {
    utf16.push_back(c);
    utf16.push_back('\0');
  }
  const SitemapResult wide = ParseSitemap(utf16);
  ASSERT_TRUE(wide.status.ok()) << wide.status;
  EXPECT_THAT(Locs(wide), ElementsAre("http://a/2"));
}

TEST(MalformedXml, Latin1DeclaredEncodingIsTranscoded) {
  const SitemapResult result = ParseSitemap(
      "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><urlset><url><loc>http://a/\xFC</loc>"
      "</url></urlset>");
  ASSERT_TRUE(result.status.ok()) << result.status;
  EXPECT_THAT(Locs(result), ElementsAre("http://a/\xC3\xBC"));
}

std::string Nested(int depth) {
  std::string nested;
  for (int i = 0; i < depth; ++i) nested += "<x>";
  for (int i = 0; i < depth; ++i) nested += "</x>";
  return nested;
}

TEST(MalformedXml, NestedUnknownElementsAreSkipped) {
  // Root and <url> are two levels; 254 more reach the depth cap of 256 exactly.
  const SitemapResult result =
      ParseSitemap(Urlset("<url><loc>http://a/1</loc>" + Nested(254) + "</url>" + Nested(255)));
  ASSERT_TRUE(result.status.ok()) << result.status;
  EXPECT_THAT(Locs(result), ElementsAre("http://a/1"));

  const SitemapResult one_more =
      ParseSitemap(Urlset("<url><loc>http://a/1</loc>" + Nested(255) + "</url>"));
  EXPECT_EQ(one_more.status.code(), absl::StatusCode::kResourceExhausted);
}

TEST(MalformedXml, NestingBeyondTheCapStopsWithResourceExhausted) {
  // expat's per-element state would otherwise make "<x><x><x>..." cost ~20x its size in memory.
  const SitemapResult result =
      ParseSitemap(Urlset(Url("http://a/1") + Nested(1'000'000) + Url("http://a/2")));
  EXPECT_EQ(result.status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(result.status.message()), HasSubstr("nested"));
  EXPECT_THAT(Locs(result), ElementsAre("http://a/1"));
  EXPECT_FALSE(result.stats.truncated);  // not one of SitemapOptions' limits
}

TEST(ChangeFreqNames, RoundTrip) {
  for (const ChangeFreq freq :
       {ChangeFreq::kAlways, ChangeFreq::kHourly, ChangeFreq::kDaily, ChangeFreq::kWeekly,
        ChangeFreq::kMonthly, ChangeFreq::kYearly, ChangeFreq::kNever}) {
    EXPECT_EQ(ParseChangeFreq(ChangeFreqName(freq)), freq);
  }
  EXPECT_EQ(ParseChangeFreq("sometimes"), std::nullopt);
  EXPECT_EQ(SitemapKindName(SitemapKind::kSitemapIndex), "sitemapindex");
}

}  // namespace
}  // namespace crawler::sitemap
