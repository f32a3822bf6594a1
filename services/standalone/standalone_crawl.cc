#include "services/standalone/standalone_crawl.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
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
#include "lib/browser/browser.h"
#include "lib/json/json_string.h"
#include "lib/net/address_policy.h"
#include "lib/partition/layout.h"
#include "lib/warc/warc_writer.h"
#include "services/collections/shares.h"
#include "services/common/free_space_guard.h"
#include "services/common/metrics/metrics_server.h"
#include "services/common/metrics/snapshot_collector.h"
#include "services/common/periodic_runner.h"
#include "services/common/politeness/politeness_store.h"
#include "services/common/rocksdb/rocksdb_kv_store.h"
#include "services/dedup/dedup.h"
#include "services/dedup/local_dedup_client.h"
#include "services/fetcher/collection_crawl.h"
#include "services/fetcher/fetcher.h"
#include "services/fetcher/fetcher_metrics.h"
#include "services/fetcher/resolver.h"
#include "services/frontier/collection_settings.h"
#include "services/frontier/frontier.h"
#include "services/frontier/frontier_metrics.h"
#include "services/frontier/lease_reaper.h"
#include "services/frontier/local_frontier_client.h"
#include "services/frontier/routed_frontier_client.h"
#include "services/scheduler/revisit_tuner.h"
#include "services/scheduler/scheduler.h"
#include "services/scheduler/scheduler_metrics.h"
#include "services/standalone/progress_reporter.h"
#include "services/standalone/reshard.h"

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

// Tells the free-space guard what each page brought in (its body, about what it adds to the WARC
// file and to the store), so a crawl faster than the housekeeping ticks is checked in between.
class BytesToGuard final : public fetcher::FetchObserver {
 public:
  explicit BytesToGuard(FreeSpaceGuard& guard) : guard_(guard) {}
  void OnFetch(const fetcher::FetchEvent& event) override { guard_.Written(event.bytes); }
  void OnFetchBatch(absl::Span<const fetcher::FetchEvent* const> events) override {
    uint64_t bytes = 0;
    for (const fetcher::FetchEvent* event : events) bytes += event->bytes;
    guard_.Written(bytes);
  }

 private:
  FreeSpaceGuard& guard_;
};

}  // namespace

struct StandaloneCrawl::Parts {
  // First member: released last, after every store is closed.
  std::unique_ptr<DataDirLock> lock;
  CrawlConfig config;
  const Clock* clock = nullptr;
  Logger log;
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
  fetcher::SharedPublicSuffixList psl;
  std::unique_ptr<fetcher::FetcherMetrics> fetcher_metrics;  // with a metrics server
  // Stops the fetchers before the disk fills: checked at the start, on the housekeeping ticks
  // and as the pages' bytes come in (page_bytes, an observer of the crawl).
  std::unique_ptr<FreeSpaceGuard> free_space;
  std::unique_ptr<fetcher::FetchObserver> page_bytes;
  // The collection's crawl: WARC files, crawl log, totals, link ledger (<data_dir>/links.tsv).
  std::unique_ptr<fetcher::CollectionCrawl> crawl;
  // Run's re-visit tuner while it lives (null otherwise), for the metrics' tuning gauges.
  absl::Mutex tuner_mu;
  const scheduler::RevisitTuner* tuner ABSL_GUARDED_BY(tuner_mu) = nullptr;
  // routers[k] is fetcher k's view of the frontier: its own partition for leases and
  // completions, every partition for outlinks. routers.back() (home 0) feeds the seeds.
  std::vector<std::unique_ptr<frontier::RoutedFrontierClient>> routers;
  std::vector<std::unique_ptr<fetcher::Fetcher>> fetchers;
  // With a metrics server: the collector reading the parts above when scraped (last member: it
  // stops being served before those parts go).
  metrics::ScopedCollector collector;

  frontier::RoutedFrontierClient& seed_client() { return *routers.back(); }
  absl::Status OpenPartitions();
  absl::Status OpenFetchers(metrics::MetricsServer* metrics, uint64_t seed);
  std::vector<prometheus::MetricFamily> CollectMetrics();
  void StopFetchers() {
    for (auto& f : fetchers) f->Stop();
  }
  // `refusal`: why every seed was refused (AllSeedsRefused), or empty.
  absl::Status WriteSummary(const std::string& path, const fetcher::CrawlTotals& totals,
                            absl::Duration elapsed, bool stopped_by_run_for,
                            const std::string& refusal);
  // The partitions' figures summed (local cores: cannot fail).
  frontier::FrontierStats FrontierTotals() {
    return seed_client().Stats().value_or(frontier::FrontierStats{});
  }
};

namespace {

// Partition k's frontier options when the crawl runs n partitions.
frontier::FrontierOptions FrontierOptionsFor(const CrawlConfig& c, uint32_t k, uint32_t n) {
  frontier::FrontierOptions options = frontier::WithCollection(
      c.frontier,
      frontier::SettingsFor(c.collection, k, n, collections::RefillTime(c.fetcher.flush_interval)),
      k, partition::PartitionLayout{.count = n});
  options.sync_completions = c.fsync;
  return options;
}

}  // namespace

fetcher::CollectionCrawlSettings CrawlSettingsFor(const CrawlConfig& c) {
  fetcher::CollectionCrawlSettings settings;
  settings.user_agent = c.user_agent;
  settings.fetcher = c.fetcher;
  settings.warc_dir = c.warc_dir;
  settings.warc_prefix = c.collection.name;
  settings.warc_description = absl::StrCat("collection ", c.collection.name);
  settings.warc_max_file_bytes = c.warc_max_file_bytes;
  settings.fsync = c.fsync;
  settings.crawl_log = c.crawl_log;
  settings.links_file = (std::filesystem::path(c.data_dir) / "links.tsv").string();
  return settings;
}

namespace {

// Fetcher k's share of the process's fetcher settings: the partitions' fetchers share its
// transfers, worker threads and the memory budget of bodies (each still needs room for one
// whole body).
fetcher::FetcherOptions ShareOfFetcher(const CrawlConfig& c) {
  const auto n = static_cast<size_t>(c.partitions);
  fetcher::FetcherOptions base = c.fetcher;
  base.max_in_flight = std::max<size_t>(1, c.fetcher.max_in_flight / n);
  base.worker_threads = std::max(1, c.fetcher.worker_threads / static_cast<int>(n));
  base.http.body_memory_bytes =
      std::max(c.fetcher.http.max_body_bytes, c.fetcher.http.body_memory_bytes / n);
  return base;
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
std::string AllSeedsRefused(const scheduler::SeedReport& seeds,
                            const fetcher::CrawlTotals& totals) {
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
// exchange between partitions (docs/architecture.md §4): outlinks the fetchers routed, those sent
// to another partition than their own, and those the popular-URL cache dropped.
absl::Status StandaloneCrawl::Parts::WriteSummary(const std::string& path,
                                                  const fetcher::CrawlTotals& totals,
                                                  absl::Duration elapsed, bool stopped_by_run_for,
                                                  const std::string& refusal) {
  Parts& p = *this;
  std::vector<std::string> files;
  const warc::WarcWriter* warc = p.crawl->warc();
  if (warc != nullptr) {
    for (const std::string& f : warc->Files()) files.push_back(json::JsonString(f));
  }
  const fetcher::LinkLedger* links = p.crawl->links();
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
  fetcher::FetcherStats fetched;
  for (auto& fetcher : p.fetchers) fetcher::AddFetcherStats(fetcher->Stats(), fetched);
  const browser::BrowserStats browser_stats =
      p.crawl->browser_totals().value_or(browser::BrowserStats{});
  double prior_mean_rate_per_day = 0;  // 0: the estimators used the Gamma prior at the end
  {
    absl::MutexLock tuner_lock(&p.tuner_mu);
    if (p.tuner != nullptr) {
      if (std::optional<scheduler::RevisitTuning> t = p.tuner->latest(); t.has_value()) {
        prior_mean_rate_per_day = t->prior_mean_rate_per_day.value_or(0);
      }
    }
  }
  // The frontier is exhausted when nothing more will be leased, which a spent page budget also
  // causes; the crawl is complete only when nothing is left behind either.
  const bool exhausted = p.seed_client().IsExhausted().value_or(false);
  const uint64_t left = fs.queued_urls + fs.waiting_urls;
  const bool complete = exhausted && left == 0 && fs.in_flight_urls == 0;
  const std::string extra = absl::StrCat(
      "\"complete\": ", complete ? "true" : "false",
      ",\n  \"stopped_by_page_budget\": ", exhausted && !complete ? "true" : "false",
      ",\n  \"queued\": ", left, ",\n  \"seen_urls\": ", fs.seen_urls,
      ",\n  \"urls_rejected_by_limit\": ", fs.urls_rejected_by_limit + totals.links_too_deep,
      ",\n  \"warc_records\": ", warc != nullptr ? warc->RecordsWritten() : 0,
      ",\n  \"warc_bytes\": ", warc != nullptr ? warc->BytesWritten() : 0,
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
      ",\n  \"sitemap_lastmod_updates\": ", fs.sitemap_lastmod_updates,
      ",\n  \"lastmod_pulls\": ", fs.lastmod_pulls,
      ",\n  \"partitions\": ", p.config.partitions,
      ",\n  \"outlinks_routed\": ", routed,
      ",\n  \"outlinks_exchanged\": ", exchanged,
      ",\n  \"outlinks_suppressed\": ", suppressed,
      ",\n  \"address_refused\": ", totals.address_refused,
      ",\n  \"politeness\": {\"store\": ", json::JsonString(p.config.politeness_store.politeness),
      ", \"claims\": ", ps.claims, ", \"granted\": ", ps.granted, ", \"releases\": ", ps.releases,
      ", \"round_trips\": ", ps.round_trips, ", \"unavailable\": ", ps.unavailable,
      ", \"outages\": ", ps.outages, "}",
      ",\n  \"rendering\": {\"pages_rendered\": ", fetched.pages_rendered,
      ", \"rendered_links\": ", fetched.rendered_links, ", \"renders_cut\": ", fetched.renders_cut,
      ", \"browser_launches\": ", browser_stats.launches,
      ", \"browser_crashes\": ", browser_stats.crashes, ", \"script_hangs\": ", browser_stats.hangs,
      ", \"memory_kills\": ", browser_stats.memory_kills,
      ", \"memory_recycles\": ", browser_stats.memory_recycles,
      ", \"peak_memory_bytes\": ", browser_stats.peak_memory_bytes, "}",
      ",\n  \"focus\": {\"pulls\": ", fs.focus_pulls, ", \"reward\": ", fs.focus_reward,
      ", \"rebuilds\": ", fs.focus_rebuilds, ", \"external_links_seen\": ",
      links != nullptr ? links->external_links_seen() : 0, ", \"link_write_failures\": ",
      links != nullptr ? links->write_failures() : 0, "}",
      ",\n  \"all_seeds_refused\": ", refusal.empty() ? "false" : "true",
      refusal.empty() ? "" : absl::StrCat(",\n  \"refusal\": ", json::JsonString(refusal)));
  std::ofstream out(path);
  out << fetcher::SummaryJson(totals, elapsed, extra);
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
  if (p.crawl->warc() != nullptr) f.warc.push_back(p.crawl->warc_totals());
  f.browser = p.crawl->browser_totals();
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

// Partition k's store (<data_dir>/state, which also holds the content index, for k = 0;
// <data_dir>/state-k beyond), its frontier core and a client of it; then the content index.
absl::Status StandaloneCrawl::Parts::OpenPartitions() {
  const CrawlConfig& c = config;
  // One cache and memtable budget for all the partitions' stores, so the memory the crawl
  // takes does not grow with --partitions.
  absl::StatusOr<std::shared_ptr<kv::RocksDbMemory>> memory = c.store_memory.Create();
  if (!memory.ok()) return memory.status();
  for (uint32_t k = 0; k < static_cast<uint32_t>(c.partitions); ++k) {
    std::vector<kv::ColumnFamilySpec> families = frontier::Frontier::ColumnFamilies();
    if (k == 0) {
      for (kv::ColumnFamilySpec& cf : dedup::Dedup::ColumnFamilies()) families.push_back(cf);
    }
    absl::StatusOr<std::unique_ptr<kv::RocksDbKvStore>> store = kv::RocksDbKvStore::Open(
        {.path = PartitionDir(c.data_dir, k).string(), .shared_memory = *memory}, families);
    if (!store.ok()) return store.status();
    stores.push_back(*std::move(store));
    absl::StatusOr<std::unique_ptr<frontier::Frontier>> frontier =
        frontier::Frontier::Open(FrontierOptionsFor(c, k, static_cast<uint32_t>(c.partitions)),
                                 *stores.back(), *clock);
    if (!frontier.ok()) return frontier.status();
    for (const std::string& warning : (*frontier)->OpenWarnings()) log.Warning(warning);
    frontiers.push_back(*std::move(frontier));
    locals.push_back(std::make_unique<frontier::LocalFrontierClient>(*frontiers.back()));
  }
  if (c.collection.fingerprints) {
    absl::StatusOr<std::unique_ptr<dedup::Dedup>> opened = dedup::Dedup::Open({}, *stores[0]);
    if (!opened.ok()) return opened.status();
    dedup = *std::move(opened);
    dedup_client = std::make_unique<dedup::LocalDedupClient>(*dedup);
  }
  return absl::OkStatus();
}

// The collection's crawl (CollectionCrawl: the same assembly as the fetcher service's) and one
// Fetcher per partition over its routed client.
absl::Status StandaloneCrawl::Parts::OpenFetchers(metrics::MetricsServer* metrics,
                                                  uint64_t seed) {
  const CrawlConfig& c = config;
  resolver = std::make_unique<fetcher::SystemResolver>();
  absl::StatusOr<net::AddressPolicy> allowed = net::AddressPolicy::Create(c.allow_networks);
  if (!allowed.ok()) return allowed.status();
  guard = std::make_unique<net::AddressPolicy>(*std::move(allowed));
  if (metrics != nullptr) {
    fetcher_metrics = std::make_unique<fetcher::FetcherMetrics>(metrics->registry());
  }
  free_space = std::make_unique<FreeSpaceGuard>(
      FreeSpaceGuardOptions{.directories = {c.data_dir, c.warc_dir},
                            .min_free_bytes = c.min_free_bytes},
      [this](const absl::Status&) {
        log.Warning("low on disk space, finishing transfers in flight");
        StopFetchers();
      });
  page_bytes = std::make_unique<BytesToGuard>(*free_space);
  fetcher::CollectionCrawlSettings settings = CrawlSettingsFor(c);
  settings.log = log;
  absl::StatusOr<std::unique_ptr<fetcher::CollectionCrawl>> opened =
      fetcher::CollectionCrawl::Open(c.collection, std::move(settings),
                                     {.politeness = politeness.get(),
                                      .resolver = resolver.get(),
                                      .guard = guard.get(),
                                      .clock = clock,
                                      .psl = &psl,
                                      .dedup = dedup_client.get(),
                                      .metrics = fetcher_metrics.get(),
                                      .observer = page_bytes.get()});
  if (!opened.ok()) return opened.status();
  crawl = *std::move(opened);
  if (absl::Status s = crawl->OpenWarc(seed); !s.ok()) return s;
  if (crawl->warc() != nullptr) {
    for (const warc::WarcWriter::Recovered& r : crawl->warc()->recovered()) {
      log.Info(r.Describe());
    }
  }
  std::vector<frontier::FrontierClient*> partitions;
  for (auto& local : locals) partitions.push_back(local.get());
  const auto n = static_cast<uint32_t>(c.partitions);
  for (uint32_t k = 0; k <= n; ++k) {
    absl::StatusOr<std::unique_ptr<frontier::RoutedFrontierClient>> router =
        frontier::RoutedFrontierClient::Create({}, partitions, k == n ? 0 : k);
    if (!router.ok()) return router.status();
    routers.push_back(*std::move(router));
  }
  for (uint32_t k = 0; k < n; ++k) {
    absl::StatusOr<std::unique_ptr<fetcher::Fetcher>> f = crawl->NewFetcher(
        ShareOfFetcher(c), *routers[k], c.partition_header ? static_cast<int>(k) : -1);
    if (!f.ok()) return f.status();
    fetchers.push_back(*std::move(f));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<StandaloneCrawl>> StandaloneCrawl::Open(
    CrawlConfig config, const Clock& clock, metrics::MetricsServer* metrics, const Logger& log) {
  if (absl::Status s = config.Finalize(); !s.ok()) return s;
  auto p = std::make_unique<Parts>();
  p->config = std::move(config);
  p->clock = &clock;
  p->log = log;
  const CrawlConfig& c = p->config;
  if (absl::Status s = CheckDataDirIsACrawl(c); !s.ok()) return s;

  std::random_device entropy;
  const uint64_t seed = (static_cast<uint64_t>(entropy()) << 32) ^ entropy();
  // One politeness state for every partition's fetcher: hosts are partitioned, but hosts of
  // different partitions can share an address, whose budget they share. Opened before anything
  // is written, so that a crawl whose politeness store cannot be reached leaves nothing behind.
  absl::StatusOr<std::unique_ptr<politeness::Politeness>> politeness =
      politeness::OpenPolitenessStore(c.politeness_store, c.collection.politeness,
                                      c.fetcher.http.total_timeout, clock, seed, log);
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
  // A data dir crawled with another count has its hosts moved to their new owners first.
  if (absl::Status s = EnsurePartitionCount(
          {.data_dir = c.data_dir,
           .partitions = c.partitions,
           .options_for = [&c](uint32_t k, uint32_t n) { return FrontierOptionsFor(c, k, n); },
           .movable = !c.collection.focus.enabled(),
           .not_movable_reason =
               "is focused (its bandit statistics do not move between partitions)",
           .store_memory = c.store_memory,
           .log = log});
      !s.ok()) {
    return s;
  }
  if (absl::Status s = p->OpenPartitions(); !s.ok()) return s;

  absl::StatusOr<std::unique_ptr<scheduler::Scheduler>> scheduler =
      scheduler::Scheduler::Create(c.collection, url::CanonicalizeOptions());
  if (!scheduler.ok()) return scheduler.status();
  p->scheduler = *std::move(scheduler);
  if (absl::Status s = p->OpenFetchers(metrics, seed ^ 0x9E3779B97F4A7C15ull); !s.ok()) return s;
  p->collector =
      metrics::ScopedCollector(metrics, [parts = p.get()] { return parts->CollectMetrics(); });
  return std::unique_ptr<StandaloneCrawl>(new StandaloneCrawl(std::move(p)));
}

void StandaloneCrawl::Stop() { parts_->StopFetchers(); }

absl::StatusOr<fetcher::CrawlTotals> StandaloneCrawl::Run() {
  Parts& p = *parts_;
  const absl::Time start = p.clock->Now();
  absl::StatusOr<scheduler::SeedReport> seeds = p.scheduler->FeedSeeds(p.seed_client());
  if (!seeds.ok()) return seeds.status();
  for (const std::string& rejected : seeds->rejected) {
    p.log.Warning("seed out of scope: ", rejected);
  }
  p.log.Info(seeds->seeds, " seeds (", seeds->queued, " new), data in ", p.config.data_dir,
             p.config.partitions > 1 ? absl::StrCat(", ", p.config.partitions, " partitions") : "");

  // Housekeeping while the fetchers run, in this order on each tick: lease expiry, the run_for
  // limit, free space, indexing finished WARC files, re-tuning the re-visit policy, progress
  // lines.
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
    p.log.Info("run time ", absl::FormatDuration(p.config.run_for),
               " reached, finishing transfers in flight");
    p.StopFetchers();
  });
  jobs.push_back(&run_limit);
  FreeSpaceGuard& free_space = *p.free_space;
  // A disk already too full is refused before anything is fetched.
  free_space.Tick(start);
  if (free_space.fired()) return free_space.status();
  jobs.push_back(&free_space);
  // The CDXJ index beside each WARC file the crawl finishes (rotated, or recovered at the
  // start); the last one's when the crawl closes its writer (below).
  jobs.push_back(p.crawl->archive_indexer().get());
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
        [&p](const absl::Status& s) {
          p.log.Warning("re-tuning the re-visit policy failed: ", s.message());
        });
    if (absl::Status s = tuner->TuneNow(p.clock->Now()); !s.ok()) return s;
    jobs.push_back(&*tuner);
    absl::MutexLock tuner_lock(&p.tuner_mu);
    p.tuner = &*tuner;
  }
  std::optional<ProgressReporter> progress;
  if (p.config.progress.interval > absl::ZeroDuration()) {
    ProgressSources sources{.totals = [&p] { return p.crawl->stats().Totals(); },
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
  if (absl::Status closed = p.crawl->CloseWarc(); status.ok()) status = closed;
  if (status.ok()) status = free_space.status();
  const fetcher::CrawlTotals totals = p.crawl->stats().Totals();
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
