#include "services/standalone/standalone_crawl.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lib/json/json_string.h"
#include "lib/net/address_policy.h"
#include "lib/politeness/in_process_politeness.h"
#include "lib/warc/warc_writer.h"
#include "services/common/periodic_runner.h"
#include "services/common/rocksdb/rocksdb_kv_store.h"
#include "services/dedup/dedup.h"
#include "services/dedup/dedup_client.h"
#include "services/fetcher/fetcher.h"
#include "services/fetcher/resolver.h"
#include "services/frontier/frontier.h"
#include "services/frontier/frontier_client.h"
#include "services/frontier/lease_reaper.h"
#include "services/scheduler/revisit_tuner.h"
#include "services/scheduler/scheduler.h"
#include "services/standalone/progress_reporter.h"

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
};

namespace {

// URLs of one host on lease at once, for the frontier and the fetcher alike. The fetcher's
// politeness decides real spacing; the frontier only bounds how many URLs of a host are out.
size_t LeaseAhead(const CrawlConfig& c) {
  return LeaseAheadPerHost(c.collection.politeness, 2 * c.fetcher.flush_interval);
}

frontier::FrontierOptions FrontierOptionsFor(const CrawlConfig& c) {
  frontier::FrontierOptions options = c.frontier;
  options.max_pages_total = c.collection.limits.max_pages;
  options.max_pages_per_host = c.collection.limits.max_pages_per_host;
  options.revisit = c.collection.revisit.options;
  options.max_in_flight_per_host = static_cast<uint32_t>(LeaseAhead(c));
  return options;
}

fetcher::FetcherOptions FetcherOptionsFor(const CrawlConfig& c) {
  fetcher::FetcherOptions options = c.fetcher;
  options.http.user_agent = c.user_agent;
  // The request head as sent is only kept for WARC request records.
  options.http.capture_request = c.collection.store_bodies;
  options.robots_agent = RobotsProductToken(c.user_agent);
  options.lease_max_per_host = LeaseAhead(c);
  options.max_buffered_tasks = BufferedTasksFor(options.lease_max_per_host, c.fetcher.max_in_flight,
                                                c.collection.politeness.max_connections_per_host);
  options.processing.store_content_types = c.collection.store_content_types;
  options.processing.fingerprints = c.collection.fingerprints;
  return options;
}

// The stats_json summary: the totals and the frontier's and WARC writer's state at the end.
absl::Status WriteSummary(const std::string& path, const CrawlTotals& totals,
                          absl::Duration elapsed, frontier::Frontier& frontier,
                          warc::WarcWriter* warc, bool stopped_by_run_for) {
  std::vector<std::string> files;
  if (warc != nullptr) {
    for (const std::string& f : warc->Files()) files.push_back(json::JsonString(f));
  }
  const frontier::FrontierStats fs = frontier.Stats();
  const std::string extra = absl::StrCat(
      "\"complete\": ", frontier.IsExhausted() ? "true" : "false",
      ",\n  \"queued\": ", fs.queued_urls + fs.waiting_urls, ",\n  \"seen_urls\": ", fs.seen_urls,
      ",\n  \"warc_records\": ", warc != nullptr ? warc->RecordsWritten() : 0,
      ",\n  \"warc_files\": [", absl::StrJoin(files, ", "), "]",
      ",\n  \"stopped_by_run_for\": ", stopped_by_run_for ? "true" : "false",
      ",\n  \"revisits_scheduled\": ", fs.revisits_scheduled,
      ",\n  \"changes_detected\": ", fs.changes_detected);
  std::ofstream out(path);
  out << SummaryJson(totals, elapsed, extra);
  if (!out) return absl::UnavailableError(absl::StrCat("cannot write ", path));
  return absl::OkStatus();
}

}  // namespace

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

  absl::StatusOr<std::unique_ptr<frontier::Frontier>> frontier =
      frontier::Frontier::Open(FrontierOptionsFor(c), *p->store, clock);
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
                                .robots_policy = c.fetcher.obey_robots ? "obey" : "ignore"},
                               clock, seed ^ 0x9E3779B97F4A7C15ull);
    if (!warc.ok()) return warc.status();
    p->warc = *std::move(warc);
  }
  absl::StatusOr<std::unique_ptr<CrawlLog>> log = CrawlLog::Open(c.crawl_log);
  if (!log.ok()) return log.status();
  p->log = *std::move(log);
  p->observers.Add(p->log.get());
  p->observers.Add(&p->stats);

  absl::StatusOr<std::unique_ptr<fetcher::Fetcher>> f = fetcher::Fetcher::Create(
      FetcherOptionsFor(c), *p->frontier_client, p->dedup_client.get(), *p->politeness,
      *p->resolver, *p->guard, p->scheduler->scope(), p->warc.get(), clock, &p->observers);
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

  // Housekeeping while the fetcher runs, in this order on each tick: lease expiry, the run_for
  // limit, re-tuning the re-visit policy, progress lines.
  std::vector<PeriodicJob*> jobs;
  frontier::LeaseReaper reaper({}, {p.frontier.get()});
  jobs.push_back(&reaper);
  RunLimit run_limit(p.config.run_for, start, [&p] {
    std::fprintf(stderr, "crawl: run time %s reached, finishing transfers in flight\n",
                 absl::FormatDuration(p.config.run_for).c_str());
    p.fetcher->Stop();
  });
  jobs.push_back(&run_limit);
  std::optional<scheduler::RevisitTuner> tuner;
  if (p.config.collection.revisit.options.enabled) {
    tuner.emplace(
        p.config.revisit_tuner, *p.scheduler,
        std::vector<frontier::FrontierClient*>{p.frontier_client.get()},
        [&p] { return p.frontier->Stats().seen_urls; },
        [](const absl::Status& s) {
          std::fprintf(stderr, "crawl: re-tuning the re-visit policy failed: %s\n",
                       std::string(s.message()).c_str());
        });
    if (absl::Status s = tuner->TuneNow(p.clock->Now()); !s.ok()) return s;
    jobs.push_back(&*tuner);
  }
  std::optional<ProgressReporter> progress;
  if (p.config.progress.interval > absl::ZeroDuration()) {
    ProgressSources sources{.totals = [&p] { return p.stats.Totals(); },
                            .frontier = [&p] { return p.frontier->Stats(); },
                            .in_flight = [&p] { return p.fetcher->Stats().in_flight; }};
    if (tuner.has_value()) sources.tuning = [&tuner] { return tuner->latest(); };
    progress.emplace(p.config.progress, start, std::move(sources), stderr);
    jobs.push_back(&*progress);
  }
  PeriodicRunner housekeeping({.thread_name = "crawl-house"}, *p.clock, std::move(jobs));
  housekeeping.Start();
  absl::Status status = p.fetcher->Run();
  housekeeping.Stop();
  if (p.warc != nullptr) {
    absl::Status closed = p.warc->Close();
    if (status.ok()) status = closed;
  }
  const CrawlTotals totals = p.stats.Totals();
  if (!p.config.stats_json.empty()) {
    absl::Status written = WriteSummary(p.config.stats_json, totals, p.clock->Now() - start,
                                        *p.frontier, p.warc.get(), run_limit.reached());
    if (!written.ok()) return written;
  }
  if (!status.ok()) return status;
  return totals;
}

}  // namespace crawler::standalone
