// CrawlConfig: everything a standalone crawl (`crawler crawl`) needs. It holds the components'
// own options structs (their defaults are the crawl's), described by one key table
// (CrawlConfigKeys) that drives the YAML file, the command-line flags and --help; a test checks
// docs/configuration.md documents every key. Loaded from YAML, then overridden by flags, then
// validated once (Finalize).
#ifndef CRAWLER_SERVICES_STANDALONE_CRAWL_CONFIG_H_
#define CRAWLER_SERVICES_STANDALONE_CRAWL_CONFIG_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "lib/warc/warc_writer.h"
#include "services/collections/collection.h"
#include "services/common/config/key_table.h"
#include "services/common/politeness/politeness_store.h"
#include "services/fetcher/collection_options.h"
#include "services/fetcher/fetcher.h"
#include "services/frontier/frontier_config.h"
#include "services/frontier/frontier_options.h"
#include "services/scheduler/revisit_tuner.h"
#include "services/standalone/progress_reporter.h"

namespace crawler::standalone {

struct CrawlConfig {
  collections::Collection collection;  // collections::CollectionKeys()

  // Where state lives (RocksDB in <data_dir>/state); re-using it resumes the crawl.
  std::string data_dir;
  // WARC output; default <data_dir>/warc.
  std::string warc_dir;
  // Crawl log; default <data_dir>/crawl.log (appended to on resume).
  std::string crawl_log;
  // Final JSON summary; none if empty.
  std::string stats_json;

  // Sent as User-Agent. Its first product token (lower-cased) is what robots.txt groups are
  // matched against, so name the crawler in it ("ExampleBot/1.0 (+https://example.org/bot)").
  std::string user_agent = "crawler/0.1 (+https://github.com/crawler)";
  // The fetcher's settings (fetcher::FetcherKeys(): max_in_flight, workers, timeout, ...). Open
  // derives the rest from the collection and user_agent: User-Agent and robots.txt token, lease
  // sizes, what is stored and fingerprinted.
  fetcher::FetcherOptions fetcher;
  // The frontier's settings (frontier::FrontierKeys(): max_attempts, retry_backoff,
  // retry_backoff_max). Open derives the page limits, the re-visit policy and the per-host lease
  // cap from the collection and the fetcher.
  frontier::FrontierOptions frontier;
  std::vector<std::string> allow_networks;  // CIDR blocks the SSRF guard lets through
  // Where politeness state lives: in this process (default), or a Redis shared with other
  // crawls, so that together they keep every host's delay.
  politeness::PolitenessStoreConfig politeness_store;
  uint64_t warc_max_file_bytes = warc::WarcWriterOptions{}.max_file_bytes;
  // The crawl stops cleanly (as on SIGTERM, exit status 1) when the file system of data_dir or
  // warc_dir has less than this many bytes free, before a write fails: a stop with room to spare
  // records every completion, so the resumed crawl fetches nothing twice. 256 MiB covers a drain
  // and RocksDB's compactions of a crawl state of a few GB; 0 turns the check off (a full disk
  // then stops the crawl at the first failed write, and the pages of the completions not yet
  // recorded are fetched again on resume).
  uint64_t min_free_bytes = uint64_t{256} << 20;
  // A page is marked done only once its WARC records are on disk: the WARC file is fsynced once
  // per batch of completions handed to the frontier, then the frontier's write of that batch
  // is fsynced (docs/benchmarks.md has the cost). Off: a kernel crash or power loss may lose
  // records of pages marked done (a killed process loses nothing either way).
  bool fsync = true;
  // Frontier partitions run in this process (docs/architecture.md §4), 1..64.
  int partitions = 1;
  // RocksDB memory shared by the partitions' stores (the content index's too).
  frontier::StoreMemoryConfig store_memory;
  // Send X-Crawler-Partition: <k> with every request of partition k's fetcher, so a server's log
  // (websim's) shows that each host is fetched by its owner only. Off: crawled sites learn
  // nothing of the crawler's layout.
  bool partition_header = false;
  ProgressReporterOptions progress;  // progress_interval; zero: no progress lines
  // Serve Prometheus metrics (docs/metrics.md) at http://<metrics_listen>/metrics, "host:port";
  // empty: no metrics endpoint.
  std::string metrics_listen;
  // Stop after this long, cleanly (as on SIGTERM; the same data dir resumes). Infinite: run until
  // the frontier is exhausted or a limit is reached. A re-visiting crawl is never exhausted:
  // give it a run_for or stop it with a signal.
  absl::Duration run_for = absl::InfiniteDuration();
  // How often the scheduler re-tunes the re-visit policy (revisit_tune_interval).
  scheduler::RevisitTunerOptions revisit_tuner;

  // Fills derived defaults (paths under data_dir) and checks everything; kInvalidArgument names
  // the offending setting.
  absl::Status Finalize();
};

// Every key of a crawl's configuration: the YAML keys of LoadCrawlConfigYaml, the flags of
// `crawler crawl` (except --seeds, --config and --quiet, which the command adds itself) and their
// defaults. Composed of the components' tables (collection, fetcher, frontier, re-visit tuner)
// and the crawl's own keys (paths, user_agent, allow_networks, politeness store,
// warc_max_file_bytes, partitions, progress_interval, run_for).
const config::KeyTable<CrawlConfig>& CrawlConfigKeys();

// Applies the YAML file's keys onto `config` (keys absent from the file keep their values, so
// flags parsed afterwards override the file). kInvalidArgument for unknown keys, keys given
// twice, wrong types and bad values, naming the key; kNotFound if the file cannot be read.
absl::Status LoadCrawlConfigYaml(const std::string& path, CrawlConfig& config);

// A visit rate for the re-visit budget (services/common/config/key_table.h).
using config::ParseVisitRate;

// The robots.txt product token of a User-Agent (services/fetcher/collection_options.h).
using fetcher::RobotsProductToken;

}  // namespace crawler::standalone

#endif  // CRAWLER_SERVICES_STANDALONE_CRAWL_CONFIG_H_
