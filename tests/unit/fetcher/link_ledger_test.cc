// LinkLedger (services/fetcher/link_ledger.h): rewards count each external link once per
// collection, the file reads back, survives a torn last page, and a reopened ledger remembers.
#include "services/fetcher/link_ledger.h"

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lib/url/public_suffix_list.h"
#include "services/common/kv/in_memory_kv_store.h"
#include "services/dedup/dedup.h"

namespace crawler::fetcher {
namespace {

html::Link A(const std::string& href, const std::string& text) {
  return html::Link{url::Url::Parse(href).value(), html::LinkKind::kA, false, text};
}

uint32_t Record(LinkLedger& ledger, const std::string& page, uint32_t depth,
                const std::vector<html::Link>& links,
                const std::vector<html::UnresolvedRef>& unresolved = {}) {
  const url::Url parsed = url::Url::Parse(page).value();
  return ledger.RecordPage(PageLinks{.canonical_url = page,
                                     .url = parsed,
                                     .depth = depth,
                                     .links = links,
                                     .unresolved = unresolved});
}

std::vector<LedgerPage> ReadAll(const std::string& path) {
  std::vector<LedgerPage> pages;
  EXPECT_TRUE(ReadLinkLedger(path, [&](const LedgerPage& p) { pages.push_back(p); }).ok());
  return pages;
}

class LinkLedgerTest : public ::testing::Test {
 protected:
  LinkLedgerTest() : psl_(url::PublicSuffixList::LoadDefault().value()) {}
  // A directory of this test's own (other checkouts may run the same test at the same time).
  void SetUp() override {
    std::string pattern = ::testing::TempDir() + "link_ledger_test_XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr) << "mkdtemp " << pattern;
    dir_ = pattern;
    path_ = (std::filesystem::path(dir_) / "links.tsv").string();
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }
  url::PublicSuffixList psl_;
  std::string dir_;
  std::string path_;
};

TEST_F(LinkLedgerTest, ExternalLinksCountOncePerCollection) {
  std::unique_ptr<LinkLedger> ledger = LinkLedger::Open(path_, &psl_, false).value();
  EXPECT_EQ(Record(*ledger, "http://www.uni.example/", 0,
                   {A("http://lib.uni.example/", "library"),  // same registrable domain
                    A("http://partner.org/a", "partner\ttab"), A("HTTP://PARTNER.ORG:80/a", "again"),
                    A("http://other.net/", "other")},
                   {{"javascript", "javascript:go()"}}),
            2u);
  EXPECT_EQ(Record(*ledger, "http://www.uni.example/p1", 1,
                   {A("http://partner.org/a", "seen"), A("http://third.org/", "new")}),
            1u);
  EXPECT_EQ(ledger->external_links_seen(), 3u);
  ledger.reset();

  const std::vector<LedgerPage> pages = ReadAll(path_);
  ASSERT_EQ(pages.size(), 2u);
  EXPECT_EQ(pages[0].url, "http://www.uni.example/");
  EXPECT_EQ(pages[0].new_external_links, 2u);
  ASSERT_EQ(pages[0].links.size(), 4u);
  EXPECT_FALSE(pages[0].links[0].external);
  EXPECT_EQ(pages[0].links[1].target, "http://partner.org/a");
  EXPECT_EQ(pages[0].links[1].anchor_text, "partner\ttab");
  EXPECT_EQ(pages[0].links[2].target, "http://partner.org/a");
  ASSERT_EQ(pages[0].unresolved.size(), 1u);
  EXPECT_EQ(pages[0].unresolved[0].value, "javascript:go()");
  EXPECT_EQ(pages[1].depth, 1u);

  // A torn last page (a crash mid-write) is skipped and cut off; the seen set survives.
  { std::ofstream(path_, std::ios::app) << "page\thttp://www.uni.example/p2\t2\t1\t3\t0\nlink\thttp"; }
  EXPECT_EQ(ReadAll(path_).size(), 2u);
  ledger = LinkLedger::Open(path_, &psl_, false).value();
  EXPECT_EQ(ledger->external_links_seen(), 3u);
  EXPECT_EQ(Record(*ledger, "http://www.uni.example/p3", 2,
                   {A("http://third.org/", "seen"), A("http://fourth.org/", "new")}),
            1u);
  ledger.reset();
  EXPECT_EQ(ReadAll(path_).size(), 3u);
}

// Script navigations are hyperlinks a reader chooses; images, frames and <link> are not.
TEST_F(LinkLedgerTest, ScriptLinksAreHyperlinks) {
  std::unique_ptr<LinkLedger> ledger = LinkLedger::Open(path_, &psl_, false).value();
  const auto link = [](const std::string& href, html::LinkKind kind) {
    return html::Link{url::Url::Parse(href).value(), kind, false, ""};
  };
  EXPECT_EQ(Record(*ledger, "http://www.uni.example/", 0,
                   {link("http://script.org/", html::LinkKind::kScript),
                    link("http://img.org/i.png", html::LinkKind::kImg),
                    link("http://frame.org/", html::LinkKind::kIframe),
                    link("http://canonical.org/", html::LinkKind::kCanonical)}),
            1u);
  ledger.reset();
  const std::vector<LedgerPage> pages = ReadAll(path_);
  ASSERT_EQ(pages.size(), 1u);
  ASSERT_EQ(pages[0].links.size(), 1u);
  EXPECT_EQ(pages[0].links[0].target, "http://script.org/");
}

TEST_F(LinkLedgerTest, ByHostEveryOtherHostIsExternal) {
  std::unique_ptr<LinkLedger> ledger = LinkLedger::Open(path_, nullptr, true).value();
  EXPECT_EQ(Record(*ledger, "http://www.uni.example/", 0,
                   {A("http://lib.uni.example/", "library"), A("http://www.uni.example/x", "in")}),
            1u);
  EXPECT_FALSE(LinkLedger::Open(path_ + ".2", nullptr, false).ok()) << "domains need a PSL";
}

TEST_F(LinkLedgerTest, MalformedLinesAreDataLoss) {
  { std::ofstream(path_) << "garbage\n"; }
  EXPECT_TRUE(absl::IsDataLoss(ReadLinkLedger(path_, [](const LedgerPage&) {})));
  EXPECT_TRUE(absl::IsNotFound(ReadLinkLedger(path_ + ".none", [](const LedgerPage&) {})));
}

// The distributed crawl: each fetcher keeps a ledger of its own, and the seen set is the dedup
// index's (Dedup::MarkLinksSeen), so a link counts once across both fetchers; a repeated link
// within a page is fresh once. A seen set that cannot be reached earns the page 0 (counted).
TEST_F(LinkLedgerTest, ASharedSeenSetCountsEachLinkOnceAcrossLedgers) {
  kv::InMemoryKvStore store(dedup::Dedup::ColumnFamilies());
  std::unique_ptr<dedup::Dedup> index = dedup::Dedup::Open({}, store).value();
  bool reachable = true;
  const LinkLedger::MarkSeen shared =
      [&](const std::vector<std::string>& keys) -> absl::StatusOr<std::vector<bool>> {
    if (!reachable) return absl::UnavailableError("dedup down");
    return index->MarkLinksSeen("c@1", keys);
  };
  const std::string other = (std::filesystem::path(dir_) / "links-p1.tsv").string();
  std::unique_ptr<LinkLedger> p0 = LinkLedger::Open(path_, &psl_, false, shared).value();
  std::unique_ptr<LinkLedger> p1 = LinkLedger::Open(other, &psl_, false, shared).value();
  EXPECT_EQ(Record(*p0, "http://a.example/", 0,
                   {A("http://partner.org/a", "x"), A("http://partner.org/a", "again")}),
            1u);
  EXPECT_EQ(Record(*p1, "http://b.example/", 0,
                   {A("http://partner.org/a", "seen on p0"), A("http://third.org/", "new")}),
            1u);
  EXPECT_EQ(p0->external_links_seen() + p1->external_links_seen(), 2u);
  // Another collection's set is another set.
  EXPECT_EQ(index->MarkLinksSeen("d@1", {"http://partner.org/a"}).value(), std::vector<bool>{true});
  reachable = false;
  EXPECT_EQ(Record(*p1, "http://b.example/1", 1, {A("http://fourth.org/", "lost")}), 0u);
  EXPECT_EQ(p1->seen_set_failures(), 1u);
  p1.reset();
  // The page and its links are written all the same.
  const std::vector<LedgerPage> pages = ReadAll(other);
  ASSERT_EQ(pages.size(), 2u);
  EXPECT_EQ(pages[1].links.size(), 1u);
  EXPECT_EQ(pages[1].new_external_links, 0u);
}

}  // namespace
}  // namespace crawler::fetcher
