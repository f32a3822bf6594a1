// The crawl's key table (CrawlConfigKeys): every key is documented in docs/configuration.md with
// its flag, the defaults are the components' own, the flags of `crawler crawl` keep their names,
// and the YAML file rejects repeated keys and bad partition counts.
#include <fstream>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/fetcher/fetcher.h"
#include "services/frontier/frontier_options.h"
#include "services/standalone/crawl_config.h"
#include "tests/unit/common/documented_keys.h"

namespace crawler::standalone {
namespace {

using ::testing::HasSubstr;

// The key table's rows of docs/configuration.md: "| `key` | flags | default | meaning |".
TEST(CrawlConfigKeys, EveryKeyIsDocumentedWithItsFlag) {
  testing::ExpectEveryKeyDocumented(CrawlConfigKeys(), testing::DocumentedKeyRows(""));
}

// The flags are a contract (tests/cli, scripts, docs): the table must keep offering them.
TEST(CrawlConfigKeys, FlagNamesStay) {
  std::set<std::string> flags;
  for (const config::Key<CrawlConfig>& key : CrawlConfigKeys().keys()) flags.insert(key.flag);
  for (const char* flag : {"--data-dir",
                           "--warc-dir",
                           "--stats-json",
                           "--crawl-log",
                           "--max-pages",
                           "--max-pages-per-host",
                           "--max-depth",
                           "--allow-host-suffix",
                           "--same-site-only",
                           "--include",
                           "--exclude",
                           "--user-agent",
                           "--min-delay",
                           "--max-delay",
                           "--delay-factor",
                           "--max-connections-per-host",
                           "--max-in-flight",
                           "--workers",
                           "--timeout",
                           "--allow-network",
                           "--connect-to",
                           "--no-robots",
                           "--no-warc",
                           "--no-fingerprints",
                           "--queue-sitemaps",
                           "--follow-embeds",
                           "--name",
                           "--store-content-type",
                           "--max-body-bytes",
                           "--warc-max-file-bytes",
                           "--max-crawl-delay",
                           "--progress-interval",
                           "--run-for",
                           "--revisit",
                           "--revisit-policy",
                           "--revisit-budget",
                           "--revisit-min-interval",
                           "--revisit-max-interval",
                           "--revisit-min-visits",
                           "--revisit-tune-interval",
                           "--max-attempts",
                           "--retry-backoff",
                           "--retry-backoff-max",
                           "--robots-retry-after",
                           "--change-threshold-bits",
                           "--partitions"}) {
    EXPECT_EQ(flags.count(flag), 1u) << flag;
  }
}

// Defaults are written once: the crawl's are the components' own.
TEST(CrawlConfigKeys, DefaultsAreTheComponentsOwn) {
  const CrawlConfig c;
  const fetcher::FetcherOptions fetcher;
  const frontier::FrontierOptions frontier;
  EXPECT_EQ(c.fetcher.max_in_flight, fetcher.max_in_flight);
  EXPECT_EQ(c.fetcher.worker_threads, fetcher.worker_threads);
  EXPECT_EQ(c.frontier.max_attempts, frontier.max_attempts);
  EXPECT_EQ(CrawlConfigKeys().Find("max_in_flight")->DefaultText(),
            absl::StrCat(fetcher.max_in_flight));
  EXPECT_EQ(CrawlConfigKeys().Find("workers")->DefaultText(), absl::StrCat(fetcher.worker_threads));
  EXPECT_EQ(CrawlConfigKeys().Find("partitions")->DefaultText(), "1");
  EXPECT_EQ(c.partitions, 1);
}

class TempFile {
 public:
  explicit TempFile(const std::string& content)
      : path_(absl::StrCat(::testing::TempDir(), "/crawl_config_keys_test_", ::getpid(), ".yaml")) {
    std::ofstream(path_) << content;
  }
  ~TempFile() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

TEST(LoadCrawlConfigYaml, RepeatedKeyIsRejected) {
  TempFile file("max_pages: 5\nworkers: 2\nmax_pages: 6\n");
  CrawlConfig c;
  absl::Status s = LoadCrawlConfigYaml(file.path(), c);
  ASSERT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("\"max_pages\" given twice"));
}

TEST(LoadCrawlConfigYaml, PartitionsAreReadAndChecked) {
  TempFile file("partitions: 8\n");
  CrawlConfig c;
  ASSERT_TRUE(LoadCrawlConfigYaml(file.path(), c).ok());
  EXPECT_EQ(c.partitions, 8);
  c.data_dir = "/data";
  c.collection.seeds = {"http://a.test/"};
  EXPECT_TRUE(c.Finalize().ok());
  for (int bad : {0, 65, -1}) {
    SCOPED_TRACE(bad);
    c.partitions = bad;
    absl::Status s = c.Finalize();
    EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
    EXPECT_THAT(std::string(s.message()), HasSubstr("partitions"));
  }
  c.partitions = 64;
  EXPECT_TRUE(c.Finalize().ok());
}

}  // namespace
}  // namespace crawler::standalone
