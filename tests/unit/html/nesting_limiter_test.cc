#include "lib/html/nesting_limiter.h"

#include <gumbo.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lib/html/gumbo_tree.h"

namespace crawler::html {
namespace {

// Depth of the deepest element Gumbo builds for `html` (<html> = 1), without recursion.
size_t GumboDepth(const std::string& html) {
  absl::StatusOr<GumboTree> tree = GumboTree::Parse(html, size_t{1} << 31);
  EXPECT_TRUE(tree.ok()) << tree.status();
  if (!tree.ok()) return 0;
  std::vector<std::pair<const GumboNode*, size_t>> stack = {{tree->document(), 0}};
  size_t deepest = 0;
  while (!stack.empty()) {
    const auto [node, depth] = stack.back();
    stack.pop_back();
    deepest = std::max(deepest, depth);
    const GumboVector* children = nullptr;
    if (node->type == GUMBO_NODE_DOCUMENT) children = &node->v.document.children;
    if (node->type == GUMBO_NODE_ELEMENT || node->type == GUMBO_NODE_TEMPLATE) {
      children = &node->v.element.children;
    }
    if (children == nullptr) continue;
    for (unsigned i = 0; i < children->length; ++i) {
      const auto* child = static_cast<const GumboNode*>(children->data[i]);
      if (child->type == GUMBO_NODE_ELEMENT || child->type == GUMBO_NODE_TEMPLATE) {
        stack.emplace_back(child, depth + 1);
      }
    }
  }
  return deepest;
}

std::string Repeat(std::string_view s, size_t n) {
  std::string out;
  out.reserve(s.size() * n);
  for (size_t i = 0; i < n; ++i) out.append(s);
  return out;
}

std::string Numbered(std::string_view before, std::string_view after, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) {
    out.append(before);
    out.append(std::to_string(i));
    out.append(after);
  }
  return out;
}

std::string TestName(std::string_view name) {
  std::string out;
  for (char c : name) out.push_back(std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
  return out;
}

struct MarkupCase {
  std::string name;
  std::string html;
};

void PrintTo(const MarkupCase& c, std::ostream* os) { *os << c.name; }

std::string CaseName(const ::testing::TestParamInfo<MarkupCase>& info) {
  return TestName(info.param.name);
}

// ---- Ordinary markup is never touched. ----

class UnchangedMarkup : public ::testing::TestWithParam<MarkupCase> {};

TEST_P(UnchangedMarkup, IsLeftAlone) {
  std::string html = GetParam().html;
  const NestingLimitReport report = LimitNesting(html, NestingLimits{});
  EXPECT_EQ(report.dropped_start_tags, 0u);
  EXPECT_EQ(report.dropped_attributes, 0u);
  EXPECT_TRUE(html == GetParam().html);
  // The model stays close to what Gumbo builds (it may err on the deep side).
  EXPECT_LE(GumboDepth(html), report.max_modelled_depth + 2);
}

INSTANTIATE_TEST_SUITE_P(
    Snippets, UnchangedMarkup,
    ::testing::Values(
        // Implied end tags: p, li, dd/dt, option, table parts, headings.
        MarkupCase{"p", Repeat("<p>para <b>bold</b> <a href=x>link</a>", 2000)},
        MarkupCase{"li", "<ul>" + Repeat("<li>item <i>x</i>", 3000) + "</ul>"},
        MarkupCase{"dt dd", "<dl>" + Repeat("<dt>term<dd>def", 2000) + "</dl>"},
        MarkupCase{"option", "<select>" + Repeat("<option>o<optgroup label=g><option>p", 1000) +
                                 "</select>"},
        MarkupCase{"table cells", "<table>" + Repeat("<tr><td>a<td>b<th>c", 2000) + "</table>"},
        MarkupCase{"table parts",
                   Repeat("<table><caption>c<colgroup><col><tbody><tr><td>x</table>", 1000)},
        MarkupCase{"headings", Repeat("<h1>a<h2>b<h3>c", 1000)},
        // Misnested formatting: re-opened after every paragraph, adopted, Noah's Ark.
        MarkupCase{"formatting across paragraphs", "<p><b>" + Repeat("x</p><p>y", 3000)},
        MarkupCase{"misnested b i", Repeat("<b><i>x</b></i>", 3000)},
        MarkupCase{"a closes a", Repeat("<a href=1>a<a href=2>b", 3000)},
        MarkupCase{"adoption agency", Repeat("<b><div>x</b>y</div>", 1000)},
        MarkupCase{"formatting mix", Repeat("<p><b><i><u><s><em>x", 3000)},
        // Foreign content.
        MarkupCase{"svg", "<svg>" + Repeat("<path d='M0 0'/><g><rect/></g>", 3000) + "</svg>"},
        MarkupCase{"foreignObject",
                   Repeat("<svg><foreignObject><div>x</div></foreignObject></svg>", 1000)},
        MarkupCase{"math", Repeat("<math><mi>x</mi><mo>+</mo></math>", 1000)},
        MarkupCase{"breakout", Repeat("<svg><circle><p>breakout</p>", 1000)},
        // Forms, buttons.
        MarkupCase{"nested form", Repeat("<form><div><form></div>", 1000)},
        MarkupCase{"button closes button", Repeat("<div><button>a<button>b", 1000)},
        // Unknown (custom) elements closed properly.
        MarkupCase{"custom elements", Repeat("<my-widget><x-inner>t</x-inner></my-widget>", 2000)}),
    CaseName);

TEST(UnchangedMarkup, DataFiles) {
  const std::filesystem::path dir = std::filesystem::path(CRAWLER_TEST_DATA) / "html";
  size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".html") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    std::string html = buffer.str();
    const NestingLimitReport report = LimitNesting(html, NestingLimits{});
    EXPECT_EQ(report.dropped_start_tags, 0u) << entry.path();
    EXPECT_EQ(report.dropped_attributes, 0u) << entry.path();
    ++files;
  }
  EXPECT_GT(files, 3u);
}

// ---- What the model skips is defanged, never dropped. ----

struct DefangCase {
  std::string name;
  std::string html;
  std::string expected;
};

void PrintTo(const DefangCase& c, std::ostream* os) { *os << c.name; }

class Defanging : public ::testing::TestWithParam<DefangCase> {};

TEST_P(Defanging, NeutralisesMarkupInSkippedText) {
  std::string html = Repeat(GetParam().html, 1000);
  const NestingLimitReport report = LimitNesting(html, NestingLimits{});
  EXPECT_EQ(report.dropped_start_tags, 0u);
  EXPECT_GT(report.defanged, 0u);
  EXPECT_TRUE(html == Repeat(GetParam().expected, 1000)) << html.substr(0, 200);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, Defanging,
    ::testing::Values(
        DefangCase{"script", "<script>var s = '<div>' + (a < b);</script>",
                   "<script>var s = ' div>' + (a < b);</script>"},
        DefangCase{"script comment escape", "<script><!--<script></script>",
                   "<script> !-- script></script>"},
        DefangCase{"style", "<style>p{}</p></style>", "<style>p{} /p></style>"},
        // RCDATA decodes references, so its text stays the same.
        DefangCase{"textarea", "<textarea><div></textarea>", "<textarea>&lt;div></textarea>"},
        DefangCase{"title", "<title>a <b> c</title>", "<title>a &lt;b> c</title>"},
        DefangCase{"comment", "<!-- <div><div> -->", "<!--  div> div> -->"},
        // Template contents are inert: the limiter treats them as raw text.
        DefangCase{"template", "<template><div><a href=x></template>",
                   "<template> div> a href=x></template>"},
        DefangCase{"cdata in svg", "<svg><![CDATA[<div>]]></svg>", "<svg><![CDATA[ div>]]></svg>"},
        // Raw text elements the parser will not treat as raw text are defanged all the same.
        DefangCase{"style in svg", "<svg><style><g></style></svg>", "<svg><style> g></style></svg>"},
        DefangCase{"textarea in select", "<select><style><b></style></select>",
                   "<select><style> b></style></select>"}),
    [](const ::testing::TestParamInfo<DefangCase>& param) { return TestName(param.param.name); });

TEST(Defanging, PlaintextDefangsTheRest) {
  std::string html = "<plaintext><div><a href=x>";
  LimitNesting(html, NestingLimits{});
  EXPECT_EQ(html, "<plaintext> div> a href=x>");
}

TEST(Defanging, AnnotationXmlEncodingDecidesIntegrationPoint) {
  // With an HTML encoding, annotation-xml holds HTML: <textarea> is raw text there.
  std::string html = "<math><annotation-xml encoding='text/html'><textarea><b></textarea>";
  LimitNesting(html, NestingLimits{});
  EXPECT_EQ(html, "<math><annotation-xml encoding='text/html'><textarea>&lt;b></textarea>");
  // Without it the textarea is a MathML element whose content is markup: nothing to defang.
  html = "<math><annotation-xml><textarea><b>x</b></textarea>";
  const NestingLimitReport report = LimitNesting(html, NestingLimits{});
  EXPECT_EQ(report.defanged, 2u);  // defanged all the same: it would be raw text in HTML
  // An encoding the model would have to decode is not guessed at: the tag goes.
  html = "<math><annotation-xml encoding='text&#x2f;html'>x";
  EXPECT_EQ(LimitNesting(html, NestingLimits{}).dropped_start_tags, 1u);
}

// Gumbo 0.10 fails an assertion on this (gumbo_tree_test.cc); without the MathML <select> it
// parses.
TEST(ForeignContent, HtmlStructureNamesAreDroppedThere) {
  std::string html = "<table><math><select><mtext><select/><table>";
  const NestingLimitReport report = LimitNesting(html, NestingLimits{});
  EXPECT_EQ(report.dropped_start_tags, 1u);
  EXPECT_EQ(html, "<table><math><mtext><select/><table>");
  EXPECT_TRUE(GumboTree::Parse(html, 1 << 20).ok());
}

TEST(Defanging, FramesetOnlyWhereItStartsAFramesetDocument) {
  std::string html = "<html><head><title>t</title></head><frameset><frame src=a></frameset>";
  EXPECT_EQ(LimitNesting(html, NestingLimits{}).dropped_start_tags, 0u);
  html = "<p>body first<frameset><frame src=a></frameset>";
  EXPECT_EQ(LimitNesting(html, NestingLimits{}).dropped_start_tags, 1u);
  EXPECT_EQ(html, "<p>body first<frame src=a></frameset>");
}

// ---- Hostile markup: what Gumbo builds stays near max_depth. ----

class HostileNesting : public ::testing::TestWithParam<MarkupCase> {};

TEST_P(HostileNesting, DepthIsBounded) {
  constexpr size_t kMaxDepth = 64;
  // Reconstructed formatting elements may come on top of max_depth, never more than that again.
  constexpr size_t kBound = 2 * kMaxDepth + 4;
  std::string html = GetParam().html;
  ASSERT_GT(GumboDepth(html), kBound) << "not a hostile input";
  const NestingLimitReport report = LimitNesting(html, NestingLimits{kMaxDepth, 64});
  EXPECT_GT(report.dropped_start_tags, 0u);
  EXPECT_LE(GumboDepth(html), kBound);
}

constexpr size_t kN = 3000;

INSTANTIATE_TEST_SUITE_P(
    Patterns, HostileNesting,
    ::testing::Values(
        MarkupCase{"div", Repeat("<div>", kN)},
        MarkupCase{"span", Repeat("<span>x", kN)},
        MarkupCase{"div with unmatched end tags", Repeat("<div></span></p></b>", kN)},
        MarkupCase{"b", Repeat("<b>", kN)},
        MarkupCase{"distinct b", Numbered("<b id=", ">", kN)},
        MarkupCase{"table cells", Repeat("<table><tr><td>", kN)},
        MarkupCase{"lists", Repeat("<ul><li>", kN)},
        MarkupCase{"definition lists", Repeat("<dl><dd>", kN)},
        MarkupCase{"svg", Repeat("<svg>", kN)},
        MarkupCase{"svg groups", "<svg>" + Repeat("<g>", kN)},
        MarkupCase{"math", Repeat("<math><mi>", kN)},
        MarkupCase{"foreignObject", Repeat("<svg><foreignObject>", kN)},
        MarkupCase{"object", Repeat("<object>", kN)},
        MarkupCase{"select in div", Repeat("<div><select><option>", kN)},
        MarkupCase{"form in div", Repeat("<div><form>", kN)},
        MarkupCase{"custom elements", Repeat("<x-a><x-b>", kN)},
        MarkupCase{"adoption agency",
                   Repeat(Repeat("<b><div>", 500) + Repeat("</b>", 500), 8)},
        MarkupCase{"reopened formatting elements",
                   "<div>" + Numbered("<b id=", ">", 300) + "</div>" + Repeat("<div>x", kN)},
        MarkupCase{"nobr", Repeat("<nobr><div>", kN)},
        // Links are kept past the limits (each <a> closes the one before it): still bounded.
        MarkupCase{"links in divs", Repeat("<div class=item><a href=/x>", kN)},
        MarkupCase{"links in distinct fonts", Numbered("<font color=", "><a href=/x>x", kN)},
        MarkupCase{"links in objects", Repeat("<object><a href=/x>", kN)},
        MarkupCase{"links in cells", Repeat("<table><tr><td><a href=/x>", kN)},
        MarkupCase{"links in svg", "<svg>" + Repeat("<a href=/x>", kN)},
        MarkupCase{"links reopening fonts",
                   "<div>" + Numbered("<font id=", ">", 300) + "</div>" +
                       Repeat("<div><a href=/x>x", kN)},
        // Patterns that once got past the model (each fixed): Gumbo nests, the model did not.
        MarkupCase{"svg font without attributes stays foreign",
                   "<svg><font>" + Repeat("<area>", kN)},
        MarkupCase{"svg image is not img", "<svg>" + Repeat("<image>", kN)},
        MarkupCase{"svg mtext is no integration point", "<svg><mtext>" + Repeat("<image>", kN)},
        MarkupCase{"caption in select outside a table",
                   Repeat("<select><caption><select><ruby>", kN)},
        MarkupCase{"frameset", Repeat("<frameset>", kN)},
        MarkupCase{"frameset ignoring textarea",
                   "<frameset>" + Repeat("<frameset><textarea><frameset></textarea>", kN)},
        MarkupCase{"annotation-xml",
                   Repeat("<math><annotation-xml><textarea><div><div></textarea>", kN)}),
    CaseName);

TEST(HostileNesting, DroppedTagsLeaveTheirContent) {
  std::string html = Repeat("<div>", 100) + "deep text";
  const NestingLimitReport report = LimitNesting(html, NestingLimits{10, 64});
  EXPECT_EQ(report.dropped_start_tags, 100u - 8);  // html and body are the other two
  EXPECT_EQ(html, Repeat("<div>", 8) + "deep text");
  EXPECT_EQ(report.max_modelled_depth, 10u);
}

TEST(HostileNesting, ClosedElementsMakeRoomAgain) {
  std::string html = Repeat("<div>", 20) + Repeat("</div>", 20) + "<div><a href=x>y</a></div>";
  const NestingLimitReport report = LimitNesting(html, NestingLimits{10, 64});
  EXPECT_EQ(report.dropped_start_tags, 12u);
  EXPECT_NE(html.find("<a href=x>y</a>"), std::string::npos);
}

// ---- Attributes per tag. ----

TEST(AttributeLimit, DropsTheExcess) {
  std::string html = "<a href=/x " + Numbered("data-a", "=1 ", 100) + "title='t'>link</a>";
  const NestingLimitReport report = LimitNesting(html, NestingLimits{256, 10});
  EXPECT_EQ(report.dropped_attributes, 102u - 10);
  EXPECT_EQ(html, "<a href=/x " + Numbered("data-a", "=1 ", 9) + ">link</a>");
}

TEST(AttributeLimit, SelfClosingSlashSurvives) {
  std::string html = "<svg><path " + Numbered("a", " ", 20) + "/><g>x</g></svg>";
  LimitNesting(html, NestingLimits{256, 2});
  EXPECT_EQ(html, "<svg><path a0 a1 /><g>x</g></svg>");
}

TEST(AttributeLimit, EndTagsToo) {
  std::string html = "<p>x</p " + Numbered("a", " ", 5) + ">";
  const NestingLimitReport report = LimitNesting(html, NestingLimits{256, 2});
  EXPECT_EQ(report.dropped_attributes, 3u);
  EXPECT_EQ(html, "<p>x</p a0 a1 >");
}

TEST(AttributeLimit, QuotedValuesMayHoldAnything) {
  std::string html = "<a title='> <b c d e' href=/x>y</a>";
  const NestingLimitReport report = LimitNesting(html, NestingLimits{256, 2});
  EXPECT_EQ(report.dropped_attributes, 0u);
  EXPECT_EQ(html, "<a title='> <b c d e' href=/x>y</a>");
}

// The tokenizer discards a tag cut by the end of the input, but reads all its attributes first.
TEST(AttributeLimit, TagCutByEndOfInputLosesTheExcessToo) {
  for (const char* tail : {"", "=", "='unterminated", "=unquoted"}) {
    std::string html = std::string("<div a b c d") + tail;
    const NestingLimitReport report = LimitNesting(html, NestingLimits{256, 1});
    EXPECT_EQ(html, "<div a ") << tail;
    EXPECT_EQ(report.dropped_attributes, 3u) << tail;
  }
}

}  // namespace
}  // namespace crawler::html
