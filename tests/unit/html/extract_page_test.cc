#include "lib/html/extract_page.h"

#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/html/script_navigation.h"
#include "lib/url/url.h"

namespace crawler::html {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr std::string_view kPage = "https://example.com/dir/page.html";

url::Url MustParseUrl(std::string_view s) {
  absl::StatusOr<url::Url> u = url::Url::Parse(s);
  EXPECT_TRUE(u.ok()) << s << ": " << u.status();
  return *u;
}

ExtractedPage Extract(std::string_view html, const ExtractOptions& options = ExtractOptions(),
                      std::string_view content_type = "text/html",
                      std::string_view page = kPage) {
  absl::StatusOr<ExtractedPage> result =
      ExtractPage(html, MustParseUrl(page), content_type, options);
  EXPECT_TRUE(result.ok()) << result.status();
  return result.ok() ? *std::move(result) : ExtractedPage();
}

// "kind url" per link, with " nofollow" when set: easy to read in failures.
std::vector<std::string> Describe(const ExtractedPage& page) {
  std::vector<std::string> out;
  for (const Link& link : page.links) {
    out.push_back(std::string(LinkKindName(link.kind)) + " " + link.url.href() +
                  (link.nofollow ? " nofollow" : ""));
  }
  return out;
}

std::string ReadDataFile(std::string_view name) {
  const std::filesystem::path path = std::filesystem::path(CRAWLER_TEST_DATA) / "html" / name;
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::string Repeat(std::string_view s, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) out.append(s);
  return out;
}

// ---- Which elements yield links, and how values become URLs. ----

struct LinkCase {
  std::string name;
  std::string html;
  std::vector<std::string> expected;
};

void PrintTo(const LinkCase& c, std::ostream* os) { *os << c.name; }

class LinkSources : public ::testing::TestWithParam<LinkCase> {};

TEST_P(LinkSources, Extracts) {
  const ExtractedPage page = Extract(GetParam().html);
  EXPECT_EQ(Describe(page), GetParam().expected) << GetParam().html;
  // Each link's URL is parsed without its fragment, and is what its serialisation parses to.
  for (const Link& link : page.links) {
    EXPECT_FALSE(link.url.has_fragment()) << link.url.href();
    EXPECT_EQ(url::Url::Parse(link.url.href()).value(), link.url);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Html, LinkSources,
    ::testing::Values(
        // 4.5.1 The a element; 4.8.14 area; 4.8.5 iframe; obsolete frame; 4.8.3 img.
        LinkCase{"a", "<a href=/x>x</a>", {"a https://example.com/x"}},
        LinkCase{"a relative to the page", "<a href=sub/y>y</a>",
                 {"a https://example.com/dir/sub/y"}},
        LinkCase{"a dot segments", "<a href=../up>y</a>", {"a https://example.com/up"}},
        LinkCase{"a scheme-relative", "<a href=//cdn.example.org/z>z</a>",
                 {"a https://cdn.example.org/z"}},
        LinkCase{"a without href", "<a name=anchor>x</a>", {}},
        LinkCase{"area", "<map><area href=/area></map>", {"area https://example.com/area"}},
        LinkCase{"frame", "<frameset><frame src=f.html></frameset>",
                 {"frame https://example.com/dir/f.html"}},
        LinkCase{"iframe", "<iframe src=/i></iframe>", {"iframe https://example.com/i"}},
        LinkCase{"img", "<img src=/i.png>", {"img https://example.com/i.png"}},
        LinkCase{"image is img", "<image src=/i.png>", {"img https://example.com/i.png"}},
        // 4.6.7 Link types, on <link>.
        LinkCase{"canonical", "<link rel=canonical href=/c>", {"canonical https://example.com/c"}},
        LinkCase{"rel is case-insensitive and tokenised", "<link rel=' CANONICAL ' href=/c>",
                 {"canonical https://example.com/c"}},
        LinkCase{"alternate", "<link rel=alternate hreflang=de href=/de>",
                 {"alternate https://example.com/de"}},
        LinkCase{"alternate feed", "<link rel=alternate type=application/rss+xml href=/feed>",
                 {"alternate https://example.com/feed"}},
        LinkCase{"alternate stylesheet is a style sheet",
                 "<link rel='alternate stylesheet' href=/alt.css>", {}},
        LinkCase{"stylesheet", "<link rel=stylesheet href=/s.css>", {}},
        LinkCase{"both canonical and alternate", "<link rel='canonical alternate' href=/b>",
                 {"canonical https://example.com/b", "alternate https://example.com/b"}},
        LinkCase{"link without rel", "<link href=/n>", {}},
        // 4.2.5.3 Refresh pragma.
        LinkCase{"meta refresh", "<meta http-equiv=Refresh content='0; URL=/next'>",
                 {"refresh https://example.com/next"}},
        LinkCase{"meta refresh without URL", "<meta http-equiv=refresh content=5>", {}},
        LinkCase{"meta refresh, bad content", "<meta http-equiv=refresh content='soon; url=/x'>",
                 {}},
        // The fragment is removed; the URL parser trims and drops tabs and newlines.
        LinkCase{"fragment removed", "<a href='/x?q=1#frag'>x</a>",
                 {"a https://example.com/x?q=1"}},
        LinkCase{"whitespace trimmed", "<a href='  /x \n'>x</a>", {"a https://example.com/x"}},
        LinkCase{"newline inside", "<a href='/x\n/y'>x</a>", {"a https://example.com/x/y"}},
        // 13.2.5.72 Character references in attribute values are decoded by the parser.
        LinkCase{"entities", "<a href='/q?a=1&amp;b=2&#38;c=&lt;'>x</a>",
                 {"a https://example.com/q?a=1&b=2&c=%3C"}},
        LinkCase{"bare ampersand", "<a href='/q?a=1&b=2&copy=3'>x</a>",
                 {"a https://example.com/q?a=1&b=2&copy=3"}},
        LinkCase{"non-ASCII path", "<a href='/caf\xC3\xA9'>x</a>",
                 {"a https://example.com/caf%C3%A9"}},
        LinkCase{"IDN host", "<a href='https://b\xC3\xBC\x63her.example/'>x</a>",
                 {"a https://xn--bcher-kva.example/"}},
        // Only HTML elements: an SVG <a> or MathML element is not an HTML link.
        LinkCase{"svg a", "<svg><a href=/svg-a><text>t</text></a></svg>", {}},
        LinkCase{"html inside foreignObject",
                 "<svg><foreignObject><a href=/fo>x</a></foreignObject></svg>",
                 {"a https://example.com/fo"}},
        LinkCase{"document order",
                 "<a href=/1>1</a><img src=/2><iframe src=/3></iframe><a href=/4>4</a>",
                 {"a https://example.com/1", "img https://example.com/2",
                  "iframe https://example.com/3", "a https://example.com/4"}},
        LinkCase{"duplicates kept", "<a href=/d>1</a><a href=/d#x>2</a>",
                 {"a https://example.com/d", "a https://example.com/d"}}),
    [](const ::testing::TestParamInfo<LinkCase>& param) {
      std::string name;
      for (char c : param.param.name) name.push_back(std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
      return name;
    });

// ---- 4.2.3 The base element. ----

TEST(Html_4_2_3_BaseElement, ResolvedAgainstThePageUrl) {
  const ExtractedPage p = Extract("<base href='/other/'><a href=x>x</a>");
  EXPECT_THAT(Describe(p), ElementsAre("a https://example.com/other/x"));
  EXPECT_EQ(p.meta.base_url, "https://example.com/other/");
}

TEST(Html_4_2_3_BaseElement, FirstWithHrefWins) {
  const ExtractedPage p = Extract(
      "<base target=_blank><base href='https://a.example/'><base href='https://b.example/'>"
      "<a href=x>x</a>");
  EXPECT_THAT(Describe(p), ElementsAre("a https://a.example/x"));
}

TEST(Html_4_2_3_BaseElement, AppliesToLinksBeforeIt) {
  const ExtractedPage p = Extract("<a href=x>x</a><base href='https://a.example/'>");
  EXPECT_THAT(Describe(p), ElementsAre("a https://a.example/x"));
}

TEST(Html_4_2_3_BaseElement, UnusableBaseFallsBackToThePageUrl) {
  for (const char* base : {"http://[::1", "javascript:alert(1)", "mailto:x@example.com"}) {
    const ExtractedPage p = Extract(std::string("<base href='") + base + "'><a href=x>x</a>");
    EXPECT_THAT(Describe(p), ElementsAre("a https://example.com/dir/x")) << base;
    EXPECT_EQ(p.meta.base_url, kPage) << base;
  }
}

TEST(Html_4_2_3_BaseElement, OverlongBaseIsIgnored) {
  ExtractOptions options;
  options.max_url_bytes = 64;
  const ExtractedPage p =
      Extract("<base href='https://a.example/" + std::string(100, 'x') + "/'><a href=y>y</a>",
              options);
  EXPECT_THAT(Describe(p), ElementsAre("a https://example.com/dir/y"));
}

TEST(Html_4_2_3_BaseElement, InsideTemplateIsNotTheBase) {
  const ExtractedPage p = Extract("<template><base href='https://a.example/'></template>"
                                  "<a href=x>x</a>");
  EXPECT_THAT(Describe(p), ElementsAre("a https://example.com/dir/x"));
}

TEST(Html_4_2_3_BaseElement, FragmentOnlyLinkToAnotherBaseIsKept) {
  const ExtractedPage p = Extract("<base href='https://a.example/doc'><a href=#top>t</a>");
  EXPECT_THAT(Describe(p), ElementsAre("a https://a.example/doc"));
  EXPECT_EQ(p.skipped.same_document, 0u);
}

TEST(Html_4_2_3_BaseElement, DataFile) {
  const ExtractedPage p = Extract(ReadDataFile("base.html"));
  EXPECT_THAT(Describe(p),
              ElementsAre("a https://cdn.example.net/base/page", "a https://cdn.example.net/root",
                          "a https://cdn.example.net/base/", "img https://cdn.example.net/img.png"));
}

// ---- 4.6.7 Link types: nofollow; and <meta name=robots>. ----

TEST(Html_4_6_7_LinkTypeNofollow, MarksTheLink) {
  const ExtractedPage p = Extract(
      "<a href=/1 rel=nofollow>1</a><a href=/2 rel='NoFollow noopener'>2</a>"
      "<a href=/3 rel=nofollowed>3</a><a href=/4>4</a><map><area href=/5 rel=nofollow></map>"
      "<link rel='canonical nofollow' href=/6>");
  EXPECT_THAT(Describe(p),
              ElementsAre("a https://example.com/1 nofollow", "a https://example.com/2 nofollow",
                          "a https://example.com/3", "a https://example.com/4",
                          "area https://example.com/5 nofollow",
                          "canonical https://example.com/6 nofollow"));
  EXPECT_FALSE(p.meta.nofollow);
}

TEST(RobotsMetaElement, NofollowMarksEveryLinkEvenBeforeIt) {
  const ExtractedPage p = Extract(
      "<a href=/before>b</a><meta name=robots content='nofollow'><img src=/i.png>");
  EXPECT_THAT(Describe(p), ElementsAre("a https://example.com/before nofollow",
                                       "img https://example.com/i.png nofollow"));
  EXPECT_TRUE(p.meta.nofollow);
  EXPECT_FALSE(p.meta.noindex);
}

TEST(RobotsMetaElement, NoindexIsReported) {
  const ExtractedPage p = Extract("<meta name=robots content=noindex><a href=/x>x</a>");
  EXPECT_TRUE(p.meta.noindex);
  EXPECT_THAT(Describe(p), ElementsAre("a https://example.com/x"));
}

TEST(RobotsMetaElement, NameIsCaseInsensitiveAndNoneMeansBoth) {
  const ExtractedPage p = Extract(ReadDataFile("robots_none.html"));
  EXPECT_TRUE(p.meta.noindex);
  EXPECT_TRUE(p.meta.nofollow);
  EXPECT_THAT(Describe(p), ElementsAre("a https://example.com/a nofollow",
                                       "canonical https://example.com/c nofollow"));
}

TEST(RobotsMetaElement, OtherAgentsOnlyWhenConfigured) {
  const std::string html = "<meta name=ExampleBot content=nofollow><a href=/x>x</a>";
  EXPECT_FALSE(Extract(html).meta.nofollow);
  ExtractOptions options;
  options.robots_meta_names = {"robots", "examplebot"};
  EXPECT_TRUE(Extract(html, options).meta.nofollow);
}

TEST(RobotsMetaElement, SeveralElementsCombine) {
  const ExtractedPage p =
      Extract("<meta name=robots content=noindex><meta name=robots content=nofollow>");
  EXPECT_TRUE(p.meta.noindex);
  EXPECT_TRUE(p.meta.nofollow);
}

// ---- What is not a link. ----

TEST(SkippedReferences, CountedByReason) {
  ExtractOptions options;
  options.max_url_bytes = 100;
  const ExtractedPage p = Extract(
      "<a href='javascript:void(0)'>1</a><a href=' JavaScript:x()'>2</a>"
      "<a href='java\nscript:x()'>3</a><a href='mailto:a@example.com'>4</a>"
      "<img src='data:image/png;base64,AAAA'><a href='tel:+1'>5</a><a href='ftp://f/'>6</a>"
      "<a href='http://[bad'>7</a><a href=''>8</a><a href='  '>9</a><a href='#top'>10</a>"
      "<a href='/" + std::string(200, 'x') + "'>11</a><a href=/ok>ok</a>",
      options);
  EXPECT_THAT(Describe(p), ElementsAre("a https://example.com/ok"));
  EXPECT_EQ(p.skipped.javascript, 3u);
  EXPECT_EQ(p.skipped.mailto, 1u);
  EXPECT_EQ(p.skipped.data, 1u);
  EXPECT_EQ(p.skipped.other_scheme, 2u);
  EXPECT_EQ(p.skipped.invalid, 1u);
  EXPECT_EQ(p.skipped.empty, 2u);
  EXPECT_EQ(p.skipped.same_document, 1u);
  EXPECT_EQ(p.skipped.too_long, 1u);
  EXPECT_EQ(p.skipped.over_limit, 0u);
  EXPECT_EQ(p.skipped.total(), 12u);
}

TEST(SkippedReferences, UnresolvedKeptVerbatimOnRequest) {
  const std::string html =
      "<a href=' javascript:go(1) '>1</a><a href='mailto:a@example.com'>2</a>"
      "<a href='http://[bad'>3</a><a href='tel:+1'>4</a><a href='data:,x'>5</a>";
  EXPECT_TRUE(Extract(html).unresolved.empty()) << "none kept by default";
  ExtractOptions options;
  options.max_unresolved_kept = 4;
  options.max_anchor_text_bytes = 12;
  const ExtractedPage p = Extract(html, options);
  ASSERT_EQ(p.unresolved.size(), 4u);
  EXPECT_EQ(p.unresolved[0], (UnresolvedRef{"javascript", "javascript:g"}));
  EXPECT_EQ(p.unresolved[1], (UnresolvedRef{"mailto", "mailto:a@exa"}));
  EXPECT_EQ(p.unresolved[2].reason, "invalid");
  EXPECT_EQ(p.unresolved[3].reason, "other_scheme");
  EXPECT_EQ(p.skipped.data, 1u) << "counted though not kept";
}

TEST(SkippedReferences, SameDocumentOnlyForFragmentOnlyAnchors) {
  const ExtractedPage p = Extract(
      "<a href=#a>1</a><a href='page.html#b'>2</a><img src=#c><a href=''>4</a>");
  // "page.html#b" names the page itself but is written as a path: kept, as browsers navigate.
  EXPECT_THAT(Describe(p), ElementsAre("a https://example.com/dir/page.html",
                                       "img https://example.com/dir/page.html"));
  EXPECT_EQ(p.skipped.same_document, 1u);
}

TEST(SkippedReferences, LinkLimit) {
  ExtractOptions options;
  options.max_links = 2;
  const ExtractedPage p = Extract("<a href=/1>1</a><a href=/2>2</a><a href=/3>3</a><img src=/4>",
                                  options);
  EXPECT_THAT(Describe(p), ElementsAre("a https://example.com/1", "a https://example.com/2"));
  EXPECT_EQ(p.skipped.over_limit, 2u);
}

// ---- Nothing from comments, scripts, styles, textareas or templates. ----

TEST(HiddenContent, YieldsNoLinksAndNoText) {
  const ExtractedPage p = Extract(
      "<!-- <a href=/comment>c</a> -->"
      "<script>document.write('<a href=\"/script\">s</a>')</script>"
      "<style>a[href='/style']{}</style>"
      "<textarea><a href=/textarea>t</a></textarea>"
      "<template><a href=/template>t</a><img src=/template.png></template>"
      "<title><a href=/title>t</a></title>"
      "<svg><script>var a = '<a href=/svg-script>';</script></svg>"
      "<p>visible</p>");
  EXPECT_THAT(p.links, IsEmpty());
  EXPECT_EQ(p.text, "visible");
}

// Gumbo parses as a browser with scripting disabled does, which is what a crawler sees.
TEST(HiddenContent, NoscriptContentIsMarkup) {
  const ExtractedPage p = Extract("<body><noscript><a href=/ns>Enable JS</a></noscript>");
  EXPECT_THAT(Describe(p), ElementsAre("a https://example.com/ns"));
  EXPECT_EQ(p.text, "Enable JS");
}

// ---- Visible text. ----

TEST(VisibleText, BlocksAndWhitespace) {
  const ExtractedPage p = Extract(
      "<html><head><title>Title</title><style>p{}</style></head><body>"
      "<h1>Hello</h1><p>World   and\n  more&nbsp;&nbsp;text</p><script>var a;</script>"
      "<div hidden>secret</div><ul><li>one<li>two</ul>"
      "<table><tr><td>a<td>b</tr><tr><td>c</table>inline<b>bold</b><br>after");
  EXPECT_EQ(p.text, "Hello\nWorld and more text\none\ntwo\na b\nc\ninlinebold\nafter");
}

TEST(VisibleText, EntitiesDecoded) {
  EXPECT_EQ(Extract("<p>Caf&eacute; &amp; cr&egrave;me &#x263A; &notin;</p>").text,
            "Café & crème ☺ ∉");
}

TEST(VisibleText, Bounded) {
  ExtractOptions options;
  options.max_text_bytes = 10;
  const ExtractedPage p = Extract("<p>abcdef ghijkl mnop</p>", options);
  EXPECT_EQ(p.text, "abcdef ghi");
  EXPECT_TRUE(p.stats.text_truncated);
}

TEST(VisibleText, NotCollectedUnlessAsked) {
  constexpr std::string_view kHtml =
      "<title>The  title</title><h1>Hello</h1><p>Some text <a href=/1>  Click <b>here</b></a>"
      "<a href=/2><img src=/logo.png alt='Company logo'></a> and <a href=/3>line<br>break</a>"
      " more&nbsp;text</p><table><tr><td><a href=/4>cell</a><td>b</table>";
  for (const ExtractOptions::Parser parser :
       {ExtractOptions::Parser::kTokenizer, ExtractOptions::Parser::kGumbo}) {
    SCOPED_TRACE(parser == ExtractOptions::Parser::kGumbo ? "gumbo" : "tokenizer");
    ExtractOptions options;
    options.parser = parser;
    options.max_text_bytes = 8;  // would be truncated if collected
    const ExtractedPage with_text = Extract(kHtml, options);
    options.collect_text = false;
    const ExtractedPage without = Extract(kHtml, options);
    EXPECT_EQ(with_text.text, "Hello\nSo");
    EXPECT_TRUE(with_text.stats.text_truncated);
    EXPECT_THAT(without.text, IsEmpty());
    EXPECT_FALSE(without.stats.text_truncated);
    EXPECT_EQ(without.meta.title, "The title");
    EXPECT_EQ(Describe(without), Describe(with_text));
    ASSERT_EQ(without.links.size(), 5u);
    for (size_t i = 0; i < without.links.size(); ++i) {
      EXPECT_EQ(without.links[i].anchor_text, with_text.links[i].anchor_text) << i;
    }
    EXPECT_EQ(without.links[0].anchor_text, "Click here");
    EXPECT_EQ(without.links[1].anchor_text, "Company logo");
    EXPECT_EQ(without.links[3].anchor_text, "line break");
    EXPECT_EQ(without.links[4].anchor_text, "cell");
  }
}

// ---- Main content text: the visible text without page furniture (internal/boilerplate.h). ----

// Both parsers, as the rules are applied by each.
std::string MainText(std::string_view html) {
  ExtractOptions gumbo;
  gumbo.parser = ExtractOptions::Parser::kGumbo;
  const std::string main_text = Extract(html).main_text;
  EXPECT_EQ(Extract(html, gumbo).main_text, main_text) << "the parsers disagree on " << html;
  return main_text;
}

TEST(MainText, SectioningFurnitureIsLeftOut) {
  const std::string html =
      "<header><a href=/>Site</a> Today is Monday</header><nav><a href=/a>A</a></nav>"
      "<main><h1>Title</h1><p>Body text.</p><aside>Related: other</aside></main>"
      "<menu><li>Tool</menu><footer>(c) 2025 Site</footer>";
  EXPECT_EQ(MainText(html), "Title\nBody text.");
  EXPECT_EQ(Extract(html).text,
            "Site Today is Monday\nA\nTitle\nBody text.\nRelated: other\nTool\n(c) 2025 Site");
}

TEST(MainText, HeaderAndFooterOfAnArticleAreContent) {
  EXPECT_EQ(MainText("<header>Site</header><article><header><h1>Title</h1></header><p>Body</p>"
                     "<footer>Filed under news</footer></article><section><footer>S</footer>"
                     "</section><footer>Site footer</footer>"),
            "Title\nBody\nFiled under news\nS");
}

TEST(MainText, LandmarkRolesAreFurniture) {
  EXPECT_EQ(MainText("<div role=navigation>Menu</div><div role='banner extra'>Logo</div>"
                     "<div role=main>Body</div><div role=complementary>Side</div>"
                     "<div role=contentinfo>Legal</div><div role=search>Find</div>"
                     "<div role=note>Note</div>"),
            "Body\nNote");
}

TEST(MainText, ClassAndIdWordsNameFurniture) {
  EXPECT_EQ(MainText("<div class='post'><p class='entry-meta'>By Ann, 3 May</p>"
                     "<div class=AD_SLOT>Buy now</div><p>Body</p>"
                     "<div id=sidebar-left>Side</div><div class='x share-buttons'>Share</div>"
                     "<p class=download>Get it</p><p class=header-nav>Links</p>"
                     "<div class=related><a href=/r>Other story</a></div>"
                     "<span class='token comment'>// code comment</span>"
                     "<p class='x Widget'>W</p><p class='mete navs 2nav'>Near misses</p></div>"),
            "Body\nGet it\n// code comment\nNear misses");
}

TEST(MainText, FurnitureNestsAndHiddenTextStaysOut) {
  EXPECT_EQ(MainText("<nav><div><p>One</p><main>Two</main></div></nav><p>Three</p>"
                     "<div hidden>Four</div><script>five</script><p>Six <span class=ad>7</span> "
                     "eight</p>"),
            "Three\nSix eight");
}

TEST(MainText, LinksCountByTheirTextNotTheirUrl) {
  EXPECT_EQ(MainText("<ul><li><a href='/n/1?sid=abc'>First item</a><li><a href=/n/2>Second</a>"
                     "</ul>"),
            "First item\nSecond");
}

TEST(MainText, NotCollectedUnlessAsked) {
  ExtractOptions options;
  options.collect_text = false;
  EXPECT_THAT(Extract("<p>Body</p>", options).main_text, IsEmpty());
}

TEST(AnchorText, CollapsedAndIncludesImageAlt) {
  const ExtractedPage p = Extract(
      "<a href=/1>  Click <b>here</b>\n now </a>"
      "<a href=/2><img src=/logo.png alt='Company logo'></a>"
      "<map><area href=/3 alt='  An   area '></map><a href=/4></a>"
      "<a href=/5>line<br>break<div>block</div></a>");
  ASSERT_EQ(p.links.size(), 6u);
  EXPECT_EQ(p.links[0].anchor_text, "Click here now");
  EXPECT_EQ(p.links[1].anchor_text, "Company logo");
  EXPECT_EQ(p.links[2].kind, LinkKind::kImg);
  EXPECT_EQ(p.links[2].anchor_text, "Company logo");
  EXPECT_EQ(p.links[3].anchor_text, "An area");
  EXPECT_EQ(p.links[4].anchor_text, "");
  EXPECT_EQ(p.links[5].anchor_text, "line break block");
}

TEST(AnchorText, Bounded) {
  ExtractOptions options;
  options.max_anchor_text_bytes = 5;
  const ExtractedPage p = Extract("<a href=/1>abc def</a>", options);
  ASSERT_EQ(p.links.size(), 1u);
  EXPECT_EQ(p.links[0].anchor_text, "abc d");
}

// ---- 4.2.2 The title element; 3.2.6.2 The lang attribute. ----

TEST(Html_4_2_2_TitleElement, FirstTitleStrippedAndCollapsed) {
  EXPECT_EQ(Extract("<title>\n  My   <b>Title</b>\n</title><title>Second</title>").meta.title,
            "My <b>Title</b>");
  EXPECT_EQ(Extract("<svg><title>SVG</title></svg><title>HTML</title>").meta.title, "HTML");
  EXPECT_EQ(Extract("<p>no title").meta.title, "");
}

TEST(Html_4_2_2_TitleElement, Bounded) {
  ExtractOptions options;
  options.max_title_bytes = 4;
  EXPECT_EQ(Extract("<title>abcdefgh</title>", options).meta.title, "abcd");
}

TEST(Html_3_2_6_2_LangAttribute, FromTheRootElement) {
  EXPECT_EQ(Extract("<html lang=' de-CH '><p>x").meta.language, "de-CH");
  EXPECT_EQ(Extract("<html><p lang=fr>x").meta.language, "");
}

TEST(Html_4_2_5_3_ContentLanguagePragma, UsedWithoutLang) {
  EXPECT_EQ(Extract("<meta http-equiv=Content-Language content=' pt-BR '>").meta.language,
            "pt-BR");
  // A list is not a language.
  EXPECT_EQ(Extract("<meta http-equiv=content-language content='en, fr'>").meta.language, "");
  // lang, even empty, wins over the pragma.
  EXPECT_EQ(
      Extract("<html lang=''><meta http-equiv=content-language content=pt>").meta.language, "");
}

// ---- 13.2.3.2 Determining the character encoding, end to end. ----

TEST(Html_13_2_3_2_Encoding, MetaPrescanKoi8r) {
  const ExtractedPage p = Extract(ReadDataFile("koi8r.html"), ExtractOptions(), "text/html");
  EXPECT_EQ(p.meta.encoding, Encoding::kKoi8R);
  EXPECT_EQ(p.meta.encoding_source, CharsetSource::kMetaPrescan);
  EXPECT_EQ(p.meta.title, "Привет");
  EXPECT_EQ(p.text, "Привет, мир\nссылка");
  // Paths are percent-encoded UTF-8 whatever the page's encoding.
  EXPECT_THAT(Describe(p), ElementsAre("a https://example.com/%D0%BF%D1%83%D1%82%D1%8C"));
  EXPECT_EQ(p.links[0].anchor_text, "ссылка");
}

TEST(Html_13_2_3_2_Encoding, HeaderOverridesMeta) {
  const ExtractedPage p =
      Extract(ReadDataFile("koi8r.html"), ExtractOptions(), "text/html; charset=windows-1251");
  EXPECT_EQ(p.meta.encoding, Encoding::kWindows1251);
  EXPECT_EQ(p.meta.encoding_source, CharsetSource::kHttpHeader);
  EXPECT_NE(p.meta.title, "Привет");
}

TEST(Html_13_2_3_2_Encoding, UndeclaredLegacyBytesAreWindows1252) {
  const ExtractedPage p = Extract(ReadDataFile("windows1252_undeclared.html"));
  EXPECT_EQ(p.meta.encoding, Encoding::kWindows1252);
  EXPECT_EQ(p.meta.encoding_source, CharsetSource::kDefault);
  EXPECT_EQ(p.text, "Café “quoted” € 5");
}

TEST(Html_13_2_3_2_Encoding, Utf16ByteOrderMark) {
  const ExtractedPage p = Extract(ReadDataFile("utf16le_bom.html"));
  EXPECT_EQ(p.meta.encoding, Encoding::kUtf16Le);
  EXPECT_EQ(p.meta.encoding_source, CharsetSource::kBom);
  EXPECT_EQ(p.meta.title, "UTF-16");
  EXPECT_THAT(Describe(p), ElementsAre("a https://example.com/u16"));
  EXPECT_EQ(p.text, "Sixteen 😀");
}

TEST(Html_13_2_3_2_Encoding, ShiftJis) {
  const ExtractedPage p = Extract(ReadDataFile("shift_jis.html"));
  EXPECT_EQ(p.meta.encoding, Encoding::kShiftJis);
  EXPECT_EQ(p.meta.title, "日本語");
  EXPECT_EQ(p.text, "リンク");
}

TEST(Html_13_2_3_2_Encoding, MalformedUtf8IsRepaired) {
  const ExtractedPage p = Extract("<meta charset=utf-8><p>a\xFF" "b</p><a href='/\xC3'>x</a>");
  EXPECT_EQ(p.text, "a\uFFFDb\nx");
  EXPECT_THAT(Describe(p), ElementsAre("a https://example.com/%EF%BF%BD"));
}

// ---- Whole documents. ----

TEST(DataFiles, Links) {
  const ExtractedPage p =
      Extract(ReadDataFile("links.html"), ExtractOptions(), "", "https://example.com/dir/links.html");
  EXPECT_THAT(Describe(p),
              ElementsAre("canonical https://example.com/links",
                          "alternate https://example.com/de/links",
                          "refresh https://example.com/refreshed", "a https://example.com/plain",
                          "a https://example.com/dir/relative.html",
                          "a https://other.example/ext nofollow", "a https://example.com/q?a=1&b=2",
                          "a https://example.com/in-noscript", "area https://example.com/area",
                          "iframe https://example.com/frame.html",
                          "a https://example.com/image-link", "img https://example.com/logo.png"));
  EXPECT_EQ(p.links[4].anchor_text, "relative one");
  EXPECT_EQ(p.links[5].anchor_text, "External & nofollowed");
  EXPECT_EQ(p.links[10].anchor_text, "Logo");
  EXPECT_EQ(p.skipped.same_document, 1u);
  EXPECT_EQ(p.skipped.javascript, 1u);
  EXPECT_EQ(p.skipped.mailto, 1u);
  EXPECT_EQ(p.skipped.data, 1u);
  EXPECT_EQ(p.skipped.other_scheme, 1u);
  EXPECT_EQ(p.text,
            "Links test\nPlain plain link and a relative one.\nExternal & nofollowed\n"
            "Query Top JS Mail Data Tel\nEnable JS\nCafé – naïve");
  EXPECT_EQ(p.meta.title, "Links & more");
  EXPECT_EQ(p.meta.language, "en-GB");
  EXPECT_EQ(p.meta.encoding, Encoding::kUtf8);
  EXPECT_EQ(p.meta.encoding_source, CharsetSource::kMetaPrescan);
  EXPECT_FALSE(p.meta.noindex);
  EXPECT_EQ(p.stats.start_tags_dropped, 0u);
}

TEST(DataFiles, Frames) {
  const ExtractedPage p = Extract(ReadDataFile("frames.html"));
  // <noframes> content is raw text to a parser (and a browser) that supports frames.
  EXPECT_THAT(Describe(p), ElementsAre("frame https://example.com/dir/left.html",
                                       "frame https://example.com/right"));
  EXPECT_EQ(p.text, "");
}

// ---- Bounded work on hostile input. ----

TEST(Bounds, DeepNestingIsFlattened) {
  const std::string html = "<a href=/shallow>s</a>" + Repeat("<div>", 100000) +
                           "<p>deep</p>" + Repeat("</div>", 100000) + "<a href=/after>a</a>";
  const ExtractedPage p = Extract(html);
  EXPECT_THAT(Describe(p),
              ElementsAre("a https://example.com/shallow", "a https://example.com/after"));
  EXPECT_GT(p.stats.start_tags_dropped, 99000u);
  EXPECT_LE(p.stats.tree_depth, ExtractOptions().max_nesting_depth + 1);
  EXPECT_EQ(p.text, "s\ndeep\na");
}

// Links in sloppy markup that nests without end, as browsers keep them: the nesting limits
// flatten the elements around the links, never the links. With either parser.
class LinksInDeepMarkup : public ::testing::TestWithParam<ExtractOptions::Parser> {
 protected:
  ExtractedPage ExtractWithParser(const std::string& html) {
    ExtractOptions options;
    options.parser = GetParam();
    return Extract(html, options);
  }
};

std::string NumberedLinks(std::string_view before, size_t n, std::string_view after = "") {
  std::string out;
  for (size_t i = 0; i < n; ++i) {
    out.append(before);
    out.append("<a href=/item").append(std::to_string(i)).append(">item</a>");
    out.append(after);
  }
  return out;
}

std::vector<std::string> NumberedUrls(size_t n) {
  std::vector<std::string> out;
  for (size_t i = 0; i < n; ++i) out.push_back("a https://example.com/item" + std::to_string(i));
  return out;
}

TEST_P(LinksInDeepMarkup, UnclosedDivsAroundUnclosedLinks) {
  std::string html;
  for (size_t i = 0; i < 600; ++i) html += "<div class=item><a href=/item" + std::to_string(i) + ">";
  const ExtractedPage p = ExtractWithParser(html);
  // Each <a> is closed by the next one, whose <div> it holds: the adoption agency clones it into
  // that div (HTML 13.2.6.4.7), so the tree has every link twice, as a browser's does.
  std::vector<std::string> distinct;
  for (const std::string& link : Describe(p)) {
    if (distinct.empty() || distinct.back() != link) distinct.push_back(link);
  }
  EXPECT_EQ(distinct, NumberedUrls(600));
  EXPECT_GT(p.stats.start_tags_dropped, 0u);  // the divs past the depth limit
}

TEST_P(LinksInDeepMarkup, UnclosedFontsAroundLinks) {
  std::string html;
  for (size_t i = 0; i < 100; ++i) {
    html += "<font color=#" + std::to_string(100000 + i) + "><a href=/item" + std::to_string(i) +
            ">item</a>";
  }
  const ExtractedPage p = ExtractWithParser(html);
  EXPECT_EQ(Describe(p), NumberedUrls(100));
  EXPECT_GT(p.stats.start_tags_dropped, 0u);  // the fonts past the formatting-element limit
}

TEST_P(LinksInDeepMarkup, UnclosedSpansAndTableCells) {
  const ExtractedPage spans = ExtractWithParser(NumberedLinks("<span>", 1000));
  EXPECT_EQ(Describe(spans), NumberedUrls(1000));
  const ExtractedPage cells = ExtractWithParser(NumberedLinks("<table><tr><td>", 1000));
  EXPECT_EQ(Describe(cells), NumberedUrls(1000));
}

INSTANTIATE_TEST_SUITE_P(Parsers, LinksInDeepMarkup,
                         ::testing::Values(ExtractOptions::Parser::kTokenizer,
                                           ExtractOptions::Parser::kGumbo),
                         [](const ::testing::TestParamInfo<ExtractOptions::Parser>& p) {
                           return p.param == ExtractOptions::Parser::kGumbo ? "Gumbo" : "Tokenizer";
                         });

// ---- Script links: navigation handlers and javascript: hrefs (script_navigation.h). ----

class ScriptLinks : public ::testing::TestWithParam<ExtractOptions::Parser> {
 protected:
  ExtractedPage ExtractWithParser(const std::string& html,
                                  ExtractOptions options = ExtractOptions()) {
    options.parser = GetParam();
    return Extract(html, options);
  }
};

TEST_P(ScriptLinks, HandlersOnAnyElement) {
  const ExtractedPage p = ExtractWithParser(
      "<button onclick=\"location.href='/button'; return false\">b</button>"
      "<div ondblclick='window.open(\"/div\", \"_blank\")'>d</div>"
      "<table><tr onmousedown=\"document.location='/tr'\">"
      "<td onmouseup=\"top.location.assign('/td')\"></table>"
      "<li onkeydown=\"location.replace('/li')\" onkeypress=\"location='/li2'\">"
      "<my-card ONCLICK=\"self.location.href = `/card`\">c</my-card>"
      "<input type=button onpointerup=\"location='/input'\" ontouchend=\"location='/touch'\">"
      "<span onclick=\"track()\">no navigation</span>");
  EXPECT_THAT(Describe(p),
              ElementsAre("script https://example.com/button", "script https://example.com/div",
                          "script https://example.com/tr", "script https://example.com/td",
                          "script https://example.com/li", "script https://example.com/li2",
                          "script https://example.com/card", "script https://example.com/input",
                          "script https://example.com/touch"));
  for (const Link& link : p.links) EXPECT_EQ(link.anchor_text, "");
}

TEST_P(ScriptLinks, OnlyActivationHandlersOfDocumentElements) {
  const ExtractedPage p = ExtractWithParser(
      "<html onclick=\"location='/html'\"><head onclick=\"location='/head'\"></head>"
      "<body onclick=\"location='/body'\">"
      "<img src=/i onload=\"location='/load'\" onmouseover=\"location='/over'\">"
      "<select onchange=\"location='/change'\"></select>"
      "<template><button onclick=\"location='/template'\">t</button></template>"
      "<svg><g onclick=\"location='/svg'\"></g></svg>"
      "<button data-onclick=\"location='/data'\" onclickx=\"location='/x'\">b</button>");
  EXPECT_THAT(Describe(p), ElementsAre("img https://example.com/i"));
}

TEST_P(ScriptLinks, AfterTheOtherLinksEachTargetOnce) {
  const ExtractedPage p = ExtractWithParser(
      "<button onclick=\"location='/x'\">x</button><a href=/a onclick=\"location='/x'\">a</a>"
      "<img src=/i onclick=\"location='/y'; location='/x'\"><a href=/b>b</a>");
  EXPECT_THAT(Describe(p),
              ElementsAre("a https://example.com/a", "img https://example.com/i",
                          "a https://example.com/b", "script https://example.com/x",
                          "script https://example.com/y"));
}

// The tree builder clones formatting elements with their attributes: a clone adds no script
// link, while a cloned <a> is a link again.
TEST_P(ScriptLinks, ClonesAddNothing) {
  const ExtractedPage p = ExtractWithParser(
      "<p><b onclick=\"location='/b'\">x<p>y<p><a href=/a onclick=\"location='/s'\">a<p>z");
  EXPECT_THAT(Describe(p), ElementsAre("a https://example.com/a", "a https://example.com/a",
                                       "script https://example.com/b",
                                       "script https://example.com/s"));
}

TEST_P(ScriptLinks, ResolvedAndSkippedLikeOtherLinks) {
  const ExtractedPage p = ExtractWithParser(
      "<base href=https://b.example/dir/>"
      "<i onclick=\"location='x?a=1&amp;b=2#frag'\"></i>"
      "<i onclick=\"location.href=&quot;//cdn.example/y&quot;\"></i>"
      "<i onclick=\"location='#top'\"></i><i onclick=\"location='mailto:a@example.com'\"></i>"
      "<i onclick=\"location='javascript:void(0)'\"></i><i onclick=\"location=''\"></i>"
      "<i onclick=\"location='http://[bad'\"></i>");
  // '#top' resolves against the base, another page (as an <a href=#top> would).
  EXPECT_THAT(Describe(p), ElementsAre("script https://b.example/dir/x?a=1&b=2",
                                       "script https://cdn.example/y",
                                       "script https://b.example/dir/"));
  EXPECT_EQ(p.skipped.same_document, 0u);
  EXPECT_EQ(p.skipped.mailto, 1u);
  EXPECT_EQ(p.skipped.javascript, 1u);
  EXPECT_EQ(p.skipped.empty, 1u);
  EXPECT_EQ(p.skipped.invalid, 1u);
  const ExtractedPage same = ExtractWithParser("<i onclick=\"location='#top'\"></i>");
  EXPECT_THAT(Describe(same), IsEmpty());
  EXPECT_EQ(same.skipped.same_document, 1u);
}

TEST_P(ScriptLinks, JavascriptHrefs) {
  const ExtractedPage p = ExtractWithParser(
      "<a href=\"javascript:location.href='/j'\">j</a>"
      "<map><area href=\" JavaScript:window.open(%27/w%3Fa=1%27)\"></map>"
      "<a href=\"javascript:void(0)\">v</a><iframe src=\"javascript:location='/no'\"></iframe>");
  EXPECT_THAT(Describe(p), ElementsAre("script https://example.com/j",
                                       "script https://example.com/w?a=1"));
  EXPECT_EQ(p.skipped.javascript, 4u) << "the hrefs themselves";
}

TEST_P(ScriptLinks, NofollowFromTheLinkElementOrTheRobotsMeta) {
  const ExtractedPage p = ExtractWithParser(
      "<a rel=nofollow onclick=\"location='/n1'\">1</a>"
      "<map><area rel=nofollow href=\"javascript:location='/n2'\"></map>"
      "<a rel=nofollow onclick=\"location='/both'\">3</a><i onclick=\"location='/both'\"></i>"
      "<button rel=nofollow onclick=\"location='/button'\">rel means nothing here</button>");
  EXPECT_THAT(Describe(p), ElementsAre("script https://example.com/n1 nofollow",
                                       "script https://example.com/n2 nofollow",
                                       "script https://example.com/both",
                                       "script https://example.com/button"));
  const ExtractedPage robots = ExtractWithParser(
      "<button onclick=\"location='/b'\">b</button><meta name=robots content=nofollow>");
  EXPECT_THAT(Describe(robots), ElementsAre("script https://example.com/b nofollow"));
}

TEST_P(ScriptLinks, CountedAgainstTheLinkLimitOnceEach) {
  ExtractOptions options;
  options.max_links = 3;
  const ExtractedPage p = ExtractWithParser(
      "<i onclick=\"location='/1'\"></i><a href=/a>a</a><i onclick=\"location='/2'\"></i>"
      "<i onclick=\"location='/2'\"></i><a href=/b>b</a><i onclick=\"location='/3'\"></i>"
      "<i onclick=\"location='/3'\"></i>",
      options);
  EXPECT_THAT(Describe(p), ElementsAre("a https://example.com/a", "a https://example.com/b",
                                       "script https://example.com/1"));
  EXPECT_EQ(p.skipped.over_limit, 2u);
  // Past the cap before resolution too: distinct targets counted once each.
  options.max_links = 1;
  const ExtractedPage few = ExtractWithParser(
      "<i onclick=\"location='/1'\"></i><i onclick=\"location='/2'\"></i>"
      "<i onclick=\"location='/2'\"></i><i onclick=\"location='/3'\"></i>",
      options);
  EXPECT_THAT(Describe(few), ElementsAre("script https://example.com/1"));
  EXPECT_EQ(few.skipped.over_limit, 2u);
}

TEST_P(ScriptLinks, HandlerCodeIsReadUpToItsCap) {
  const std::string padding(kMaxScriptCodeBytes, ' ');
  const ExtractedPage p = ExtractWithParser("<i onclick=\"location='/near'" + padding +
                                            "\"></i><i onclick=\"" + padding +
                                            "location='/far'\"></i>");
  EXPECT_THAT(Describe(p), ElementsAre("script https://example.com/near"));
}

INSTANTIATE_TEST_SUITE_P(Parsers, ScriptLinks,
                         ::testing::Values(ExtractOptions::Parser::kTokenizer,
                                           ExtractOptions::Parser::kGumbo),
                         [](const ::testing::TestParamInfo<ExtractOptions::Parser>& p) {
                           return p.param == ExtractOptions::Parser::kGumbo ? "Gumbo" : "Tokenizer";
                         });

TEST(Bounds, HugeAttributeIsSkipped) {
  const std::string html = "<a href='/" + std::string(1 << 20, 'x') + "'>x</a><a href=/ok>ok</a>";
  const ExtractedPage p = Extract(html);
  EXPECT_THAT(Describe(p), ElementsAre("a https://example.com/ok"));
  EXPECT_EQ(p.skipped.too_long, 1u);
}

TEST(Bounds, ManyAttributesAreDropped) {
  std::string html = "<a href=/x";
  for (int i = 0; i < 50000; ++i) html += " a" + std::to_string(i);
  html += ">x</a>";
  const ExtractedPage p = Extract(html);
  EXPECT_THAT(Describe(p), ElementsAre("a https://example.com/x"));
  EXPECT_EQ(p.stats.attributes_dropped, 50001u - ExtractOptions().max_attributes_per_element);
}

TEST(Bounds, ManyAttributesInATagCutByTheInputLimit) {
  ExtractOptions options;
  options.max_input_bytes = 1 << 20;
  std::string html = "<a href=/x>x</a><div";
  while (html.size() < options.max_input_bytes + 100) html += " a" + std::to_string(html.size());
  const ExtractedPage p = Extract(html, options);
  EXPECT_THAT(Describe(p), ElementsAre("a https://example.com/x"));
  EXPECT_TRUE(p.stats.input_truncated);
  EXPECT_GT(p.stats.attributes_dropped, 100000u);
}

TEST(Bounds, InputIsCut) {
  ExtractOptions options;
  options.max_input_bytes = 20;
  const ExtractedPage p = Extract("<a href=/1>1</a><a href=/2>2</a>", options);
  EXPECT_THAT(Describe(p), ElementsAre("a https://example.com/1"));
  EXPECT_TRUE(p.stats.input_truncated);
}

TEST(Bounds, ParserMemoryBudget) {
  // Re-opened formatting elements in every block: quadratic in the input.
  std::string html = "<div>";
  for (int i = 0; i < 250; ++i) html += "<b id=" + std::to_string(i) + ">";
  html += "</div>" + Repeat("<div>x</div>", 20000);
  absl::StatusOr<ExtractedPage> p =
      ExtractPage(html, MustParseUrl(kPage), "text/html", ExtractOptions());
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), absl::StatusCode::kResourceExhausted);
}

TEST(Bounds, OrdinaryPageStaysWellInsideTheBudget) {
  const std::string html = ReadDataFile("links.html");
  const ExtractedPage p = Extract(Repeat(html, 200));
  const ExtractOptions defaults;
  EXPECT_LT(p.stats.parse_memory_bytes,
            defaults.parse_memory_per_input_byte * html.size() * 200 / 2);
}

TEST(Bounds, EmptyAndBinaryInput) {
  EXPECT_THAT(Extract("").links, IsEmpty());
  const std::string binary("\0\x01\x02\xFF\xFE<\0a\0", 10);
  const ExtractedPage p = Extract(binary, ExtractOptions(), "application/octet-stream");
  EXPECT_THAT(p.links, IsEmpty());
}

// Found by fuzz_html: Gumbo 0.10 treats an SVG "select" as an HTML select and aborts on an
// assertion (node_qualified_tag_is) at the following tables. The nesting limiter drops the
// foreign select's start tag, so the page parses and its links survive.
TEST(Html_13_2_6_5_ForeignContent, SvgSelectBeforeTablesDoesNotAbort) {
  const ExtractedPage page = Extract(
      "<table><td><svg><select><foreignObject><table><table><a href=/x>x</a>");
  EXPECT_THAT(Describe(page), ElementsAre("a https://example.com/x"));
}

}  // namespace
}  // namespace crawler::html
