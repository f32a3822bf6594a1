#include "services/common/politeness/politeness_keys.h"

namespace crawler::politeness {

const config::KeyTable<politeness::PolitenessOptions>& PolitenessKeys() {
  static const auto* const table = [] {
    auto* t = new config::KeyTable<politeness::PolitenessOptions>;
    (*t).AddField<absl::Duration>(
            {"min_delay", "--min-delay", "Minimum delay per host, e.g. 50ms, 2s"},
            [](politeness::PolitenessOptions& p) -> absl::Duration& { return p.min_delay; })
        .AddField<absl::Duration>(
            {"max_delay", "--max-delay", "Maximum delay per host, at least --min-delay"},
            [](politeness::PolitenessOptions& p) -> absl::Duration& { return p.max_delay; })
        .AddField<double>(
            {"delay_factor", "--delay-factor", "Delay >= factor x last response time"},
            [](politeness::PolitenessOptions& p) -> double& { return p.delay_factor; })
        .AddField<absl::Duration>(
            {"max_crawl_delay", "--max-crawl-delay", "Cap on robots.txt Crawl-delay"},
            [](politeness::PolitenessOptions& p) -> absl::Duration& { return p.max_crawl_delay; })
        .AddField<int>(
            {"max_connections_per_host", "--max-connections-per-host",
             "Concurrent requests per host"},
            [](politeness::PolitenessOptions& p) -> int& { return p.max_connections_per_host; });
    return t;
  }();
  return *table;
}

}  // namespace crawler::politeness
