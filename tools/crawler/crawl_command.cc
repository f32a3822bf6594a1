// `crawler crawl`: a standalone crawl (services/standalone). Flags mirror the YAML keys of
// --config (docs/configuration.md) and override them; their names are a contract.
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/time/time.h"
#include "lib/clock/clock.h"
#include "services/standalone/crawl_config.h"
#include "services/standalone/standalone_crawl.h"
#include "tools/crawler/commands.h"

namespace crawler::cli {
namespace {

struct CrawlFlags {
  std::vector<std::string> seeds;
  std::string config_file;
  std::string data_dir, warc_dir, stats_json, crawl_log, user_agent, connect_to;
  std::string name, min_delay, max_delay, max_crawl_delay, timeout, progress_interval, run_for;
  std::string revisit_policy, revisit_budget, revisit_min_interval, revisit_max_interval;
  std::string revisit_min_visits, revisit_tune_interval;
  std::string retry_backoff, retry_backoff_max, robots_retry_after;
  std::optional<uint32_t> max_attempts;
  std::optional<int> change_threshold_bits;
  bool revisit = false;
  std::vector<std::string> store_content_types;
  std::optional<size_t> max_body_bytes;
  std::optional<uint64_t> warc_max_file_bytes;
  std::vector<std::string> allow_host_suffixes, allow_networks, include, exclude;
  std::optional<uint64_t> max_pages, max_pages_per_host;
  std::optional<uint32_t> max_depth;
  std::optional<double> delay_factor;
  std::optional<int> max_connections_per_host, workers;
  std::optional<size_t> max_in_flight;
  bool same_site_only = false, no_robots = false, no_warc = false, queue_sitemaps = false;
  bool follow_embeds = false, quiet = false, no_fingerprints = false;
};

// --seeds takes URLs or files of URLs (one per line, '#' comments).
absl::Status ExpandSeeds(const std::vector<std::string>& args, std::vector<std::string>& out) {
  for (const std::string& arg : args) {
    if (absl::StrContains(arg, "://")) {
      out.push_back(arg);
      continue;
    }
    std::ifstream in(arg);
    if (!in) {
      return absl::InvalidArgumentError("--seeds: \"" + arg +
                                        "\" is neither a URL nor a readable file");
    }
    std::string line;
    while (std::getline(in, line)) {
      const std::string trimmed(absl::StripAsciiWhitespace(line));
      if (!trimmed.empty() && trimmed[0] != '#') out.push_back(trimmed);
    }
  }
  return absl::OkStatus();
}

absl::Status ParseDurationFlag(const std::string& name, const std::string& text,
                               absl::Duration& out) {
  if (text.empty()) return absl::OkStatus();
  absl::Duration d;
  if (!absl::ParseDuration(text, &d) || d < absl::ZeroDuration()) {
    return absl::InvalidArgumentError("--" + name + ": not a duration: \"" + text +
                                      "\" (e.g. 50ms, 2s, 1m)");
  }
  out = d;
  return absl::OkStatus();
}

absl::StatusOr<standalone::CrawlConfig> BuildConfig(const CrawlFlags& f) {
  standalone::CrawlConfig c;
  if (!f.config_file.empty()) {
    if (absl::Status s = standalone::LoadCrawlConfigYaml(f.config_file, c); !s.ok()) return s;
  }
  if (!f.seeds.empty()) {
    c.collection.seeds.clear();
    if (absl::Status s = ExpandSeeds(f.seeds, c.collection.seeds); !s.ok()) return s;
  }
  auto set = [](const std::string& v, std::string& field) {
    if (!v.empty()) field = v;
  };
  set(f.data_dir, c.data_dir);
  set(f.warc_dir, c.warc_dir);
  set(f.stats_json, c.stats_json);
  set(f.crawl_log, c.crawl_log);
  set(f.user_agent, c.user_agent);
  set(f.connect_to, c.connect_to);
  set(f.name, c.collection.name);
  for (const std::string& s : f.store_content_types) c.collection.store_content_types.push_back(s);
  if (f.max_body_bytes) c.max_body_bytes = *f.max_body_bytes;
  if (f.warc_max_file_bytes) c.warc_max_file_bytes = *f.warc_max_file_bytes;
  for (const std::string& s : f.allow_host_suffixes)
    c.collection.scope.allowed_host_suffixes.push_back(s);
  for (const std::string& s : f.allow_networks) c.allow_networks.push_back(s);
  for (const std::string& s : f.include) c.collection.scope.include_patterns.push_back(s);
  for (const std::string& s : f.exclude) c.collection.scope.exclude_patterns.push_back(s);
  if (f.same_site_only) c.collection.scope.same_site_only = true;
  if (f.max_pages) c.collection.limits.max_pages = *f.max_pages;
  if (f.max_pages_per_host) c.collection.limits.max_pages_per_host = *f.max_pages_per_host;
  if (f.max_depth) c.collection.scope.max_depth = *f.max_depth;
  if (f.delay_factor) c.collection.politeness.delay_factor = *f.delay_factor;
  if (f.max_connections_per_host) {
    c.collection.politeness.max_connections_per_host = *f.max_connections_per_host;
  }
  if (f.workers) c.workers = *f.workers;
  if (f.max_in_flight) c.max_in_flight = *f.max_in_flight;
  if (f.no_robots) c.obey_robots = false;
  if (f.no_warc) c.collection.store_bodies = false;
  if (f.no_fingerprints) c.collection.fingerprints = false;
  if (f.queue_sitemaps) c.queue_sitemaps = true;
  if (f.follow_embeds) c.follow_embeds = true;
  if (f.quiet) c.progress_interval = absl::ZeroDuration();
  // Durations: the flag's text (empty when not given) and the setting it replaces.
  const struct {
    const char* flag;
    const std::string& text;
    absl::Duration& setting;
  } durations[] = {
      {"min-delay", f.min_delay, c.collection.politeness.min_delay},
      {"max-delay", f.max_delay, c.collection.politeness.max_delay},
      {"timeout", f.timeout, c.timeout},
      {"max-crawl-delay", f.max_crawl_delay, c.collection.politeness.max_crawl_delay},
      {"progress-interval", f.progress_interval, c.progress_interval},
      {"run-for", f.run_for, c.run_for},
      {"revisit-min-interval", f.revisit_min_interval, c.collection.revisit.options.min_interval},
      {"revisit-max-interval", f.revisit_max_interval, c.collection.revisit.options.max_interval},
      {"revisit-tune-interval", f.revisit_tune_interval, c.revisit_tune_interval},
      {"retry-backoff", f.retry_backoff, c.retry_backoff},
      {"retry-backoff-max", f.retry_backoff_max, c.retry_backoff_max},
      {"robots-retry-after", f.robots_retry_after, c.robots_retry_after},
  };
  for (const auto& d : durations) {
    if (absl::Status s = ParseDurationFlag(d.flag, d.text, d.setting); !s.ok()) return s;
  }
  if (f.revisit) c.collection.revisit.options.enabled = true;
  set(f.revisit_policy, c.collection.revisit.options.policy);
  if (!f.revisit_budget.empty()) {
    absl::StatusOr<double> rate = standalone::ParseVisitRate(f.revisit_budget);
    if (!rate.ok()) {
      return absl::InvalidArgumentError("--revisit-budget: " + std::string(rate.status().message()));
    }
    c.collection.revisit.budget_visits_per_day = *rate;
  }
  if (!f.revisit_min_visits.empty()) {
    absl::StatusOr<double> rate = standalone::ParseVisitRate(f.revisit_min_visits);
    if (!rate.ok()) {
      return absl::InvalidArgumentError("--revisit-min-visits: " +
                                        std::string(rate.status().message()));
    }
    c.collection.revisit.options.policy_options.optimal.min_visits_per_day = *rate;
  }
  if (f.max_attempts) c.max_attempts = *f.max_attempts;
  if (f.change_threshold_bits) {
    c.collection.revisit.options.change_threshold_bits = *f.change_threshold_bits;
  }
  // A minimum delay above the default maximum raises the maximum with it (otherwise
  // `--min-delay 2m` alone would be rejected as inconsistent).
  if (f.max_delay.empty() &&
      c.collection.politeness.max_delay < c.collection.politeness.min_delay) {
    c.collection.politeness.max_delay = c.collection.politeness.min_delay;
  }
  return c;
}

int RunCrawl(const CrawlFlags& flags) {
  absl::StatusOr<standalone::CrawlConfig> config = BuildConfig(flags);
  if (!config.ok()) {
    std::fprintf(stderr, "crawl: %s\n", std::string(config.status().message()).c_str());
    return kExitUsage;
  }
  // SIGINT/SIGTERM are taken by a thread (sigwait), which asks the crawl to stop; the rest of
  // the process never sees them. A second signal exits at once.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  SystemClock clock;
  absl::StatusOr<std::unique_ptr<standalone::StandaloneCrawl>> crawl =
      standalone::StandaloneCrawl::Open(*std::move(config), clock);
  if (!crawl.ok()) {
    std::fprintf(stderr, "crawl: %s\n", std::string(crawl.status().message()).c_str());
    return absl::IsInvalidArgument(crawl.status()) ? kExitUsage : kExitFailure;
  }
  std::atomic<bool> finished{false};
  std::thread signal_thread([&signals, &finished, c = crawl->get()] {
    int sig = 0;
    if (sigwait(&signals, &sig) != 0 || finished) return;
    std::fprintf(stderr, "crawl: %s received, finishing transfers in flight (again to abort)\n",
                 sig == SIGINT ? "SIGINT" : "SIGTERM");
    c->Stop();
    if (sigwait(&signals, &sig) == 0 && !finished) _exit(130);
  });
  absl::StatusOr<standalone::CrawlTotals> totals = (*crawl)->Run();
  // Release the signal thread, which waits for a (first or second) signal.
  finished = true;
  pthread_kill(signal_thread.native_handle(), SIGTERM);
  signal_thread.join();
  if (!totals.ok()) {
    std::fprintf(stderr, "crawl: %s\n", std::string(totals.status().message()).c_str());
    return kExitFailure;
  }
  std::fprintf(stderr,
               "crawl: done: %llu pages, %llu errors, %llu duplicates, %llu robots-denied\n",
               static_cast<unsigned long long>(totals->pages),
               static_cast<unsigned long long>(totals->errors),
               static_cast<unsigned long long>(totals->duplicates),
               static_cast<unsigned long long>(totals->robots_denied));
  return kExitOk;
}

}  // namespace

void AddCrawlCommand(CLI::App& app, int* exit_code) {
  auto flags = std::make_shared<CrawlFlags>();
  CLI::App* cmd = app.add_subcommand(
      "crawl", "Crawl from seeds in this process (state in --data-dir; run again to resume)");
  cmd->add_option("--seeds", flags->seeds, "Seed URLs, or files with one URL per line")
      ->expected(1, -1);
  cmd->add_option("--config", flags->config_file,
                  "YAML file (docs/configuration.md); flags override it");
  cmd->add_option("--data-dir", flags->data_dir,
                  "State directory (RocksDB, logs); reuse to resume");
  cmd->add_option("--warc-dir", flags->warc_dir, "WARC output directory (default DATA_DIR/warc)");
  cmd->add_option("--stats-json", flags->stats_json, "Write the final JSON summary here");
  cmd->add_option("--crawl-log", flags->crawl_log, "Crawl log (default DATA_DIR/crawl.log)");
  cmd->add_option("--max-pages", flags->max_pages, "Stop after this many pages");
  cmd->add_option("--max-pages-per-host", flags->max_pages_per_host, "Pages per host at most");
  cmd->add_option("--max-depth", flags->max_depth, "Link depth from the seeds (seeds are 0)");
  cmd->add_option("--allow-host-suffix", flags->allow_host_suffixes,
                  "Only hosts under this suffix (repeatable; gov.si admits gov.si and *.gov.si)");
  cmd->add_flag("--same-site-only", flags->same_site_only, "Only the seeds' registrable domains");
  cmd->add_option("--include", flags->include, "URL regex (RE2) that must match (repeatable)");
  cmd->add_option("--exclude", flags->exclude, "URL regex (RE2) that must not match (repeatable)");
  cmd->add_option("--user-agent", flags->user_agent,
                  "User-Agent (its first token matches robots.txt)");
  cmd->add_option("--min-delay", flags->min_delay, "Minimum delay per host, e.g. 50ms, 2s");
  cmd->add_option("--max-delay", flags->max_delay, "Maximum delay per host");
  cmd->add_option("--delay-factor", flags->delay_factor, "Delay >= factor x last response time");
  cmd->add_option("--max-connections-per-host", flags->max_connections_per_host,
                  "Concurrent requests per host (default 1)");
  cmd->add_option("--max-in-flight", flags->max_in_flight, "Concurrent requests in total");
  cmd->add_option("--workers", flags->workers, "Page processing threads");
  cmd->add_option("--timeout", flags->timeout, "Per-request time limit, e.g. 30s");
  cmd->add_option("--allow-network", flags->allow_networks,
                  "CIDR the SSRF guard lets through (repeatable), e.g. 127.0.0.0/8");
  cmd->add_option("--connect-to", flags->connect_to, "Send every request to HOST:PORT (websim)");
  cmd->add_flag("--no-robots", flags->no_robots, "Ignore robots.txt (only for your own sites)");
  cmd->add_flag("--no-warc", flags->no_warc, "Do not write WARC files");
  cmd->add_flag("--no-fingerprints", flags->no_fingerprints,
                "No content fingerprints: no duplicate detection (a link-mapping crawl)");
  cmd->add_flag("--queue-sitemaps", flags->queue_sitemaps, "Queue sitemaps listed in robots.txt");
  cmd->add_flag("--follow-embeds", flags->follow_embeds, "Also follow <img> links");
  cmd->add_flag("--quiet", flags->quiet, "No progress lines");
  cmd->add_option("--name", flags->name, "Collection name (WARC file prefix)");
  cmd->add_option("--store-content-type", flags->store_content_types,
                  "Only store these media types in WARC files (repeatable), e.g. text/html");
  cmd->add_option("--max-body-bytes", flags->max_body_bytes, "Body bytes kept per response");
  cmd->add_option("--warc-max-file-bytes", flags->warc_max_file_bytes,
                  "Rotate WARC files at this size");
  cmd->add_option("--max-crawl-delay", flags->max_crawl_delay, "Cap on robots.txt Crawl-delay");
  cmd->add_option("--progress-interval", flags->progress_interval,
                  "Seconds between progress lines on stderr, e.g. 5s (0 = none)");
  cmd->add_option("--run-for", flags->run_for,
                  "Stop cleanly after this long, e.g. 10m (a re-visiting crawl runs until then)");
  cmd->add_flag("--revisit", flags->revisit,
                "Keep the pages fresh: re-visit each one when the re-visit policy says");
  cmd->add_option("--revisit-policy", flags->revisit_policy,
                  "optimal (default), uniform, proportional, fixed, nutch, stormcrawler, step, "
                  "bayes-published, bayes-corrected");
  cmd->add_option("--revisit-budget", flags->revisit_budget,
                  "Re-visits the collection may spend, e.g. 5/s, 20/h, 1000/d");
  cmd->add_option("--revisit-min-interval", flags->revisit_min_interval,
                  "No page re-visited sooner than this (default 1m)");
  cmd->add_option("--revisit-max-interval", flags->revisit_max_interval,
                  "Every page re-visited at least this often (default 720h)");
  cmd->add_option("--revisit-min-visits", flags->revisit_min_visits,
                  "optimal: every page at least this often, e.g. 1/d (exploration; default 0)");
  cmd->add_option("--revisit-tune-interval", flags->revisit_tune_interval,
                  "How often the re-visit policy is re-tuned (default 10s)");
  cmd->add_option("--max-attempts", flags->max_attempts,
                  "Fetches per URL at most when they fail transiently (default 3)");
  cmd->add_option("--retry-backoff", flags->retry_backoff,
                  "Wait before the first retry, doubling after each (default 1m)");
  cmd->add_option("--retry-backoff-max", flags->retry_backoff_max,
                  "Longest wait between retries (default 1h)");
  cmd->add_option("--robots-retry-after", flags->robots_retry_after,
                  "An unreachable robots.txt is fetched again after this (default 30m)");
  cmd->add_option("--change-threshold-bits", flags->change_threshold_bits,
                  "SimHash bits that make a re-visit count as a change (default 7)");
  cmd->callback([flags, exit_code] { *exit_code = RunCrawl(*flags); });
}

}  // namespace crawler::cli
