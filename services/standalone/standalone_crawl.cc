#include "services/standalone/standalone_crawl.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "lib/json/json_string.h"
#include "lib/net/address_policy.h"
#include "lib/warc/warc_writer.h"
#include "services/common/free_space_guard.h"
#include "services/common/metrics/metrics_server.h"
#include "services/common/metrics/snapshot_collector.h"
#include "services/common/periodic_runner.h"
#include "services/common/redis/politeness_store.h"
#include "services/common/rocksdb/rocksdb_kv_store.h"
#include "services/dedup/dedup.h"
#include "services/dedup/local_dedup_client.h"
#include "services/fetcher/archive_indexer.h"
#include "services/fetcher/fetcher.h"
#include "services/fetcher/fetcher_metrics.h"
#include "services/fetcher/link_ledger.h"
#include "services/fetcher/resolver.h"
#include "services/frontier/frontier.h"
#include "services/frontier/frontier_metrics.h"
#include "services/frontier/lease_reaper.h"
#include "services/frontier/local_frontier_client.h"
#include "services/frontier/routed_frontier_client.h"
#include "services/scheduler/revisit_tuner.h"
#include "services/scheduler/scheduler.h"
#include "services/scheduler/scheduler_metrics.h"
#include "services/standalone/progress_reporter.h"
#include "services/wiring/collection_options.h"

namespace crawler::standalone {
namespace {

// An exclusive flock(2) on <data_dir>/crawl.lock for the crawl's lifetime, so that a second
// crawl of the same data dir is told so plainly (rather than by RocksDB's lock error), with the
// holder's pid.
class DataDirLock {
 public:
  static absl::StatusOr<std::unique_ptr<DataDirLock>> Acquire(const std::string& data_dir) {
    const std::string path = (std::filesystem::path(data_dir) / "crawl.lock").string();
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
      return absl::UnavailableError(absl::StrCat("cannot open ", path, ": ", std::strerror(errno)));
    }
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      char pid[32] = {};
      const ssize_t n = ::pread(fd, pid, sizeof pid - 1, 0);
      ::close(fd);
      const std::string holder(pid, n > 0 ? static_cast<size_t>(n) : 0);
      return absl::UnavailableError(absl::StrCat(
          "data dir ", data_dir, " is in use by another crawl",
          holder.empty() ? "" : absl::StrCat(" (pid ", absl::StripAsciiWhitespace(holder), ")"),
          "; wait for it to end or stop it, or give this crawl another --data-dir"));
    }
    const std::string pid = absl::StrCat(::getpid(), "\n");
    if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, pid.data(), pid.size(), 0) < 0) {
      // The pid only makes the message friendlier; the lock is what counts.
    }
    return std::unique_ptr<DataDirLock>(new DataDirLock(fd));
  }
  ~DataDirLock() { ::close(fd_); }
  DataDirLock(const DataDirLock&) = delete;
  DataDirLock& operator=(const DataDirLock&) = delete;

 private:
  explicit DataDirLock(int fd) : fd_(fd) {}
  const int fd_;
};

}  // namespace

struct StandaloneCrawl::Parts {
  // First member: released last, after every store is closed.
  std::unique_ptr<DataDirLock> lock;
  CrawlConfig config;
  const Clock* clock = nullptr;
  // Per partition k: its store (<data_dir>/state, which also holds the content index, for
  // k = 0; <data_dir>/state-k beyond), its frontier core and a client of it.
  std::vector<std::unique_ptr<kv::RocksDbKvStore>> stores;
  std::vector<std::unique_ptr<frontier::Frontier>> frontiers;
  std::vector<std::unique_ptr<frontier::LocalFrontierClient>> locals;
  std::unique_ptr<dedup::Dedup> dedup;
  std::unique_ptr<dedup::LocalDedupClient> dedup_client;
  std::unique_ptr<scheduler::Scheduler> scheduler;
  std::unique_ptr<politeness::Politeness> politeness;
  std::unique_ptr<fetcher::SystemResolver> resolver;
  std::unique_ptr<net::AddressPolicy> guard;
  std::unique_ptr<warc::WarcWriter> warc;
  std::unique_ptr<CrawlLog> log;
  // Every page's links (record_links or focus): <data_dir>/links.tsv; the PSL it classifies by.
  std::unique_ptr<url::PublicSuffixList> psl;
  std::unique_ptr<fetcher::LinkLedger> links;
  CrawlStats stats;
  std::unique_ptr<fetcher::FetcherMetrics> fetcher_metrics;  // with a metrics server
  // Run's re-visit tuner while it lives (null otherwise), for the metrics' tuning gauges.
  absl::Mutex tuner_mu;
  const scheduler::RevisitTuner* tuner ABSL_GUARDED_BY(tuner_mu) = nullptr;
  ObserverList observers;
  // routers[k] is fetcher k's view of the frontier: its own partition for leases and
  // completions, every partition for outlinks. routers.back() (home 0) feeds the seeds.
  std::vector<std::unique_ptr<frontier::RoutedFrontierClient>> routers;
  std::vector<std::unique_ptr<fetcher::Fetcher>> fetchers;
  // With a metrics server: the collector reading the parts above when scraped (last member: it
  // stops being served before those parts go).
  metrics::ScopedCollector collector;

  frontier::RoutedFrontierClient& seed_client() { return *routers.back(); }
  std::vector<prometheus::MetricFamily> CollectMetrics();
  void StopFetchers() {
    for (auto& f : fetchers) f->Stop();
  }
  // `refusal`: why every seed was refused (AllSeedsRefused), or empty.
  absl::Status WriteSummary(const std::string& path, const CrawlTotals& totals,
                            absl::Duration elapsed, bool stopped_by_run_for,
                            const std::string& refusal);
  // The partitions' figures summed (local cores: cannot fail).
  frontier::FrontierStats FrontierTotals() {
    return seed_client().Stats().value_or(frontier::FrontierStats{});
  }
};

namespace {

frontier::FrontierOptions FrontierOptionsFor(const CrawlConfig& c, uint32_t k) {
  frontier::FrontierOptions options = wiring::FrontierOptionsFor(
      c.frontier, c.collection, k, static_cast<uint32_t>(c.partitions),
      wiring::RefillTime(c.fetcher.flush_interval));
  options.sync_completions = c.fsync;
  return options;
}

fetcher::FetcherOptions FetcherOptionsFor(const CrawlConfig& c, uint32_t k,
                                          fetcher::LinkSink* links) {
  const auto n = static_cast<size_t>(c.partitions);
  fetcher::FetcherOptions base = c.fetcher;
  // The partitions' fetchers share the process's transfers and worker threads.
  base.max_in_flight = std::max<size_t>(1, c.fetcher.max_in_flight / n);
  base.worker_threads = std::max(1, c.fetcher.worker_threads / static_cast<int>(n));
  // ... and the memory budget of bodies (each fetcher still needs room for one whole body).
  base.http.body_memory_bytes =
      std::max(c.fetcher.http.max_body_bytes, c.fetcher.http.body_memory_bytes / n);
  fetcher::FetcherOptions options = wiring::FetcherOptionsFor(
      base, c.collection, c.user_agent, c.partition_header ? static_cast<int>(k) : -1);
  options.processing.link_sink = links;
  return options;
}

// A data dir keeps the partition count it was started with: a host's URLs live in the store of
// the partition that owned it, and moving them (resharding) is not supported.
absl::Status CheckPartitionCount(const std::filesystem::path& data_dir, int partitions) {
  const std::filesystem::path file = data_dir / "partitions";
  std::error_code ec;
  if (std::filesystem::exists(file, ec)) {
    std::ifstream in(file);
    int recorded = 0;
    if (!(in >> recorded) || recorded < 1) {
      return absl::DataLossError(absl::StrCat("cannot read the partition count in ", file.string()));
    }
    if (recorded != partitions) {
      return absl::FailedPreconditionError(absl::StrCat(
          "data dir ", data_dir.string(), " was crawled with ", recorded,
          " partition(s); resume it with --partitions ", recorded,
          " (changing the count of an existing crawl is not supported)"));
    }
    return absl::OkStatus();
  }
  // A data dir from before the count was recorded (or a new one) holds one partition.
  if (partitions != 1 && std::filesystem::exists(data_dir / "state", ec)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "data dir ", data_dir.string(), " was crawled with 1 partition; resume it without "
        "--partitions (changing the count of an existing crawl is not supported)"));
  }
  std::ofstream out(file);
  out << partitions << "\n";
  if (!out) return absl::UnavailableError(absl::StrCat("cannot write ", file.string()));
  return absl::OkStatus();
}

// A data dir is new (absent, or holding only what a crawl writes there), or holds a crawl (its
// state/ directory or partitions file). Any other directory is someone else's, refused before
// anything is written into it (the lock file included).
absl::Status CheckDataDirIsACrawl(const CrawlConfig& c) {
  const std::filesystem::path dir(c.data_dir);
  std::error_code ec;
  if (std::filesystem::exists(dir / "state", ec) || std::filesystem::exists(dir / "partitions", ec)) {
    return absl::OkStatus();
  }
  std::vector<std::string> own = {"crawl.lock", "warc", "crawl.log", "lost+found"};
  for (const std::string& configured : {c.warc_dir, c.crawl_log, c.stats_json}) {
    const std::filesystem::path path(configured);
    if (!configured.empty() && std::filesystem::equivalent(path.parent_path(), dir, ec)) {
      own.push_back(path.filename().string());
    }
  }
  std::filesystem::directory_iterator it(dir, ec);
  if (ec) return absl::OkStatus();  // absent (created below) or unreadable (the lock says why)
  for (const std::filesystem::directory_entry& entry : it) {
    const std::string name = entry.path().filename().string();
    if (std::find(own.begin(), own.end(), name) == own.end()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "data dir ", c.data_dir, " holds files but no crawl (e.g. \"", name,
          "\"); give a new or empty directory, or the data dir of an earlier crawl to resume it"));
    }
  }
  return absl::OkStatus();
}

// When this run fetched nothing because every seed it was given was refused -- out of the
// collection's scope, or its address refused by the SSRF guard -- says so and why, in one line;
// else "". (A resumed crawl whose seeds are all known already refused nothing.)
std::string AllSeedsRefused(const scheduler::SeedReport& seeds, const CrawlTotals& totals) {
  const auto out = totals.outcomes.find("out_of_scope");
  const uint64_t out_of_scope = out == totals.outcomes.end() ? 0 : out->second;
  if (seeds.seeds == 0 || totals.fetches > 0 || totals.outcomes.size() != (out_of_scope > 0) ||
      seeds.rejected.size() + out_of_scope == 0) {
    return "";
  }
  std::vector<std::string> reasons;
  if (totals.address_refused > 0) {
    reasons.push_back(absl::StrCat(totals.address_refused, " by the SSRF guard (",
                                   totals.first_address_refusal,
                                   "; --allow-network lets a network through)"));
  }
  if (const uint64_t other = out_of_scope - totals.address_refused; other > 0) {
    reasons.push_back(absl::StrCat(other, " out of scope when fetched"));
  }
  if (!seeds.rejected.empty()) {
    reasons.push_back(absl::StrCat(seeds.rejected.size(), " out of the collection's scope (",
                                   seeds.rejected.front(), ")"));
  }
  return absl::StrCat("nothing crawled: every seed was refused: ", absl::StrJoin(reasons, "; "));
}

}  // namespace

// The stats_json summary: the totals, the partitions' state at the end, the WARC files and the
// exchange between partitions (DESIGN.md §4): outlinks the fetchers routed, those sent to
// another partition than their own, and those the popular-URL cache dropped.
absl::Status StandaloneCrawl::Parts::WriteSummary(const std::string& path,
                                                  const CrawlTotals& totals,
                                                  absl::Duration elapsed,
                                                  bool stopped_by_run_for,
                                                  const std::string& refusal) {
  Parts& p = *this;
  std::vector<std::string> files;
  if (p.warc != nullptr) {
    for (const std::string& f : p.warc->Files()) files.push_back(json::JsonString(f));
  }
  const frontier::FrontierStats fs = p.FrontierTotals();
  uint64_t routed = 0, exchanged = 0, suppressed = 0;
  for (size_t k = 0; k < p.fetchers.size(); ++k) {
    const frontier::RoutingStats r = p.routers[k]->Routing();
    routed += r.routed;
    suppressed += r.suppressed;
    for (size_t j = 0; j < r.sent.size(); ++j) {
      if (j != r.home) exchanged += r.sent[j];
    }
  }
  const politeness::PolitenessStats ps = p.politeness->Stats();
  double prior_mean_rate_per_day = 0;  // 0: the estimators used the Gamma prior at the end
  {
    absl::MutexLock tuner_lock(&p.tuner_mu);
    if (p.tuner != nullptr) {
      if (std::optional<scheduler::RevisitTuning> t = p.tuner->latest(); t.has_value()) {
        prior_mean_rate_per_day = t->prior_mean_rate_per_day.value_or(0);
      }
    }
  }
  const std::string extra = absl::StrCat(
      "\"complete\": ", p.seed_client().IsExhausted().value_or(false) ? "true" : "false",
      ",\n  \"queued\": ", fs.queued_urls + fs.waiting_urls, ",\n  \"seen_urls\": ", fs.seen_urls,
      ",\n  \"urls_rejected_by_limit\": ", fs.urls_rejected_by_limit,
      ",\n  \"warc_records\": ", p.warc != nullptr ? p.warc->RecordsWritten() : 0,
      ",\n  \"warc_files\": [", absl::StrJoin(files, ", "), "]",
      ",\n  \"stopped_by_run_for\": ", stopped_by_run_for ? "true" : "false",
      ",\n  \"revisits_scheduled\": ", fs.revisits_scheduled,
      ",\n  \"changes_detected\": ", fs.changes_detected,
      ",\n  \"revisits_waited\": ", fs.revisits_waited,
      ",\n  \"revisit_wait_seconds\": ", fs.revisit_wait_seconds,
      ",\n  \"revisit_budget_visits_per_day\": ", fs.revisit_budget_visits_per_day,
      ",\n  \"revisits_completed\": ", fs.revisits_completed,
      ",\n  \"revisit_spend_visits_per_day\": ", fs.revisit_spend_visits_per_day,
      ",\n  \"revisit_prior_mean_rate_per_day\": ", prior_mean_rate_per_day,
      ",\n  \"partitions\": ", p.config.partitions,
      ",\n  \"outlinks_routed\": ", routed,
      ",\n  \"outlinks_exchanged\": ", exchanged,
      ",\n  \"outlinks_suppressed\": ", suppressed,
      ",\n  \"address_refused\": ", totals.address_refused,
      ",\n  \"politeness\": {\"store\": ", json::JsonString(p.config.politeness_store.politeness),
      ", \"claims\": ", ps.claims, ", \"granted\": ", ps.granted, ", \"releases\": ", ps.releases,
      ", \"round_trips\": ", ps.round_trips, ", \"unavailable\": ", ps.unavailable,
      ", \"outages\": ", ps.outages, "}",
      ",\n  \"focus\": {\"pulls\": ", fs.focus_pulls, ", \"reward\": ", fs.focus_reward,
      ", \"rebuilds\": ", fs.focus_rebuilds, ", \"external_links_seen\": ",
      p.links != nullptr ? p.links->external_links_seen() : 0, ", \"link_write_failures\": ",
      p.links != nullptr ? p.links->write_failures() : 0, "}",
      ",\n  \"all_seeds_refused\": ", refusal.empty() ? "false" : "true",
      refusal.empty() ? "" : absl::StrCat(",\n  \"refusal\": ", json::JsonString(refusal)));
  std::ofstream out(path);
  out << SummaryJson(totals, elapsed, extra);
  if (!out) return absl::UnavailableError(absl::StrCat("cannot write ", path));
  return absl::OkStatus();
}

StandaloneCrawl::StandaloneCrawl(std::unique_ptr<Parts> parts) : parts_(std::move(parts)) {}
StandaloneCrawl::~StandaloneCrawl() = default;

// The crawl's metrics read when scraped: the same names as the fetcher and frontier services'.
std::vector<prometheus::MetricFamily> StandaloneCrawl::Parts::CollectMetrics() {
  Parts& p = *this;
  metrics::SnapshotFamilies out;
  fetcher::FetcherSnapshot f;
  for (auto& fetcher : p.fetchers) fetcher::AddFetcherStats(fetcher->Stats(), f.fetcher);
  f.politeness = p.politeness->Stats();
  if (p.warc != nullptr) {
    f.warc.push_back({.collection = p.config.collection.name,
                      .records = p.warc->RecordsWritten(),
                      .bytes = p.warc->BytesWritten()});
  }
  if (p.config.partitions > 1) {
    frontier::RoutingStats routing;
    for (size_t k = 0; k + 1 < p.routers.size(); ++k) {
      // Each fetcher's router: its own partition is "local", the others "sent".
      const frontier::RoutingStats r = p.routers[k]->Routing();
      routing.suppressed += r.suppressed;
      routing.sent.resize(2);
      for (size_t d = 0; d < r.sent.size(); ++d) routing.sent[d == r.home ? 0 : 1] += r.sent[d];
    }
    routing.home = 0;
    f.routing = routing;
  }
  fetcher::AppendFetcherSnapshot(f, out);
  std::vector<frontier::PartitionFigures> partitions;
  for (size_t k = 0; k < p.frontiers.size(); ++k) {
    partitions.push_back({.collection = p.config.collection.name,
                          .partition = static_cast<uint32_t>(k),
                          .stats = p.frontiers[k]->Stats()});
  }
  frontier::AppendFrontierSnapshot(partitions, p.config.data_dir, out);
  std::vector<scheduler::CollectionTuning> tunings;
  {
    absl::MutexLock tuner_lock(&p.tuner_mu);
    if (p.tuner != nullptr) {
      if (std::optional<scheduler::RevisitTuning> t = p.tuner->latest(); t.has_value()) {
        tunings.push_back({.collection = p.config.collection.name, .tuning = *std::move(t)});
      }
    }
  }
  scheduler::AppendRevisitMetrics(tunings, out);
  return out.Take();
}

absl::StatusOr<std::unique_ptr<StandaloneCrawl>> StandaloneCrawl::Open(
    CrawlConfig config, const Clock& clock, metrics::MetricsServer* metrics) {
  if (absl::Status s = config.Finalize(); !s.ok()) return s;
  auto p = std::make_unique<Parts>();
  p->config = std::move(config);
  p->clock = &clock;
  const CrawlConfig& c = p->config;
  const auto n = static_cast<uint32_t>(c.partitions);

  if (absl::Status s = CheckDataDirIsACrawl(c); !s.ok()) return s;

  std::random_device entropy;
  const uint64_t seed = (static_cast<uint64_t>(entropy()) << 32) ^ entropy();
  // One politeness state for every partition's fetcher: hosts are partitioned, but hosts of
  // different partitions can share an address, whose budget they share. Opened before anything
  // is written, so that a crawl whose politeness store cannot be reached leaves nothing behind.
  absl::StatusOr<std::unique_ptr<politeness::Politeness>> politeness =
      redis::OpenPolitenessStore(c.politeness_store, c.collection.politeness,
                                 c.fetcher.http.total_timeout, clock, seed);
  if (!politeness.ok()) return politeness.status();
  p->politeness = *std::move(politeness);

  std::error_code ec;
  std::filesystem::create_directories(c.data_dir, ec);
  if (ec) {
    return absl::UnavailableError(
        absl::StrCat("cannot create data directory ", c.data_dir, ": ", ec.message()));
  }
  absl::StatusOr<std::unique_ptr<DataDirLock>> lock = DataDirLock::Acquire(c.data_dir);
  if (!lock.ok()) return lock.status();
  p->lock = *std::move(lock);
  if (absl::Status s = CheckPartitionCount(c.data_dir, c.partitions); !s.ok()) return s;

  for (uint32_t k = 0; k < n; ++k) {
    std::vector<kv::ColumnFamilySpec> families = frontier::Frontier::ColumnFamilies();
    if (k == 0) {
      for (kv::ColumnFamilySpec& cf : dedup::Dedup::ColumnFamilies()) families.push_back(cf);
    }
    const std::string dir = k == 0 ? "state" : absl::StrCat("state-", k);
    absl::StatusOr<std::unique_ptr<kv::RocksDbKvStore>> store = kv::RocksDbKvStore::Open(
        {.path = (std::filesystem::path(c.data_dir) / dir).string()}, families);
    if (!store.ok()) return store.status();
    p->stores.push_back(*std::move(store));
    absl::StatusOr<std::unique_ptr<frontier::Frontier>> frontier =
        frontier::Frontier::Open(FrontierOptionsFor(c, k), *p->stores.back(), clock);
    if (!frontier.ok()) return frontier.status();
    for (const std::string& warning : (*frontier)->OpenWarnings()) {
      std::fprintf(stderr, "crawl: %s\n", warning.c_str());
    }
    p->frontiers.push_back(*std::move(frontier));
    p->locals.push_back(std::make_unique<frontier::LocalFrontierClient>(*p->frontiers.back()));
  }

  if (c.collection.fingerprints) {
    absl::StatusOr<std::unique_ptr<dedup::Dedup>> dedup = dedup::Dedup::Open({}, *p->stores[0]);
    if (!dedup.ok()) return dedup.status();
    p->dedup = *std::move(dedup);
    p->dedup_client = std::make_unique<dedup::LocalDedupClient>(*p->dedup);
  }

  const url::CanonicalizeOptions canonical;
  absl::StatusOr<std::unique_ptr<scheduler::Scheduler>> scheduler =
      scheduler::Scheduler::Create(c.collection, canonical);
  if (!scheduler.ok()) return scheduler.status();
  p->scheduler = *std::move(scheduler);

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
                                .robots_policy = c.fetcher.obey_robots ? "obey" : "ignore",
                                .sync = c.fsync},
                               clock, seed ^ 0x9E3779B97F4A7C15ull);
    if (!warc.ok()) return warc.status();
    p->warc = *std::move(warc);
    for (const warc::WarcWriter::Recovered& r : p->warc->recovered()) {
      std::fprintf(stderr, "%s\n", r.Describe().c_str());
    }
  }
  absl::StatusOr<std::unique_ptr<CrawlLog>> log = CrawlLog::Open(c.crawl_log);
  if (!log.ok()) return log.status();
  p->log = *std::move(log);
  p->observers.Add(p->log.get());
  p->observers.Add(&p->stats);
  if (metrics != nullptr) {
    p->fetcher_metrics = std::make_unique<fetcher::FetcherMetrics>(metrics->registry());
    p->observers.Add(&p->fetcher_metrics->ForCollection(c.collection.name));
  }
  if (c.collection.record_links || c.collection.focus.enabled()) {
    const bool by_host = c.collection.focus.external == "host";
    if (!by_host) {
      absl::StatusOr<url::PublicSuffixList> psl = url::PublicSuffixList::LoadDefault();
      if (!psl.ok()) return psl.status();
      p->psl = std::make_unique<url::PublicSuffixList>(*std::move(psl));
    }
    absl::StatusOr<std::unique_ptr<fetcher::LinkLedger>> links = fetcher::LinkLedger::Open(
        (std::filesystem::path(c.data_dir) / "links.tsv").string(), p->psl.get(), by_host);
    if (!links.ok()) return links.status();
    p->links = *std::move(links);
  }

  std::vector<frontier::FrontierClient*> partitions;
  for (auto& local : p->locals) partitions.push_back(local.get());
  for (uint32_t k = 0; k <= n; ++k) {
    absl::StatusOr<std::unique_ptr<frontier::RoutedFrontierClient>> router =
        frontier::RoutedFrontierClient::Create({}, partitions, k == n ? 0 : k);
    if (!router.ok()) return router.status();
    p->routers.push_back(*std::move(router));
  }
  for (uint32_t k = 0; k < n; ++k) {
    absl::StatusOr<std::unique_ptr<fetcher::Fetcher>> f = fetcher::Fetcher::Create(
        FetcherOptionsFor(c, k, p->links.get()), *p->routers[k], p->dedup_client.get(), *p->politeness,
        *p->resolver, *p->guard, p->scheduler->scope(), p->warc.get(), clock, &p->observers);
    if (!f.ok()) return f.status();
    p->fetchers.push_back(*std::move(f));
  }
  p->collector =
      metrics::ScopedCollector(metrics, [parts = p.get()] { return parts->CollectMetrics(); });
  return std::unique_ptr<StandaloneCrawl>(new StandaloneCrawl(std::move(p)));
}

void StandaloneCrawl::Stop() { parts_->StopFetchers(); }

absl::StatusOr<CrawlTotals> StandaloneCrawl::Run() {
  Parts& p = *parts_;
  const absl::Time start = p.clock->Now();
  absl::StatusOr<scheduler::SeedReport> seeds = p.scheduler->FeedSeeds(p.seed_client());
  if (!seeds.ok()) return seeds.status();
  for (const std::string& rejected : seeds->rejected) {
    std::fprintf(stderr, "seed out of scope: %s\n", rejected.c_str());
  }
  std::fprintf(stderr, "crawl: %zu seeds (%zu new), data in %s%s\n", seeds->seeds, seeds->queued,
               p.config.data_dir.c_str(),
               p.config.partitions > 1 ? absl::StrCat(", ", p.config.partitions, " partitions").c_str()
                                       : "");

  // Housekeeping while the fetchers run, in this order on each tick: lease expiry, the run_for
  // limit, re-tuning the re-visit policy, progress lines.
  std::vector<PeriodicJob*> jobs;
  std::vector<frontier::Frontier*> cores;
  std::vector<frontier::FrontierClient*> partitions;
  for (size_t k = 0; k < p.frontiers.size(); ++k) {
    cores.push_back(p.frontiers[k].get());
    partitions.push_back(p.locals[k].get());
  }
  frontier::LeaseReaper reaper({}, cores);
  jobs.push_back(&reaper);
  RunLimit run_limit(p.config.run_for, start, [&p] {
    std::fprintf(stderr, "crawl: run time %s reached, finishing transfers in flight\n",
                 absl::FormatDuration(p.config.run_for).c_str());
    p.StopFetchers();
  });
  jobs.push_back(&run_limit);
  FreeSpaceGuard free_space({.directories = {p.config.data_dir, p.config.warc_dir},
                             .min_free_bytes = p.config.min_free_bytes},
                            [&p](const absl::Status&) {
                              std::fprintf(stderr, "crawl: low on disk space, finishing "
                                                   "transfers in flight\n");
                              p.StopFetchers();
                            });
  // A disk already too full is refused before anything is fetched.
  free_space.Tick(start);
  if (free_space.fired()) return free_space.status();
  jobs.push_back(&free_space);
  // The CDXJ index beside each WARC file the crawl finishes (rotated, or recovered at the
  // start), and beside the last one once it is closed (below).
  fetcher::ArchiveIndexer indexer({.warc_dir = p.config.warc_dir,
                                   .log = [](const std::string& line) {
                                     std::fprintf(stderr, "crawl: %s\n", line.c_str());
                                   }});
  jobs.push_back(&indexer);
  std::optional<scheduler::RevisitTuner> tuner;
  // Hides the tuner from the metrics before it goes (declared after it: destroyed first).
  struct TunerShown {
    Parts& parts;
    ~TunerShown() {
      absl::MutexLock tuner_lock(&parts.tuner_mu);
      parts.tuner = nullptr;
    }
  } tuner_shown{p};
  if (p.config.collection.revisit.options.enabled) {
    tuner.emplace(
        p.config.revisit_tuner, *p.scheduler, partitions,
        [&p] { return p.FrontierTotals().seen_urls; },
        [](const absl::Status& s) {
          std::fprintf(stderr, "crawl: re-tuning the re-visit policy failed: %s\n",
                       std::string(s.message()).c_str());
        });
    if (absl::Status s = tuner->TuneNow(p.clock->Now()); !s.ok()) return s;
    jobs.push_back(&*tuner);
    absl::MutexLock tuner_lock(&p.tuner_mu);
    p.tuner = &*tuner;
  }
  std::optional<ProgressReporter> progress;
  if (p.config.progress.interval > absl::ZeroDuration()) {
    ProgressSources sources{.totals = [&p] { return p.stats.Totals(); },
                            .frontier = [&p] { return p.FrontierTotals(); },
                            .in_flight = [&p] {
                              uint64_t in_flight = 0;
                              for (auto& f : p.fetchers) in_flight += f->Stats().in_flight;
                              return in_flight;
                            }};
    if (tuner.has_value()) sources.tuning = [&tuner] { return tuner->latest(); };
    progress.emplace(p.config.progress, start, std::move(sources), stderr);
    jobs.push_back(&*progress);
  }
  PeriodicRunner housekeeping({.thread_name = "crawl-house"}, *p.clock, std::move(jobs));
  housekeeping.Start();
  // Fetcher 0 runs on this thread, the others on threads of their own. The first to fail stops
  // the rest (a full WARC disk stops every partition alike).
  std::vector<absl::Status> results(p.fetchers.size());
  std::vector<std::thread> threads;
  for (size_t k = 1; k < p.fetchers.size(); ++k) {
    threads.emplace_back([&p, &results, k] {
      pthread_setname_np(pthread_self(), absl::StrCat("fetch-loop-", k).c_str());
      results[k] = p.fetchers[k]->Run();
      if (!results[k].ok()) p.StopFetchers();
    });
  }
  results[0] = p.fetchers[0]->Run();
  if (!results[0].ok()) p.StopFetchers();
  for (std::thread& t : threads) t.join();
  housekeeping.Stop();
  absl::Status status = absl::OkStatus();
  for (const absl::Status& r : results) {
    if (!r.ok()) {
      status = r;
      break;
    }
  }
  if (p.warc != nullptr) {
    absl::Status closed = p.warc->Close();
    if (status.ok()) status = closed;
    indexer.IndexPending();
  }
  if (status.ok()) status = free_space.status();
  const CrawlTotals totals = p.stats.Totals();
  const std::string refusal = status.ok() ? AllSeedsRefused(*seeds, totals) : "";
  if (!p.config.stats_json.empty()) {
    absl::Status written = p.WriteSummary(p.config.stats_json, totals, p.clock->Now() - start,
                                          run_limit.reached(), refusal);
    if (!written.ok()) return written;
  }
  if (!status.ok()) return status;
  if (!refusal.empty()) return absl::FailedPreconditionError(refusal);
  return totals;
}

}  // namespace crawler::standalone
