// The tokenizer extractor (lib/html/internal/token_extractor.h) against the Gumbo path: on
// each input, either both give the same page, or the tokenizer hands the page to Gumbo (and
// ExtractPage then returns Gumbo's result). And character reference decoding (char_refs.h).
#include "lib/html/internal/token_extractor.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/html/charset.h"
#include "lib/html/extract_page.h"
#include "lib/html/internal/char_refs.h"

namespace crawler::html {
namespace {

constexpr std::string_view kPage = "https://example.com/dir/page.html";

url::Url PageUrl() { return *url::Url::Parse(kPage); }

std::string Describe(const ExtractedPage& page) {
  std::string out;
  for (const Link& link : page.links) {
    out += std::string(LinkKindName(link.kind)) + " " + link.url.href() +
           (link.nofollow ? " nofollow" : "") + " [" + link.anchor_text + "]\n";
  }
  out += "text [" + page.text + "]\ntitle [" + page.meta.title + "]\nlang [" +
         page.meta.language + "]\nbase [" + page.meta.base_url + "]\nrobots " +
         (page.meta.noindex ? "noindex " : "") + (page.meta.nofollow ? "nofollow " : "") +
         "\nskipped " + std::to_string(page.skipped.total());
  return out;
}

ExtractedPage WithGumbo(std::string_view html) {
  ExtractOptions options;
  options.parser = ExtractOptions::Parser::kGumbo;
  absl::StatusOr<ExtractedPage> page = ExtractPage(html, PageUrl(), "text/html", options);
  EXPECT_TRUE(page.ok()) << page.status();
  return page.ok() ? *std::move(page) : ExtractedPage();
}

// The tokenizer's page, or nullopt if it hands the page to Gumbo. `html` is UTF-8.
std::optional<ExtractedPage> WithTokenizer(std::string_view html) {
  ExtractedPage page;
  if (!internal::ExtractWithTokenizer(html, PageUrl(), ExtractOptions(), page)) {
    return std::nullopt;
  }
  return page;
}

// Inputs the tokenizer must handle, and handle as Gumbo does.
class SameAsGumbo : public ::testing::TestWithParam<std::string> {};

TEST_P(SameAsGumbo, LinksTextAndMetadata) {
  const std::optional<ExtractedPage> tokenized = WithTokenizer(GetParam());
  ASSERT_TRUE(tokenized.has_value()) << "handed to Gumbo: " << GetParam();
  EXPECT_EQ(Describe(*tokenized), Describe(WithGumbo(GetParam()))) << GetParam();
}

INSTANTIATE_TEST_SUITE_P(
    Html, SameAsGumbo,
    ::testing::Values(
        // The base URL and robots metadata apply to the links before them.
        "<a href=x>x</a><base href=https://b.example/><meta name=robots content=nofollow>",
        "<title> T  &amp; t </title><html lang=de><p>x<html lang=fr>",
        "<meta http-equiv=content-language content='pt, en'><p>x",
        // Formatting elements re-opened after a block: each clone of an <a> is a link.
        "<p><a href=/x>one</p>two<p>three",
        "<a href=/1>one<a href=/2>two</a>",
        "<a href=/1><b>bold<i>it</a>after",
        "<p>a<b>b</p>c</b>d",
        // Implied end tags, lists, tables (whitespace in tables is not foster-parented).
        "<ul><li>one<li>two<li><a href=/3>three</a></ul><dl><dt>t<dd>d</dl>",
        "<table> <tr> <td>a<td><a href=/t>b</a> </tr>\n<tr><th>c</table>tail",
        "<table><caption>cap</caption><colgroup><col></colgroup><tbody><tr><td>x</table>",
        "<form><input name=q><button>go</button></form><select><option>a<option>b</select>",
        // Head content, noscript (scripting disabled), hidden content.
        "<head><noscript><link rel=canonical href=/c></noscript><style>a{}</style></head>x",
        "<head><noscript><a href=/n>n</a></noscript></head>",
        "<div hidden><a href=/h>hidden</a><img src=/i alt=alt></div><datalist>d</datalist>v",
        "<script>document.write('<a href=/s>')</script><textarea><a href=/t></textarea>x",
        "<template><a href=/t>t</a></template><iframe src=/f>fallback</iframe>",
        // Raw text that is visible, references, special characters.
        "<xmp><a href=/x>&amp;</xmp><p>&copy; &notin; &#x41;&#128;&#0;&#xD800; a&b",
        "<a href='/q?a=1&amp;b=2&copy=3&lt'>q</a><img src='/i&#x20;j' alt='&quot;'>",
        std::string("<p>a\0b\r\nc\x01" "d\xC2\x85" "e\xEF\xBF\xBE", 18),
        "<plaintext><a href=/p>p</a>",
        // Foreign content with no HTML inside.
        "<svg><title>icon</title><a href=/svg><text>t</text></a><script>s</script></svg>x",
        "<svg><![CDATA[cdata <b>]]></svg><math><mi>x</mi></math>",
        // Frames.
        "<frameset><frame src=/a><frameset><frame src=/b></frameset></frameset><frame src=/c>",
        // Stray end tags.
        "x</p>y</br>z</div></a></table>",
        // Comments and bogus markup.
        "<!-- <a href=/c> --><!--><a href=/d>d</a><? x ><!x><a href=/e>e</a></>< a",
        // Found by fuzz_html_diff: "</" at the end is text; U+0000 alone re-opens nothing;
        // <table> closes a p in no-quirks mode; Gumbo drops a U+0000 starting an attribute
        // name; U+0000 is U+FFFD in foreign content and dropped in an ignored <title>.
        "a</",
        std::string("<p><a href=/x>x<p>\0<p>y", 23),
        "<!DOCTYPE html><p><a href=/x>x<table><td>c</table>after",
        "<p><a href=/x>x<table><td>c</table>after",
        std::string("<meta http-equiv=refresh\0content='0;url=/a' content='0;url=/b'>", 63),
        std::string("<math>\0<mi>\0</mi></math><select><title>a\0b</title></select>", 59),
        // Script links: after the other links, each target once, whatever the tree builder
        // clones or where the element is (head, table, select, unknown, void, raw text).
        "<button onclick=\"location.href='/b'\">b</button><a href=/a onclick=\"location='/b'\">"
        "a</a><a href=\"javascript:window.open('/j')\">j</a><img src=/i onclick=\"location='/i'\">",
        "<p><b onclick=\"location='/b'\">x<p>y<p><a href=/a rel=nofollow "
        "onclick=\"location='/s'\">a<p>z<i onclick=\"location='/s'\">",
        "<head><meta onclick=\"location='/m'\"><title onclick=\"location='/t'\">t</title>"
        "<script onclick=\"location='/s'\"></script></head><x-card onclick=\"location='/x'\">",
        "<table><tr onclick=\"location='/tr'\"><td onclick=\"location='/td'\">c</table>"
        "<select onclick=\"location='/sel'\"><option onclick=\"location='/opt'\">o</select>",
        // Found by fuzz_html_diff: a <head> tag makes the head element (with its attributes)
        // or is ignored, which the model does not follow; neither path reads it.
        "</svg><head onmousedown=\"location='/x0'\" ONCLICK='location.href=\"/h2\"'></option>",
        "<p>x<head onclick=\"location='/h'\">y",
        "<html onclick=\"location='/h'\"><body onclick=\"location='/b'\"><p>x"
        "<body onclick=\"location='/b2'\"><template onclick=\"location='/t'\"></template>",
        "<meta name=robots content=nofollow><map><area href=/a onkeydown=\"location='/k'\">"
        "<area rel=nofollow href=\"javascript:location='/n'\"></map>"));

// Inputs whose tree does not follow token order: the tokenizer gives up and ExtractPage
// returns Gumbo's result.
class HandedToGumbo : public ::testing::TestWithParam<std::string> {};

TEST_P(HandedToGumbo, ExtractPageReturnsGumbosPage) {
  EXPECT_FALSE(WithTokenizer(GetParam()).has_value()) << GetParam();
  absl::StatusOr<ExtractedPage> page = ExtractPage(GetParam(), PageUrl(), "text/html");
  ASSERT_TRUE(page.ok());
  EXPECT_EQ(Describe(*page), Describe(WithGumbo(GetParam())));
}

INSTANTIATE_TEST_SUITE_P(
    Html, HandedToGumbo,
    ::testing::Values(
        // Foster parenting: content misplaced in a table goes before it.
        "<table><tr><td>cell</td></tr>stray<a href=/f>f</a></table>",
        // The adoption agency moves the block out of the link and clones the link into it.
        "<a href=/x>one<div>two</a>three</div>",
        // Content after a column group closes it and is foster-parented (found by
        // fuzz_html_diff).
        "<table><caption><a href=/1>1</a></caption><col><a href=/2>2</a></table>",
        "<table onclick=\"location='/t'\"><col><b onclick=\"location='/b'\">x</b></table>",
        // </form> with an element open inside the form.
        "<form><div>a</form>b</div>",
        // <body hidden> after text hides that text too.
        "text<body hidden>more",
        // HTML inside SVG.
        "<svg><foreignObject><a href=/fo>f</a></foreignObject></svg>",
        // </p> and </br> in foreign content break out to the HTML rules (found by
        // fuzz_html_diff: Gumbo 0.10 and the model disagreed on the text's line breaks).
        "<p>a<svg><g><p\x0bt>y</p>b</g></svg>c",
        "<svg><g>x</br>y</g></svg>"));

// A repeated attribute is dropped and the attributes after it kept (HTML Standard, "attribute
// name state": a duplicate is a parse error and removed), as Chromium does: both links come
// out. Gumbo 0.10 also drops the href after a repeated valueless attribute, so this is one
// place where the tokenizer, not Gumbo, gives the browser's page (found by fuzz_html_diff).
TEST(TokenExtractor, ARepeatedAttributeDropsOnlyItself) {
  const std::optional<ExtractedPage> page =
      WithTokenizer("<a x x href=/h>h</a><a y=1 y=2 href=/k>k</a>");
  ASSERT_TRUE(page.has_value());
  ASSERT_EQ(page->links.size(), 2u);
  EXPECT_EQ(page->links[0].url.href(), "https://example.com/h");
  EXPECT_EQ(page->links[1].url.href(), "https://example.com/k");
}

// With a nesting limit under 3 even a <frameset> alone is too deep: its tag is dropped, and the
// tokenizer stays in the body with Gumbo (found by fuzz_html_diff).
TEST(TokenExtractor, FramesetDroppedByATinyNestingLimit) {
  for (const std::string html :
       {"<frameset><a href=/x>x</a>", "<frameset><area href=/a onclick=\"location='/s'\">"}) {
    for (const size_t depth : {0, 2}) {
      ExtractOptions options;
      options.max_nesting_depth = depth;
      ExtractedPage tokenized;
      ASSERT_TRUE(internal::ExtractWithTokenizer(html, PageUrl(), options, tokenized)) << html;
      options.parser = ExtractOptions::Parser::kGumbo;
      absl::StatusOr<ExtractedPage> gumbo = ExtractPage(html, PageUrl(), "text/html", options);
      ASSERT_TRUE(gumbo.ok());
      EXPECT_EQ(Describe(tokenized), Describe(*gumbo)) << html << " depth " << depth;
      EXPECT_FALSE(tokenized.links.empty()) << html;
    }
  }
}

// The memory estimate sends pathological pages to Gumbo, which fails them.
TEST(TokenExtractor, PathologicalTreeIsGumbosToRefuse) {
  std::string html = "<div>";
  for (int i = 0; i < 250; ++i) html += "<b id=" + std::to_string(i) + ">";
  html += "</div>";
  for (int i = 0; i < 20000; ++i) html += "<div>x</div>";
  EXPECT_FALSE(WithTokenizer(html).has_value());
}

// ---- 13.2.5.72 Character reference state, and the input stream's replacements. ----

struct DecodeCase {
  std::string raw;
  internal::RefContext context;
  std::string expected;
};

void PrintTo(const DecodeCase& c, std::ostream* os) { *os << c.raw; }

class CharRefs : public ::testing::TestWithParam<DecodeCase> {};

TEST_P(CharRefs, Decoded) {
  std::string out;
  internal::AppendDecoded(GetParam().raw, GetParam().context, out);
  EXPECT_EQ(out, GetParam().expected) << GetParam().raw;
  if (!internal::NeedsDecoding(GetParam().raw)) {
    EXPECT_EQ(out, GetParam().raw);
  }
}

// NeedsDecoding looks at eight bytes at a time: each byte value, at every position of inputs
// longer than a word, is found exactly as when it is alone (where the byte loop decides).
TEST(CharRefs, NeedsDecodingFindsEachSpecialByteAtEveryPosition) {
  EXPECT_TRUE(internal::NeedsDecoding("&"));
  EXPECT_TRUE(internal::NeedsDecoding("\r"));
  EXPECT_TRUE(internal::NeedsDecoding(std::string(1, '\0')));
  EXPECT_TRUE(internal::NeedsDecoding("\xC2"));
  EXPECT_FALSE(internal::NeedsDecoding("\n"));
  EXPECT_FALSE(internal::NeedsDecoding("\xC3"));
  EXPECT_FALSE(internal::NeedsDecoding("plain text, no special byte at all"));
  for (int b = 0; b < 256; ++b) {
    const std::string alone(1, static_cast<char>(b));
    for (size_t length : {8, 9, 16, 23}) {
      for (size_t pos = 0; pos < length; ++pos) {
        std::string padded(length, 'a');
        padded[pos] = static_cast<char>(b);
        EXPECT_EQ(internal::NeedsDecoding(padded), internal::NeedsDecoding(alone))
            << "byte " << b << " at " << pos << " of " << length;
      }
    }
  }
}

using internal::RefContext;
INSTANTIATE_TEST_SUITE_P(
    Html, CharRefs,
    ::testing::Values(
        DecodeCase{"plain text", RefContext::kText, "plain text"},
        DecodeCase{"&amp;&lt;&gt;&quot;&nbsp;", RefContext::kText, "&<>\"\xC2\xA0"},
        DecodeCase{"&amp &copy x", RefContext::kText, "& \xC2\xA9 x"},  // legacy, no ';'
        DecodeCase{"&notit; &notin;", RefContext::kText, "\xC2\xACit; \xE2\x88\x89"},
        DecodeCase{"&unknown; &", RefContext::kText, "&unknown; &"},
        DecodeCase{"&#65;&#x42;&#X43&#x1F600;", RefContext::kText, "ABC\xF0\x9F\x98\x80"},
        DecodeCase{"&#0;&#xD800;&#x110000;&#128;&#x81;", RefContext::kText,
                   "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xE2\x82\xAC\xC2\x81"},
        DecodeCase{"&#;&#x;", RefContext::kText, "&#;&#x;"},
        // 13.2.5.73: in attributes, a legacy name followed by '=' or alphanumeric stays.
        DecodeCase{"?a=1&copy=2&copyx&copy;", RefContext::kAttribute, "?a=1&copy=2&copyx\xC2\xA9"},
        DecodeCase{"&copyx", RefContext::kText, "\xC2\xA9x"},
        DecodeCase{"&amp;", RefContext::kRaw, "&amp;"},
        // U+0000: dropped in text, U+FFFD elsewhere; CR and CR LF are LF; controls and
        // noncharacters are U+FFFD.
        DecodeCase{std::string("a\0b", 3), RefContext::kText, "ab"},
        DecodeCase{std::string("a\0b", 3), RefContext::kAttribute, "a\xEF\xBF\xBD" "b"},
        DecodeCase{"a\r\nb\rc", RefContext::kText, "a\nb\nc"},
        DecodeCase{"\x01\x7F\xC2\x80\xC2\xA0\xEF\xB7\x90\xEF\xBF\xBF\xF4\x8F\xBF\xBE",
                   RefContext::kRaw,
                   "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xC2\xA0\xEF\xBF\xBD\xEF\xBF\xBD"
                   "\xEF\xBF\xBD"}));

}  // namespace
}  // namespace crawler::html
