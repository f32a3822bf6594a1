// The change digest (lib/fingerprint/change_digest.h): its normalisation rules one by one, and
// end to end on hand-made pages — the main content text lib/html extracts, digested — where
// every kind of furniture that changes between two visits of an unchanged page leaves the
// digest as it was, and every real edit, however small, changes it.
#include "lib/fingerprint/change_digest.h"

#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "lib/fingerprint/change_detection.h"
#include "lib/html/extract_page.h"
#include "lib/url/url.h"
#include "tests/unit/fingerprint/reference_change_digest.h"

namespace crawler::fingerprint {
namespace {

TEST(ChangeDigestRule1, WordsPunctuationAndCase) {
  EXPECT_EQ(NormalizeForChangeDigest("  Price:\n(12.34 EUR.)  e-mail, \"Quoted\" "),
            "price 12.34 eur e-mail quoted");
  EXPECT_EQ(NormalizeForChangeDigest("... -- !!"), "");
}

TEST(ChangeDigestRule2, ClockTimesAndNumericDatesGo) {
  EXPECT_EQ(NormalizeForChangeDigest("at 10:42, 9:05pm or 23:07:59 on 2025-03-05 05.03.2025 "
                                     "3/5/25 2025-03-05T10:42:07Z end"),
            "at or on end");
  EXPECT_EQ(NormalizeForChangeDigest("Generated at 2026-11-27 04:12:33.123 UTC."), "generated at");
  // Not a time or a date: a score, a ratio with three digits, a version, a price.
  EXPECT_EQ(NormalizeForChangeDigest("won 3-1, 16:9 screens, version 1.2.3, 1,299.00"),
            "won 3-1 16:9 screens version 1.2.3 1,299.00");
}

TEST(ChangeDigestRule3, DateWordsAndTheirNumbersGo) {
  EXPECT_EQ(NormalizeForChangeDigest("Published Monday, 3 March 2025 at 10:42 CET."),
            "published at");
  EXPECT_EQ(NormalizeForChangeDigest("Updated March 5th, 2025"), "updated");
  EXPECT_EQ(NormalizeForChangeDigest("Montag, 3. März 2025"), "");
  EXPECT_EQ(NormalizeForChangeDigest("updated 5 minutes ago"), "updated");
  // Numbers away from a month name stay.
  EXPECT_EQ(NormalizeForChangeDigest("In March the council added 12 new lanes"),
            "in the council added 12 new lanes");
}

TEST(ChangeDigestRule4, CountersGo) {
  EXPECT_EQ(NormalizeForChangeDigest("12,345 views · 17 comments · Pinned 88 times · Views: 1.2k"),
            "views · comments · pinned times · views");
  EXPECT_EQ(NormalizeForChangeDigest("You are visitor number 12,345 of this page. 17 readers"),
            "you are visitor number of this page readers");
  EXPECT_EQ(NormalizeForChangeDigest("12 lanes, 3 bridges"), "12 lanes 3 bridges");
}

TEST(ChangeDigestRule5, BlocksLabelledAsAdvertisingGo) {
  EXPECT_EQ(NormalizeForChangeDigest("Intro.\nSponsored: Buy tyres now!\nADVERTISEMENT\n"
                                     "Anzeige: Strom sparen\nAd: cheap flights\nBody."),
            "intro body");
  // Only at the start of a block, and only the label words.
  EXPECT_EQ(NormalizeForChangeDigest("The ad: a story.\nSponsorship deals grew."),
            "the ad a story sponsorship deals grew");
}

TEST(ChangeDigest, EmptyTextHasNoDigestAndDigestsAreNeverZero) {
  EXPECT_FALSE(ComputeChangeDigest("").has_value());
  EXPECT_FALSE(ComputeChangeDigest("10:42, 3 March 2025").has_value());
  const std::optional<ChangeDigest> d = ComputeChangeDigest("text");
  ASSERT_TRUE(d.has_value());
  EXPECT_NE(d->bits(), 0u);
  EXPECT_EQ(d, ComputeChangeDigest("Text."));
  EXPECT_NE(d, ComputeChangeDigest("text2"));
}

TEST(ContentChanged, DigestDecidesWhenBothHaveOne) {
  const ChangeDetectionOptions options;
  const SimHash64 a(0x0);
  const SimHash64 far(0xffff);  // 16 bits away
  const ChangeDigest d1(1), d2(2);
  EXPECT_EQ(ContentChanged({a, d1}, {a, d2}, options), true);   // a small edit
  EXPECT_EQ(ContentChanged({a, d1}, {far, d1}, options), false);  // furniture moved the SimHash
  // One side without a digest (a record stored before digests): the SimHash rule.
  EXPECT_EQ(ContentChanged({a, std::nullopt}, {far, d1}, options), true);
  EXPECT_EQ(ContentChanged({a, std::nullopt}, {a, d1}, options), false);
  EXPECT_EQ(ContentChanged({std::nullopt, std::nullopt}, {a, d1}, options), std::nullopt);
}

// ---- End to end on hand-made pages. ----

// A news article page with the furniture real sites carry. Placeholders are filled per visit.
constexpr std::string_view kPage = R"(<!DOCTYPE html>
<html lang="en"><head><title>Council approves new cycle lanes</title>
<script>var pageview = "{session}";</script><style>.ad{color:red}</style></head>
<body>
<header class="site-header"><a href="/?sid={session}">Riverside Gazette</a>
  <span>Today: {date}</span></header>
<nav><ul>{nav}</ul></nav>
<div class="layout">
<article>
  <header><h1>{title}</h1>
  <p class="byline">By Ann Reed · {date} · {time}</p></header>
  <p>Published {date} at {time}. Updated {ago}. {views} views</p>
  <div class="ad-slot">Advertisement: {ad}</div>
  <{p}>The council voted on Tuesday to build {lanes} kilometres of protected cycle lanes along
  the river, after two years of consultation with residents and shop owners.</{p}>
  <{p}>Work starts in spring. The first section links the station with the old town and will
  cost {price} euros, paid from the regional transport fund.</{p}>
  {extra}
  <table><tr><th>Section</th><th>Status</th><th>Cost</th></tr>
  <tr><td>Station - Old town</td><td>{status}</td><td>1,200,000 EUR</td></tr>
  <tr><td>Old town - Harbour</td><td>planned</td><td>800,000 EUR</td></tr></table>
  <h2>More from the city</h2>
  <ul>{news}</ul>
  <footer>Filed under <a href="/city?sid={session}">City</a></footer>
</article>
<aside><h3>Most read</h3><a href="/a?sid={session}">{ad}</a></aside>
<div class="related-stories"><a href="/r">{ad} and more</a></div>
<section id="comments"><h3>Comments ({comments})</h3></section>
</div>
<footer class="site"><p>© {year} Riverside Gazette. Request id {session}</p></footer>
</body></html>
)";

struct Visit {
  std::string title = "Council approves new cycle lanes";
  std::string date = "Monday, 3 March 2025";
  std::string time = "10:42 CET";
  std::string ago = "5 minutes ago";
  std::string views = "12,345";
  std::string comments = "17";
  std::string session = "a8f3e9c1d2b74f60";
  std::string ad = "Save 20% on winter tyres at AutoFix this week";
  std::string year = "2025";
  std::vector<std::string> nav = {"News", "Sport", "Culture", "Weather"};
  std::vector<std::string> news = {"Bridge repairs finish early", "New library opens"};
  std::string lanes = "12";
  std::string price = "1,200,000";
  std::string status = "approved";
  std::string extra;
  std::string p = "p";
  bool reindent = false;
};

void ReplaceAll(std::string& s, std::string_view from, std::string_view to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
    s.replace(at, from.size(), to);
  }
}

std::string Render(const Visit& v) {
  std::string nav, news;
  for (const std::string& n : v.nav) {
    nav += "<li><a href=\"/s/" + n + "?sid=" + v.session + "\">" + n + "</a></li>";
  }
  for (size_t i = 0; i < v.news.size(); ++i) {
    news += "<li><a href=\"/n/" + std::to_string(i) + "?sid=" + v.session + "\">" + v.news[i] +
            "</a></li>";
  }
  const std::vector<std::pair<std::string_view, std::string_view>> values = {
      {"{title}", v.title}, {"{date}", v.date}, {"{time}", v.time}, {"{ago}", v.ago},
              {"{views}", v.views}, {"{comments}", v.comments}, {"{session}", v.session},
              {"{ad}", v.ad}, {"{year}", v.year}, {"{nav}", nav}, {"{news}", news},
              {"{lanes}", v.lanes}, {"{price}", v.price}, {"{status}", v.status},
              {"{extra}", v.extra}, {"{p}", v.p}};
  std::string html(kPage);
  for (const auto& [placeholder, value] : values) ReplaceAll(html, placeholder, value);
  if (v.reindent) {
    ReplaceAll(html, "\n", "\n\n\t  ");
    ReplaceAll(html, "> <", ">\n<");
  }
  return html;
}

ContentSignature Signature(const std::string& html, html::ExtractOptions::Parser parser) {
  html::ExtractOptions options;
  options.parser = parser;
  absl::StatusOr<html::ExtractedPage> page = html::ExtractPage(
      html, *url::Url::Parse("https://gazette.example/city/lanes.html"), "text/html", options);
  EXPECT_TRUE(page.ok()) << page.status();
  if (!page.ok()) return {};
  return {ComputeSimHash(page->text), ComputeChangeDigest(page->main_text)};
}

struct Case {
  std::string name;
  bool changed;
  void (*edit)(Visit&);
};

const std::vector<Case>& Cases() {
  static const std::vector<Case> cases = {
      // Noise: the page did not change.
      {"date_stamps", false, [](Visit& v) { v.date = "Thursday, 16 October 2025"; v.time = "23:07 CEST"; }},
      {"relative_time", false, [](Visit& v) { v.ago = "3 hours ago"; }},
      {"view_counter", false, [](Visit& v) { v.views = "13,872"; }},
      {"comment_counter", false, [](Visit& v) { v.comments = "231"; }},
      {"rotating_ad", false, [](Visit& v) { v.ad = "Find cheap flights to Lisbon with SkyFare today"; }},
      {"session_ids", false, [](Visit& v) { v.session = "07bd55e2c9a1f3e8"; }},
      {"navigation_order", false, [](Visit& v) { v.nav = {"Weather", "News", "Culture", "Sport"}; }},
      {"navigation_item_added", false, [](Visit& v) { v.nav.push_back("Jobs"); }},
      {"footer_year", false, [](Visit& v) { v.year = "2026"; }},
      {"markup", false, [](Visit& v) { v.p = "div"; v.reindent = true; }},
      {"everything_at_once", false, [](Visit& v) {
         v.date = "Thursday, 16 October 2025"; v.time = "23:07 CEST"; v.ago = "yesterday";
         v.views = "99"; v.comments = "0"; v.ad = "Try our meal kits"; v.session = "ffff";
         v.nav = {"Sport", "News"}; v.year = "2030"; v.reindent = true; }},
      // Real edits, down to one word or one digit.
      {"one_number_in_prose", true, [](Visit& v) { v.lanes = "14"; }},
      {"price", true, [](Visit& v) { v.price = "1,350,000"; }},
      {"table_cell", true, [](Visit& v) { v.status = "under construction"; }},
      {"title", true, [](Visit& v) { v.title = "Council approves new cycle lanes along the river"; }},
      {"paragraph_added", true, [](Visit& v) { v.extra = "<p>Residents can comment until May.</p>"; }},
      {"news_item_added", true, [](Visit& v) { v.news.insert(v.news.begin(), "Tram line extended"); }},
      {"news_item_removed", true, [](Visit& v) { v.news.pop_back(); }},
  };
  return cases;
}

class HandMadePage : public ::testing::TestWithParam<html::ExtractOptions::Parser> {};

TEST_P(HandMadePage, NoiseKeepsTheDigestRealEditsChangeIt) {
  const ContentSignature before = Signature(Render(Visit{}), GetParam());
  ASSERT_TRUE(before.digest.has_value());
  const ChangeDetectionOptions options;
  for (const Case& c : Cases()) {
    Visit visit;
    c.edit(visit);
    const ContentSignature after = Signature(Render(visit), GetParam());
    EXPECT_EQ(ContentChanged(before, after, options), c.changed) << c.name;
  }
}

// The SimHash alone misses the small edits: why the digest decides.
TEST_P(HandMadePage, SimHashAloneMissesSmallEdits) {
  const ContentSignature before = Signature(Render(Visit{}), GetParam());
  const ChangeDetectionOptions options;
  int missed = 0;
  for (const Case& c : Cases()) {
    Visit visit;
    c.edit(visit);
    const ContentSignature after = Signature(Render(visit), GetParam());
    if (c.changed && !ContentChanged({before.simhash, {}}, {after.simhash, {}}, options).value()) {
      ++missed;
    }
  }
  EXPECT_GE(missed, 3);
}

INSTANTIATE_TEST_SUITE_P(BothParsers, HandMadePage,
                         ::testing::Values(html::ExtractOptions::Parser::kTokenizer,
                                           html::ExtractOptions::Parser::kGumbo));

// The optimised normalisation writes exactly what the plain original did (digests are stored
// with every page's re-visit state), on text mixing every rule's triggers: times, dates, month
// and weekday names with days and years, counters, "ago", ad labels at a line's start,
// punctuation, case, tabs, line breaks and non-ASCII bytes.
TEST(ChangeDigest, SameNormalisationAsTheOriginal) {
  std::mt19937_64 random(20261127);
  // clang-format off
  const std::vector<std::string> pieces = {
      "word", "Word", "WORD", "x", " ", "  ", "\t", "\n", "\n\n", ".", ",", ":", "!", "(", ")",
      "\"", "'", "-", "/", "#", "12", "5", "2025", "12,345", "1.5", "5th", "3rd", "21st", "10k",
      "10:42", "9:05pm", "10:42:07", "10:42:07.123", "1:2:3:4", "25:00", "2025-03-05",
      "05.03.2025", "3/5/25", "2025-03-05T10:42:07Z", "2025-3-5", "1-2-3-4", "12345-1-1",
      "March", "mar", "MAY", "Tuesday", "tues", "m\xC3\xA4rz", "M\xC3\x84RZ", "ao\xC3\xBBt",
      "diciembre", "ago", "minutes", "views", "Views:", "visitor", "number", "no.", "nr", "Hits",
      "times", "Ad:", "Ad", "ad:", "Sponsored:", "ADVERTISEMENT", "publicit\xC3\xA9", "Anzeige",
      "today", "yesterday", "UTC", "am", "pm", "\xC3", "\xFF", "\xE2\x80\x94"};
  // clang-format on
  for (int round = 0; round < 5000; ++round) {
    std::string input;
    const size_t count = random() % 80;
    for (size_t i = 0; i < count; ++i) {
      input += pieces[random() % pieces.size()];
      if (random() % 3 != 0) input += ' ';
    }
    ASSERT_EQ(NormalizeForChangeDigest(input), reference::NormalizeForChangeDigest(input))
        << "round " << round << ": " << input;
  }
}

}  // namespace
}  // namespace crawler::fingerprint
