// The key tables of crawlerd's roles: every key is documented in docs/configuration.md
// ("Configuring the services") with its flag, every role includes the common block, and the
// common block's flags keep their names (the Helm chart and docs/services.md use them).
#include <set>
#include <string>

#include "gtest/gtest.h"
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

TEST(CrawlerdKeys, DedupRole) { ExpectRoleTable(dedup::DedupServerKeys()); }
TEST(CrawlerdKeys, FrontierRole) { ExpectRoleTable(frontier::FrontierServerKeys()); }
TEST(CrawlerdKeys, FetcherRole) { ExpectRoleTable(fetcher::FetcherServerKeys()); }
TEST(CrawlerdKeys, SchedulerRole) { ExpectRoleTable(scheduler::SchedulerServerKeys()); }

}  // namespace
}  // namespace crawler
