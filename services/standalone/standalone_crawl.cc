#include "services/standalone/standalone_crawl.h"

#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "lib/json/json_string.h"
#include "lib/net/address_policy.h"
#include "lib/politeness/in_process_politeness.h"
#include "lib/warc/warc_writer.h"
#include "services/common/rocksdb/rocksdb_kv_store.h"
#include "services/dedup/dedup.h"
#include "services/dedup/local_dedup_client.h"
#include "services/fetcher/fetcher.h"
#include "services/fetcher/resolver.h"
#include "services/frontier/frontier.h"
#include "services/frontier/local_frontier_client.h"
#include "services/scheduler/scheduler.h"

namespace crawler::standalone {

size_t LeaseAheadPerHost(const politeness::PolitenessOptions& politeness, absl::Duration refill) {
  const size_t connections = static_cast<size_t>(std::max(1, politeness.max_connections_per_host));
  const absl::Duration per_url = std::max(politeness.min_delay, absl::Milliseconds(5));
  // The URLs in flight, plus those the host takes while the refill is on its way.
  const auto rounds = static_cast<size_t>(1 + std::ceil(absl::FDivDuration(refill, per_url)));
  return std::clamp(connections * rounds, std::max<size_t>(4, connections),
                    std::max<size_t>(64, connections));
}

size_t BufferedTasksFor(size_t lease_ahead, size_t max_in_flight, int max_connections_per_host) {
  const size_t connections = static_cast<size_t>(std::max(1, max_connections_per_host));
  const size_t busy_hosts = (max_in_flight + connections - 1) / connections;
  return std::clamp(busy_hosts * lease_ahead, fetcher::FetcherOptions{}.max_buffered_tasks,
                    size_t{1} << 16);
}

struct StandaloneCrawl::Parts {
  CrawlConfig config;
  const Clock* clock = nullptr;
  std::unique_ptr<kv::RocksDbKvStore> store;
  std::unique_ptr<frontier::Frontier> frontier;
  std::unique_ptr<frontier::LocalFrontierClient> frontier_client;
  std::unique_ptr<dedup::Dedup> dedup;
  std::unique_ptr<dedup::LocalDedupClient> dedup_client;
  std::unique_ptr<scheduler::Scheduler> scheduler;
  std::unique_ptr<politeness::InProcessPoliteness> politeness;
  std::unique_ptr<fetcher::SystemResolver> resolver;
  std::unique_ptr<net::AddressPolicy> guard;
  std::unique_ptr<warc::WarcWriter> warc;
  std::unique_ptr<CrawlLog> log;
  CrawlStats stats;
  ObserverList observers;
  std::unique_ptr<fetcher::Fetcher> fetcher;
  absl::Notification done;
  std::atomic<bool> stopped_by_run_for{false};
};

StandaloneCrawl::StandaloneCrawl(std::unique_ptr<Parts> parts) : parts_(std::move(parts)) {}
StandaloneCrawl::~StandaloneCrawl() = default;

absl::StatusOr<std::unique_ptr<StandaloneCrawl>> StandaloneCrawl::Open(CrawlConfig config,
                                                                       const Clock& clock) {
  if (absl::Status s = config.Finalize(); !s.ok()) return s;
  auto p = std::make_unique<Parts>();
  p->config = std::move(config);
  p->clock = &clock;
  const CrawlConfig& c = p->config;

  std::error_code ec;
  std::filesystem::create_directories(c.data_dir, ec);
  if (ec) {
    return absl::UnavailableError(
        absl::StrCat("cannot create data directory ", c.data_dir, ": ", ec.message()));
  }

  std::vector<kv::ColumnFamilySpec> families = frontier::Frontier::ColumnFamilies();
  for (kv::ColumnFamilySpec& cf : dedup::Dedup::ColumnFamilies()) families.push_back(cf);
  absl::StatusOr<std::unique_ptr<kv::RocksDbKvStore>> store = kv::RocksDbKvStore::Open(
      {.path = (std::filesystem::path(c.data_dir) / "state").string()}, families);
  if (!store.ok()) return store.status();
  p->store = *std::move(store);

  frontier::FrontierOptions frontier_options;
  frontier_options.max_pages_total = c.collection.limits.max_pages;
  frontier_options.max_pages_per_host = c.collection.limits.max_pages_per_host;
  frontier_options.revisit = c.collection.revisit.options;
  frontier_options.max_attempts = c.max_attempts;
  frontier_options.retry_backoff_initial = c.retry_backoff;
  frontier_options.retry_backoff_max = c.retry_backoff_max;
  // The fetcher's politeness decides real spacing; the frontier only bounds how many URLs of a
  // host are out at once.
  fetcher::FetcherOptions fo;
  const size_t lease_ahead = LeaseAheadPerHost(c.collection.politeness, 2 * fo.flush_interval);
  frontier_options.max_in_flight_per_host = static_cast<uint32_t>(lease_ahead);
  absl::StatusOr<std::unique_ptr<frontier::Frontier>> frontier =
      frontier::Frontier::Open(frontier_options, *p->store, clock);
  if (!frontier.ok()) return frontier.status();
  p->frontier = *std::move(frontier);
  p->frontier_client = std::make_unique<frontier::LocalFrontierClient>(*p->frontier);

  if (c.collection.fingerprints) {
    absl::StatusOr<std::unique_ptr<dedup::Dedup>> dedup = dedup::Dedup::Open({}, *p->store);
    if (!dedup.ok()) return dedup.status();
    p->dedup = *std::move(dedup);
    p->dedup_client = std::make_unique<dedup::LocalDedupClient>(*p->dedup);
  }

  const url::CanonicalizeOptions canonical;
  absl::StatusOr<std::unique_ptr<scheduler::Scheduler>> scheduler =
      scheduler::Scheduler::Create(c.collection, canonical);
  if (!scheduler.ok()) return scheduler.status();
  p->scheduler = *std::move(scheduler);

  std::random_device entropy;
  const uint64_t seed = (static_cast<uint64_t>(entropy()) << 32) ^ entropy();
  p->politeness =
      std::make_unique<politeness::InProcessPoliteness>(c.collection.politeness, clock, seed);
  p->resolver = std::make_unique<fetcher::SystemResolver>();
  absl::StatusOr<net::AddressPolicy> guard = net::AddressPolicy::Create(c.allow_networks);
  if (!guard.ok()) return guard.status();
  p->guard = std::make_unique<net::AddressPolicy>(*std::move(guard));

  if (c.collection.store_bodies) {
    absl::StatusOr<std::unique_ptr<warc::WarcWriter>> warc =
        warc::WarcWriter::Open({.directory = c.warc_dir,
                                .prefix = c.collection.name,
                                .max_file_bytes = c.warc_max_file_bytes,
                                .description = absl::StrCat("collection ", c.collection.name),
                                .http_header_user_agent = c.user_agent,
                                .robots_policy = c.obey_robots ? "obey" : "ignore"},
                               clock, seed ^ 0x9E3779B97F4A7C15ull);
    if (!warc.ok()) return warc.status();
    p->warc = *std::move(warc);
  }
  absl::StatusOr<std::unique_ptr<CrawlLog>> log = CrawlLog::Open(c.crawl_log);
  if (!log.ok()) return log.status();
  p->log = *std::move(log);
  p->observers.Add(p->log.get());
  p->observers.Add(&p->stats);

  fo.http.user_agent = c.user_agent;
  fo.http.total_timeout = c.timeout;
  fo.http.max_body_bytes = c.max_body_bytes;
  fo.http.connect_to = c.connect_to;
  // The request head as sent is only kept for WARC request records.
  fo.http.capture_request = c.collection.store_bodies;
  fo.robots_agent = RobotsProductToken(c.user_agent);
  fo.obey_robots = c.obey_robots;
  fo.robots_policy.unreachable_retry_after = c.robots_retry_after;
  fo.queue_robots_sitemaps = c.queue_sitemaps;
  fo.max_in_flight = c.max_in_flight;
  fo.lease_max_per_host = lease_ahead;
  fo.max_buffered_tasks = BufferedTasksFor(lease_ahead, c.max_in_flight,
                                           c.collection.politeness.max_connections_per_host);
  fo.worker_threads = c.workers;
  fo.processing.follow_embeds = c.follow_embeds;
  fo.processing.store_content_types = c.collection.store_content_types;
  fo.processing.fingerprints = c.collection.fingerprints;
  absl::StatusOr<std::unique_ptr<fetcher::Fetcher>> f = fetcher::Fetcher::Create(
      fo, *p->frontier_client, p->dedup_client.get(), *p->politeness, *p->resolver, *p->guard,
      p->scheduler->scope(), p->warc.get(), clock, &p->observers);
  if (!f.ok()) return f.status();
  p->fetcher = *std::move(f);
  return std::unique_ptr<StandaloneCrawl>(new StandaloneCrawl(std::move(p)));
}

void StandaloneCrawl::Stop() { parts_->fetcher->Stop(); }

absl::StatusOr<CrawlTotals> StandaloneCrawl::Run() {
  Parts& p = *parts_;
  const absl::Time start = p.clock->Now();
  absl::StatusOr<scheduler::SeedReport> seeds = p.scheduler->FeedSeeds(*p.frontier_client);
  if (!seeds.ok()) return seeds.status();
  for (const std::string& rejected : seeds->rejected) {
    std::fprintf(stderr, "seed out of scope: %s\n", rejected.c_str());
  }
  std::fprintf(stderr, "crawl: %zu seeds (%zu new), data in %s\n", seeds->seeds, seeds->queued,
               p.config.data_dir.c_str());

  const bool revisiting = p.config.collection.revisit.options.enabled;
  const std::vector<frontier::FrontierClient*> partitions = {p.frontier_client.get()};
  // The latest re-tuning of the re-visit policy, for progress lines (housekeeping thread only).
  std::optional<scheduler::RevisitTuning> tuning;
  if (revisiting) {
    // Before any re-visit is decided, so first visits get the budget's uniform interval.
    absl::StatusOr<scheduler::RevisitTuning> tuned = p.scheduler->TuneRevisits(partitions);
    if (!tuned.ok()) return tuned.status();
    tuning = *tuned;
  }

  // Housekeeping until the fetcher returns: lease expiry, re-tuning the re-visit policy, the
  // run_for limit, progress lines.
  std::thread housekeeping([&p, &tuning, &partitions, start, revisiting] {
    pthread_setname_np(pthread_self(), "crawl-house");
    absl::Time last_progress = start;
    absl::Time last_tuning = start;
    uint64_t last_pages = 0;
    uint64_t known_at_tuning = p.frontier->Stats().seen_urls;
    bool stopping = false;
    // A short tick: while the crawl discovers pages the fleet grows fast, and re-visits decided
    // with a stale fleet size would be spaced for the wrong number of pages.
    while (!p.done.WaitForNotificationWithTimeout(absl::Milliseconds(250))) {
      p.frontier->ExpireLeases().IgnoreError();
      const absl::Time now = p.clock->Now();
      if (!stopping && now - start >= p.config.run_for) {
        std::fprintf(stderr, "crawl: run time %s reached, finishing transfers in flight\n",
                     absl::FormatDuration(p.config.run_for).c_str());
        p.stopped_by_run_for = true;
        p.fetcher->Stop();
        stopping = true;
      }
      const uint64_t known = revisiting ? p.frontier->Stats().seen_urls : 0;
      if (revisiting && (now - last_tuning >= p.config.revisit_tune_interval ||
                         known > known_at_tuning + known_at_tuning / 10)) {
        known_at_tuning = known;
        absl::StatusOr<scheduler::RevisitTuning> tuned = p.scheduler->TuneRevisits(partitions);
        if (tuned.ok()) {
          tuning = *tuned;
        } else {
          std::fprintf(stderr, "crawl: re-tuning the re-visit policy failed: %s\n",
                       std::string(tuned.status().message()).c_str());
        }
        last_tuning = now;
      }
      if (p.config.progress_interval <= absl::ZeroDuration() ||
          now - last_progress < p.config.progress_interval) {
        continue;
      }
      const CrawlTotals t = p.stats.Totals();
      const frontier::FrontierStats fs = p.frontier->Stats();
      const fetcher::FetcherStats fe = p.fetcher->Stats();
      const double rate = static_cast<double>(t.pages - last_pages) /
                          std::max(1e-9, absl::ToDoubleSeconds(now - last_progress));
      std::fprintf(stderr,
                   "[%s] pages %llu (%.1f/s)  queued %llu  waiting %llu  in flight %llu  "
                   "errors %llu  duplicates %llu  robots-denied %llu\n",
                   absl::FormatDuration(absl::Trunc(now - start, absl::Seconds(1))).c_str(),
                   static_cast<unsigned long long>(t.pages), rate,
                   static_cast<unsigned long long>(fs.queued_urls),
                   static_cast<unsigned long long>(fs.waiting_urls),
                   static_cast<unsigned long long>(fe.in_flight),
                   static_cast<unsigned long long>(t.errors),
                   static_cast<unsigned long long>(t.duplicates),
                   static_cast<unsigned long long>(t.robots_denied));
      if (revisiting && tuning.has_value()) {
        std::fprintf(stderr,
                     "  revisits: pages %.0f  re-visits %llu  changes seen %llu  observed rate "
                     "%.3g/d  budget %.3g/d  mu %s  expected freshness %s\n",
                     tuning->pages, static_cast<unsigned long long>(fs.revisits_scheduled),
                     static_cast<unsigned long long>(fs.changes_detected),
                     tuning->observed_rate_per_day, tuning->budget_visits_per_day,
                     tuning->mu.has_value() ? absl::StrFormat("%.3g", *tuning->mu).c_str() : "-",
                     tuning->expected_freshness.has_value()
                         ? absl::StrFormat("%.3f", *tuning->expected_freshness).c_str()
                         : "-");
      }
      last_progress = now;
      last_pages = t.pages;
    }
  });
  absl::Status status = p.fetcher->Run();
  p.done.Notify();
  housekeeping.join();
  if (p.warc != nullptr) {
    absl::Status closed = p.warc->Close();
    if (status.ok()) status = closed;
  }
  const CrawlTotals totals = p.stats.Totals();
  const absl::Duration elapsed = p.clock->Now() - start;
  if (!p.config.stats_json.empty()) {
    std::vector<std::string> files;
    if (p.warc != nullptr) {
      for (const std::string& f : p.warc->Files()) files.push_back(json::JsonString(f));
    }
    const frontier::FrontierStats fs = p.frontier->Stats();
    const std::string extra = absl::StrCat(
        "\"complete\": ", p.frontier->IsExhausted() ? "true" : "false",
        ",\n  \"queued\": ", fs.queued_urls + fs.waiting_urls, ",\n  \"seen_urls\": ", fs.seen_urls,
        ",\n  \"warc_records\": ", p.warc != nullptr ? p.warc->RecordsWritten() : 0,
        ",\n  \"warc_files\": [", absl::StrJoin(files, ", "), "]",
        ",\n  \"stopped_by_run_for\": ", p.stopped_by_run_for ? "true" : "false",
        ",\n  \"revisits_scheduled\": ", fs.revisits_scheduled,
        ",\n  \"changes_detected\": ", fs.changes_detected);
    std::ofstream out(p.config.stats_json);
    out << SummaryJson(totals, elapsed, extra);
    if (!out) {
      return absl::UnavailableError(absl::StrCat("cannot write ", p.config.stats_json));
    }
  }
  if (!status.ok()) return status;
  return totals;
}

}  // namespace crawler::standalone
