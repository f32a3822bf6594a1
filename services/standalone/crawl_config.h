// CrawlConfig: everything a standalone crawl (`crawler crawl`) needs, with defaults. Loaded from
// YAML (LoadCrawlConfigYaml: every key documented in docs/configuration.md, unknown keys
// rejected), then overridden by command-line flags, then validated once (Validate).
#ifndef CRAWLER_SERVICES_STANDALONE_CRAWL_CONFIG_H_
#define CRAWLER_SERVICES_STANDALONE_CRAWL_CONFIG_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "services/scheduler/collection.h"

namespace crawler::standalone {

struct CrawlConfig {
  scheduler::Collection collection;

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
  bool obey_robots = true;
  bool queue_sitemaps = false;                 // queue Sitemap: URLs listed in robots.txt
  bool follow_embeds = false;                  // also follow <img> links
  size_t max_in_flight = 256;                  // concurrent HTTP transfers
  int workers = 2;                             // page processing threads
  absl::Duration timeout = absl::Seconds(60);  // whole transfer
  size_t max_body_bytes = 16 << 20;
  std::vector<std::string> allow_networks;  // CIDR blocks the SSRF guard lets through
  std::string connect_to;                   // HOST:PORT every request goes to (tests, websim)
  uint64_t warc_max_file_bytes = 1'000'000'000;
  absl::Duration progress_interval = absl::Seconds(5);  // zero: no progress lines
  // Stop after this long, cleanly (as on SIGTERM; the same data dir resumes). Infinite: run until
  // the frontier is exhausted or a limit is reached. A re-visiting crawl is never exhausted:
  // give it a run_for or stop it with a signal.
  absl::Duration run_for = absl::InfiniteDuration();
  // How often the scheduler re-tunes the re-visit policy over the current rate estimates.
  absl::Duration revisit_tune_interval = absl::Seconds(10);
  // Transient failures (5xx, 429, network errors, an unreachable robots.txt) are tried again: at
  // most max_attempts fetches per URL; retry n waits retry_backoff x 2^(n-1), capped at
  // retry_backoff_max.
  uint32_t max_attempts = 3;
  absl::Duration retry_backoff = absl::Minutes(1);
  absl::Duration retry_backoff_max = absl::Hours(1);
  // How long an unreachable robots.txt disallows its host before it is fetched again (RFC 9309
  // §2.3.1.4); the host's URLs wait for that.
  absl::Duration robots_retry_after = absl::Minutes(30);

  // Fills derived defaults (paths under data_dir) and checks everything; kInvalidArgument names
  // the offending setting.
  absl::Status Finalize();
};

// Applies the YAML file's keys onto `config` (keys absent from the file keep their values, so
// flags parsed afterwards override the file). kInvalidArgument for unknown keys, wrong types and
// bad values, naming the key; kNotFound if the file cannot be read.
absl::Status LoadCrawlConfigYaml(const std::string& path, CrawlConfig& config);

// A visit rate for the re-visit budget: "N/s", "N/min", "N/h" or "N/d" (per day), or a plain
// number (per day). Returns visits per day; kInvalidArgument unless N is a positive number.
absl::StatusOr<double> ParseVisitRate(std::string_view text);

// The robots.txt product token of a User-Agent: its first token up to '/', lower-cased.
std::string RobotsProductToken(std::string_view user_agent);

}  // namespace crawler::standalone

#endif  // CRAWLER_SERVICES_STANDALONE_CRAWL_CONFIG_H_
