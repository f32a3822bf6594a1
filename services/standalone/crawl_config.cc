#include "services/standalone/crawl_config.h"

#include <filesystem>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "lib/net/ip_address.h"
#include "services/collections/collection_keys.h"
#include "services/fetcher/fetcher_config.h"
#include "services/frontier/frontier_config.h"
#include "services/scheduler/scheduler_config.h"

namespace crawler::standalone {

const config::KeyTable<CrawlConfig>& CrawlConfigKeys() {
  static const auto* const table = [] {
    auto* t = new config::KeyTable<CrawlConfig>;
    t->Add(
         {"data_dir", "--data-dir", "State directory (RocksDB, logs); reuse to resume", "required"},
         &CrawlConfig::data_dir)
        .Add({"warc_dir", "--warc-dir", "WARC output directory", "DATA_DIR/warc"},
             &CrawlConfig::warc_dir)
        .Add({"crawl_log", "--crawl-log", "Crawl log", "DATA_DIR/crawl.log"},
             &CrawlConfig::crawl_log)
        .Add({"stats_json", "--stats-json", "Write the final JSON summary here"},
             &CrawlConfig::stats_json)
        .Include(collections::CollectionKeys(), &CrawlConfig::collection)
        .Add({"user_agent", "--user-agent", "User-Agent (its first token matches robots.txt)"},
             &CrawlConfig::user_agent)
        .Include(fetcher::FetcherKeys(), &CrawlConfig::fetcher)
        .Add({"allow_networks", "--allow-network",
              "CIDR the SSRF guard lets through (repeatable), e.g. 127.0.0.0/8"},
             &CrawlConfig::allow_networks)
        .Include(politeness::PolitenessStoreKeys(), &CrawlConfig::politeness_store)
        .Add({"warc_max_file_bytes", "--warc-max-file-bytes", "Rotate WARC files at this size"},
             &CrawlConfig::warc_max_file_bytes)
        .Add({"fsync", "--no-fsync",
              "fsync WARC records, then the frontier's log, before a page counts as done"},
             &CrawlConfig::fsync)
        .Add({"min_free_bytes", "--min-free-bytes",
              "Stop cleanly when data_dir or warc_dir has less free space (0 = never)"},
             &CrawlConfig::min_free_bytes)
        .Add({"partitions", "--partitions", "Frontier partitions run in this process (1..64)"},
             &CrawlConfig::partitions)
        .Add({"partition_header", "--partition-header",
              "Send each request's partition as X-Crawler-Partition (to check partitioning)"},
             &CrawlConfig::partition_header)
        .AddField<absl::Duration>(
            {"progress_interval", "--progress-interval",
             "Time between progress lines on stderr, e.g. 5s (0 = none)"},
            [](CrawlConfig& c) -> absl::Duration& { return c.progress.interval; })
        .Add(
            {"metrics_listen", "--metrics-listen",
             "Serve Prometheus metrics at http://ADDR/metrics, e.g. 127.0.0.1:9100 (empty = none)"},
            &CrawlConfig::metrics_listen)
        .Add({"run_for", "--run-for",
              "Stop cleanly after this long, e.g. 10m (a re-visiting crawl runs until then)",
              "unlimited"},
             &CrawlConfig::run_for)
        .Include(scheduler::RevisitTunerKeys(), &CrawlConfig::revisit_tuner)
        .Include(frontier::FrontierKeys(), &CrawlConfig::frontier)
        .Include(frontier::StoreMemoryKeys(), &CrawlConfig::store_memory);
    return t;
  }();
  return *table;
}

absl::Status LoadCrawlConfigYaml(const std::string& path, CrawlConfig& config) {
  return CrawlConfigKeys().LoadFile(path, config);
}

absl::Status CrawlConfig::Finalize() {
  if (data_dir.empty()) return absl::InvalidArgumentError("--data-dir is required");
  if (warc_dir.empty()) warc_dir = (std::filesystem::path(data_dir) / "warc").string();
  if (crawl_log.empty()) crawl_log = (std::filesystem::path(data_dir) / "crawl.log").string();
  if (user_agent.empty()) return absl::InvalidArgumentError("user_agent must not be empty");
  collection.ApplyFocus();
  if (fetcher::RobotsProductToken(user_agent).empty()) {
    return absl::InvalidArgumentError("user_agent must start with a product token");
  }
  if (fetcher.max_in_flight < 1 || fetcher.max_in_flight > 100'000) {
    return absl::InvalidArgumentError("max_in_flight must be in [1, 100000]");
  }
  if (fetcher.worker_threads < 1 || fetcher.worker_threads > 256)
    return absl::InvalidArgumentError("workers must be in [1, 256]");
  if (fetcher.http.total_timeout <= absl::ZeroDuration())
    return absl::InvalidArgumentError("timeout must be > 0");
  if (fetcher.http.max_body_bytes < 1024)
    return absl::InvalidArgumentError("max_body_bytes must be >= 1024");
  if (warc_max_file_bytes < 4096) {
    return absl::InvalidArgumentError("warc_max_file_bytes must be >= 4096");
  }
  if (partitions < 1 || partitions > 64) {
    return absl::InvalidArgumentError("partitions must be in [1, 64]");
  }
  if (progress.interval < absl::ZeroDuration()) {
    return absl::InvalidArgumentError("progress_interval must be >= 0");
  }
  if (run_for <= absl::ZeroDuration()) return absl::InvalidArgumentError("run_for must be > 0");
  if (revisit_tuner.interval <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("revisit_tune_interval must be > 0");
  }
  if (frontier.max_attempts < 1 || frontier.max_attempts > 100) {
    return absl::InvalidArgumentError("max_attempts must be in [1, 100]");
  }
  if (frontier.retry_backoff_initial <= absl::ZeroDuration() ||
      frontier.retry_backoff_max < frontier.retry_backoff_initial) {
    return absl::InvalidArgumentError(
        "retry_backoff must be > 0 and retry_backoff_max >= retry_backoff");
  }
  const absl::Duration robots_retry_after = fetcher.robots_policy.unreachable_retry_after;
  if (robots_retry_after < absl::Minutes(1) || robots_retry_after > absl::Hours(24)) {
    // RFC 9309 §2.4: no cached verdict is used for more than 24 hours.
    return absl::InvalidArgumentError("robots_retry_after must be in [1m, 24h]");
  }
  if (absl::Status s = politeness_store.Validate(); !s.ok()) return s;
  if (absl::Status s = store_memory.Validate(); !s.ok()) return s;
  for (const std::string& cidr : allow_networks) {
    if (absl::Status s = net::CidrBlock::Parse(cidr).status(); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("allow_networks: ", s.message()));
    }
  }
  return collection.Validate();
}

}  // namespace crawler::standalone
