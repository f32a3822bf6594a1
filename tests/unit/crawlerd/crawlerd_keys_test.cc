// The key tables of crawlerd's roles: every key is documented in docs/configuration.md
// ("Configuring the services") with its flag, every role includes the common block, and the
// common block's flags keep their names (the Helm chart and docs/services.md use them); the
// hand-over sizes of docs/api.md are the fetcher service's and the standalone crawl's.
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/grpc/server_runner.h"
#include "services/dedup/grpc/dedup_convert.h"
#include "services/fetcher/fetcher.h"
#include "services/frontier/frontier_options.h"
#include "services/frontier/grpc/frontier_convert.h"
#include "services/common/service/service_config.h"
#include "services/dedup/grpc/dedup_server.h"
#include "services/fetcher/grpc/fetcher_server.h"
#include "services/frontier/grpc/frontier_server.h"
#include "services/scheduler/grpc/scheduler_server.h"
#include "tests/unit/common/documented_keys.h"

namespace crawler {
namespace {

const char kSection[] = "# Configuring the services (`crawlerd`)";

// Every key of `table` is documented, and the common block is part of it.
template <typename T>
void ExpectRoleTable(const config::KeyTable<T>& table) {
  testing::ExpectEveryKeyDocumented(table, testing::DocumentedKeyRows(kSection));
  for (const config::Key<service::ServiceCommonConfig>& key : service::ServiceCommonKeys().keys()) {
    EXPECT_NE(table.Find(key.name), nullptr) << "the role lacks the common key " << key.name;
  }
}

TEST(CrawlerdKeys, CommonBlockIsDocumentedAndItsFlagsStay) {
  testing::ExpectEveryKeyDocumented(service::ServiceCommonKeys(),
                                    testing::DocumentedKeyRows(kSection));
  std::set<std::string> flags;
  for (const auto& key : service::ServiceCommonKeys().keys()) flags.insert(key.flag);
  for (const char* flag : {"--listen", "--tls-cert-file", "--tls-key-file", "--tls-client-ca-file",
                           "--metrics-listen", "--drain-timeout"}) {
    EXPECT_EQ(flags.count(flag), 1u) << flag;
  }
}

// "1,024", "4,096": the doc's way of writing counts.
std::string Count(size_t n) {
  std::string digits = absl::StrCat(n);
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3) digits.insert(i, ",");
  return digits;
}

// docs/api.md, "How batches are bounded": one set of figures per process kind, the code's.
TEST(DocumentedBatches, AreTheFetcherServiceAndStandaloneDefaults) {
  const std::vector<std::string> rows =
      testing::DocTableRows("api.md", "## How batches are bounded");
  const fetcher::FetcherOptions service = fetcher::FetcherServerConfig().fetcher;
  const fetcher::FetcherOptions standalone;
  const auto hand_over = [](const fetcher::FetcherOptions& o) {
    return absl::StrCat(Count(o.flush_batch), " or ", absl::ToInt64Milliseconds(o.flush_interval),
                        " ms");
  };
  using ::testing::EndsWith;
  using ::testing::HasSubstr;
  EXPECT_THAT(testing::DocRow(rows, "`Frontier.AddUrls`, `Complete`, `ReportHostTimes`"),
              EndsWith(absl::StrCat("| ", hand_over(service), " | ", hand_over(standalone), " |")));
  EXPECT_THAT(testing::DocRow(rows, "`Frontier.Lease`"),
              EndsWith(absl::StrCat("| ", Count(service.lease_batch), " asked | ",
                                    Count(standalone.lease_batch), " asked |")));
  EXPECT_THAT(testing::DocRow(rows, "`Frontier.Lease`"),
              HasSubstr(absl::StrCat(Count(frontier::FrontierOptions().max_urls_per_lease), ")")));
  EXPECT_THAT(testing::DocRow(rows, "`Dedup.Check`, `Record`"),
              EndsWith(absl::StrCat("| ", service.worker_batch, " | ", standalone.worker_batch,
                                    " (in process) |")));
  EXPECT_THAT(testing::DocRow(rows, "`Dedup.Check`, `Record`"),
              HasSubstr(absl::StrCat("at most ", Count(dedup::kMaxQueriesPerCall),
                                     " queries per call (`kMaxQueriesPerCall`")));
  EXPECT_THAT(testing::DocRow(rows, "`Frontier.LookupUrls`"),
              HasSubstr(absl::StrCat("at most ", Count(frontier::kMaxLookupUrls),
                                     " URLs per call (`kMaxLookupUrls`")));
  EXPECT_THAT(testing::ReadDocPage("api.md"),
              HasSubstr(absl::StrCat("(`Endpoint::max_receive_bytes`, ",
                                     grpc_server::Endpoint().max_receive_bytes >> 20, " MiB)")));
}

// The frontier's RocksDB memory, shared by its collections: a cache under 1 MiB, or a memtable
// budget that does not fit in it, is refused naming the key.
TEST(CrawlerdKeys, FrontierStoreMemoryIsChecked) {
  frontier::FrontierServerConfig config;
  config.data_dir = "/tmp/unused";
  EXPECT_TRUE(config.Validate().ok());
  config.store_memory.block_cache_bytes = 1000;
  EXPECT_THAT(config.Validate().message(), ::testing::HasSubstr("block_cache_bytes"));
  config.store_memory.block_cache_bytes = size_t{64} << 20;
  config.store_memory.memtable_budget_bytes = size_t{64} << 20;
  EXPECT_THAT(config.Validate().message(), ::testing::HasSubstr("memtable_budget_bytes"));
  config.store_memory.memtable_budget_bytes = 0;
  EXPECT_TRUE(config.Validate().ok());
}

TEST(CrawlerdKeys, DedupRole) { ExpectRoleTable(dedup::DedupServerKeys()); }
TEST(CrawlerdKeys, FrontierRole) { ExpectRoleTable(frontier::FrontierServerKeys()); }
TEST(CrawlerdKeys, FetcherRole) { ExpectRoleTable(fetcher::FetcherServerKeys()); }
TEST(CrawlerdKeys, SchedulerRole) { ExpectRoleTable(scheduler::SchedulerServerKeys()); }

}  // namespace
}  // namespace crawler
