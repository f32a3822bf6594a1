// CollectionCrawl, the one assembly of a collection's crawl: a setting of a process reaches the
// crawl the same way whether the standalone crawl or the fetcher service assembles it.
#include "services/fetcher/collection_crawl.h"

#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "lib/clock/fake_clock.h"
#include "lib/net/address_policy.h"
#include "lib/politeness/in_process_politeness.h"
#include "services/fetcher/fetcher_node.h"
#include "services/standalone/standalone_crawl.h"
#include "tests/unit/fetcher/fetcher_fakes.h"

namespace crawler::fetcher {
namespace {

class CollectionCrawlTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = ::testing::TempDir() + "collection_crawl_test_XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr) << "mkdtemp " << pattern;
    dir_ = pattern;
    collection_.name = "news";
    collection_.seeds = {"http://a.test/"};
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  // Opens a crawl with `settings` and its first run's WARC writer.
  std::unique_ptr<CollectionCrawl> OpenRun(CollectionCrawlSettings settings) {
    absl::StatusOr<std::unique_ptr<CollectionCrawl>> crawl =
        CollectionCrawl::Open(collection_, std::move(settings),
                              {.politeness = &politeness_,
                               .resolver = &resolver_,
                               .guard = &guard_,
                               .clock = &clock_,
                               .psl = &psl_});
    EXPECT_TRUE(crawl.ok()) << crawl.status();
    if (!crawl.ok()) return nullptr;
    absl::Status opened = (*crawl)->OpenWarc(/*seed=*/1);
    EXPECT_TRUE(opened.ok()) << opened;
    return *std::move(crawl);
  }

  std::filesystem::path dir_;
  collections::Collection collection_;
  FakeClock clock_;
  politeness::InProcessPoliteness politeness_{politeness::PolitenessOptions{}, clock_, 1};
  crawler::testing::TableResolver resolver_;
  net::AddressPolicy guard_ = net::AddressPolicy::Create({}).value();
  SharedPublicSuffixList psl_;
};

TEST_F(CollectionCrawlTest, FsyncReachesTheWarcWriterOfTheStandaloneCrawlAndTheFetcherService) {
  for (const bool fsync : {false, true}) {
    SCOPED_TRACE(fsync ? "fsync on" : "fsync off");
    standalone::CrawlConfig config;
    config.data_dir = (dir_ / (fsync ? "standalone-on" : "standalone-off")).string();
    config.collection = collection_;
    config.fsync = fsync;
    ASSERT_TRUE(config.Finalize().ok());
    std::unique_ptr<CollectionCrawl> standalone = OpenRun(standalone::CrawlSettingsFor(config));
    ASSERT_NE(standalone, nullptr);
    ASSERT_NE(standalone->warc(), nullptr);
    EXPECT_EQ(standalone->warc()->options().sync, fsync);

    FetcherNodeOptions node;
    const std::filesystem::path data = dir_ / (fsync ? "node-on" : "node-off");
    node.warc_dir = (data / "warc").string();
    node.log_dir = (data / "logs").string();
    node.links_dir = (data / "links").string();
    node.fsync = fsync;
    std::unique_ptr<CollectionCrawl> service = OpenRun(FetcherNode::CrawlSettingsFor(
        node, scheduler::CollectionInfo{.collection = collection_}, /*dedup=*/nullptr));
    ASSERT_NE(service, nullptr);
    ASSERT_NE(service->warc(), nullptr);
    EXPECT_EQ(service->warc()->options().sync, fsync);
  }
}

TEST_F(CollectionCrawlTest, AClosedRunStaysReadableAndItsRecordsAreCounted) {
  std::unique_ptr<CollectionCrawl> crawl = OpenRun({.warc_dir = (dir_ / "warc").string(),
                                                    .warc_prefix = "news",
                                                    .crawl_log = (dir_ / "crawl.log").string(),
                                                    .links_file = (dir_ / "links.tsv").string()});
  ASSERT_NE(crawl, nullptr);
  ASSERT_TRUE(crawl->CloseWarc().ok());
  ASSERT_NE(crawl->warc(), nullptr);
  EXPECT_FALSE(crawl->warc()->Files().empty());
  const uint64_t first = crawl->warc_totals().records;
  EXPECT_GT(first, 0u) << "a WARC file starts with its warcinfo record";
  ASSERT_TRUE(crawl->OpenWarc(/*seed=*/2).ok());
  ASSERT_TRUE(crawl->CloseWarc().ok());
  EXPECT_EQ(crawl->warc_totals().records, 2 * first);
  EXPECT_EQ(crawl->warc_totals().collection, "news");
}

TEST_F(CollectionCrawlTest, ACollectionThatStoresNoBodiesHasNoWarcWriter) {
  collection_.store_bodies = false;
  std::unique_ptr<CollectionCrawl> crawl = OpenRun({.warc_dir = (dir_ / "warc").string(),
                                                    .crawl_log = (dir_ / "crawl.log").string(),
                                                    .links_file = (dir_ / "links.tsv").string()});
  ASSERT_NE(crawl, nullptr);
  EXPECT_EQ(crawl->warc(), nullptr);
  EXPECT_FALSE(std::filesystem::exists(dir_ / "warc"));
}

TEST_F(CollectionCrawlTest, AFocusedCollectionOfTheServiceNeedsTheSharedSeenSet) {
  collection_.limits.max_pages = 10;
  collection_.focus.target = "external_links";
  collection_.focus.external = "host";
  collection_.ApplyFocus();
  absl::StatusOr<std::unique_ptr<CollectionCrawl>> crawl =
      CollectionCrawl::Open(collection_,
                            {.crawl_log = (dir_ / "crawl.log").string(),
                             .links_file = (dir_ / "links.tsv").string(),
                             .links_shared = true},
                            {.politeness = &politeness_,
                             .resolver = &resolver_,
                             .guard = &guard_,
                             .clock = &clock_,
                             .psl = &psl_});
  EXPECT_TRUE(absl::IsFailedPrecondition(crawl.status())) << crawl.status();
}

}  // namespace
}  // namespace crawler::fetcher
