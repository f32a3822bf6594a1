#include "lib/html/gumbo_tree.h"

#include <gumbo.h>

#include <string>

#include "gtest/gtest.h"

namespace crawler::html {
namespace {

std::string Repeat(std::string_view s, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) out.append(s);
  return out;
}

TEST(GumboTree, ParsesADocument) {
  const std::string html = "<title>T</title><p>Hello";
  absl::StatusOr<GumboTree> tree = GumboTree::Parse(html, 1 << 20);
  ASSERT_TRUE(tree.ok()) << tree.status();
  const GumboNode* document = tree->document();
  ASSERT_EQ(document->type, GUMBO_NODE_DOCUMENT);
  ASSERT_EQ(document->v.document.children.length, 1u);
  const auto* root = static_cast<const GumboNode*>(document->v.document.children.data[0]);
  EXPECT_EQ(root->v.element.tag, GUMBO_TAG_HTML);
  EXPECT_GT(tree->peak_memory_bytes(), 0u);
  EXPECT_LT(tree->peak_memory_bytes(), 1u << 20);
}

TEST(GumboTree, SurvivesAMove) {
  const std::string html = "<p>x";
  absl::StatusOr<GumboTree> tree = GumboTree::Parse(html, 1 << 20);
  ASSERT_TRUE(tree.ok());
  GumboTree moved = *std::move(tree);
  EXPECT_EQ(moved.document()->type, GUMBO_NODE_DOCUMENT);
  GumboTree assigned = std::move(moved);
  EXPECT_EQ(assigned.document()->type, GUMBO_NODE_DOCUMENT);
}

TEST(GumboTree, BudgetExceededIsResourceExhausted) {
  const std::string html = Repeat("<p>paragraph", 10000);
  absl::StatusOr<GumboTree> tree = GumboTree::Parse(html, 64 << 10);
  ASSERT_FALSE(tree.ok());
  EXPECT_EQ(tree.status().code(), absl::StatusCode::kResourceExhausted);
  // The same input parses with room to spare.
  EXPECT_TRUE(GumboTree::Parse(html, 64 << 20).ok());
}

// The HTML tree builder re-opens the active formatting elements in every new block: 45 KB of
// input makes 4 million elements (1.5 GB with Gumbo). The budget stops it early.
TEST(GumboTree, FormattingElementBombIsStopped) {
  std::string html = "<div>";
  for (int i = 0; i < 2000; ++i) html += "<b id=" + std::to_string(i) + ">";
  html += "</div>" + Repeat("<div>x</div>", 2000);
  absl::StatusOr<GumboTree> tree = GumboTree::Parse(html, 32 << 20);
  ASSERT_FALSE(tree.ok());
  EXPECT_EQ(tree.status().code(), absl::StatusCode::kResourceExhausted);
}

// Gumbo 0.10 fails an assertion (and Debian builds it with assertions on) on this input: a
// MathML <select> confuses its insertion mode reset. The parse fails; the process lives on.
TEST(GumboTree, GumboAssertionFailureIsAnError) {
  const std::string html = "<table><math><select><mtext><select/><table>";
  absl::StatusOr<GumboTree> tree = GumboTree::Parse(html, 1 << 20);
  ASSERT_FALSE(tree.ok());
  EXPECT_EQ(tree.status().code(), absl::StatusCode::kInternal);
  EXPECT_NE(tree.status().message().find("assertion"), std::string::npos) << tree.status();
  // The thread is not left in "parsing" state: the next parse works.
  EXPECT_TRUE(GumboTree::Parse("<p>fine", 1 << 20).ok());
}

TEST(GumboTree, ZeroBudgetFailsCleanly) {
  EXPECT_EQ(GumboTree::Parse("<p>x", 0).status().code(), absl::StatusCode::kResourceExhausted);
}

}  // namespace
}  // namespace crawler::html
