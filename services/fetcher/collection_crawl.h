// CollectionCrawl: the one assembly of a collection's crawl in a process. The standalone crawl
// (every partition of one collection in one process) and the fetcher service (its partition of
// every collection, FetcherNode) both build their crawls here, so a setting reaches both or
// neither (docs/architecture.md §12):
//
// - what the crawl leaves for people, for as long as the collection is crawled here: the crawl
//   log (crawl_report.h), the running totals, the per-collection metrics, and, with
//   record_links or focus, the link ledger (link_ledger.h) classifying links by the Public
//   Suffix List;
// - the collection's scope (its seeds parsed, services/collections/collection_scope.h);
// - per run, the WARC writer (one owner per file, rotated by size, fsynced unless fsync is off);
// - the CDXJ index beside every WARC file the crawl finishes (ArchiveIndexer,
//   archive_indexer.h): a pass when a run's writer is closed, and passes between on the owner's
//   housekeeping thread for the files it rotates;
// - Fetchers over a frontier client each, with the collection's options on the process's own
//   (FetcherOptionsFor), the ledger as their link sink, and the process's shared parts;
// - per run, for a collection that renders, the browser its Fetchers share (page_renderer.h).
//
// Thread-safety: not thread-safe; the owner serialises calls (the Fetchers it makes are
// thread-safe as documented in fetcher.h). Every shared part must outlive the crawl and its
// Fetchers.
#ifndef CRAWLER_SERVICES_FETCHER_COLLECTION_CRAWL_H_
#define CRAWLER_SERVICES_FETCHER_COLLECTION_CRAWL_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "lib/browser/browser.h"
#include "lib/log/logger.h"
#include "lib/url/public_suffix_list.h"
#include "lib/warc/warc_writer.h"
#include "services/collections/collection.h"
#include "services/collections/collection_scope.h"
#include "services/fetcher/archive_indexer.h"
#include "services/fetcher/crawl_report.h"
#include "services/fetcher/fetcher.h"
#include "services/fetcher/fetcher_metrics.h"
#include "services/fetcher/link_ledger.h"
#include "services/fetcher/page_renderer.h"

namespace crawler::fetcher {

// The Public Suffix List, loaded at the first use and shared by every crawl of a process (it is
// only needed by crawls that record links by registrable domain).
class SharedPublicSuffixList {
 public:
  absl::StatusOr<const url::PublicSuffixList*> Get();

 private:
  absl::Mutex mu_;
  std::unique_ptr<url::PublicSuffixList> psl_ ABSL_GUARDED_BY(mu_);
};

// What a process shares between the crawls of all its collections. Not owned; the pointers
// marked required must be set.
struct CrawlProcessParts {
  politeness::Politeness* politeness = nullptr;  // required
  Resolver* resolver = nullptr;                  // required
  const net::AddressPolicy* guard = nullptr;     // required
  const Clock* clock = nullptr;                  // required
  SharedPublicSuffixList* psl = nullptr;         // required
  // The content index; null: no duplicate detection. Collections without fingerprints do not
  // use it.
  dedup::DedupClient* dedup = nullptr;
  // Where each collection's per-page metrics go; null: none.
  FetcherMetrics* metrics = nullptr;
  // One more observer of every event (the process's own, e.g. the standalone crawl's free-space
  // guard counting the bytes its pages bring in); null: none. Must outlive the crawl.
  FetchObserver* observer = nullptr;
};

// Where a process writes one collection's crawl, and its own settings for it.
struct CollectionCrawlSettings {
  // Sent as User-Agent; its first product token is what robots.txt groups are matched against.
  std::string user_agent;
  // The process's fetcher settings (transfers, workers, timeouts); each Fetcher's base.
  FetcherOptions fetcher;
  // WARC files: directory, file name prefix, warcinfo description, rotation size.
  std::string warc_dir;
  std::string warc_prefix;
  std::string warc_description;
  uint64_t warc_max_file_bytes = warc::WarcWriterOptions{}.max_file_bytes;
  // A page counts as done only once its WARC records are on disk (the writer fsyncs each batch
  // before its completions are handed over). Off: a power loss may lose records of pages
  // marked done.
  bool fsync = true;
  std::string crawl_log;   // appended to
  std::string links_file;  // the link ledger, with record_links or focus
  // Marks links seen across processes (the dedup service's shared set); empty: this process's
  // ledger decides alone. A focused collection needs it when `links_shared` is true.
  LinkLedger::MarkSeen mark_links_seen;
  bool links_shared = false;
  // Where the crawl says what happens to its WARC files' indexes.
  Logger log;
  // Called with a WARC file and its new index after each index is written; may be empty.
  std::function<void(const std::string& warc, const std::string& cdxj)> archive_indexed;
};

class CollectionCrawl {
 public:
  // Opens the crawl log, the totals and the metrics observer, builds the scope, and opens the
  // link ledger if the collection records links. kInvalidArgument for a collection that does
  // not validate or a missing part; kFailedPrecondition for a focused collection whose links
  // must be shared and cannot be (no mark_links_seen); a file error as it is.
  static absl::StatusOr<std::unique_ptr<CollectionCrawl>> Open(
      const collections::Collection& collection, CollectionCrawlSettings settings,
      const CrawlProcessParts& parts);
  ~CollectionCrawl();

  // The collection's definition changed: rebuilds the scope and, if the new one records links,
  // opens a new link ledger (the crawl log and totals go on). Only between runs (no Fetcher of
  // this crawl running).
  absl::Status Reconfigure(const collections::Collection& collection);

  // Opens this run's WARC writer (none when the collection stores no bodies); `seed` drives the
  // record ids. What it recovered of an interrupted run is warc()->recovered(), for the caller to
  // report.
  absl::Status OpenWarc(uint64_t seed);
  // Closes the run's WARC writer (if any and open) and indexes the files it finished. The closed
  // writer stays readable (warc(): its files and figures) until the next OpenWarc.
  absl::Status CloseWarc();

  // A Fetcher of this crawl over `frontier`: `base` (the process's settings, or its share of
  // them) with the collection's options; `partition_header` >= 0 sends X-Crawler-Partition.
  absl::StatusOr<std::unique_ptr<Fetcher>> NewFetcher(const FetcherOptions& base,
                                                      frontier::FrontierClient& frontier,
                                                      int partition_header);

  const collections::Collection& collection() const { return collection_; }
  const CollectionCrawlSettings& settings() const { return settings_; }
  const scope::Scope& scope() const { return scope_->scope(); }
  const CrawlStats& stats() const { return stats_; }
  // The last run's WARC writer (open while the run lasts); null before the first run or when no
  // bodies are stored.
  warc::WarcWriter* warc() const { return warc_.get(); }
  LinkLedger* links() const { return links_.get(); }
  // Records and bytes of every WARC writer of this crawl so far.
  FetcherSnapshot::Warc warc_totals() const;
  // The browser's figures over this crawl's runs (the current one's memory, the peak of all);
  // nullopt while the collection has never rendered. Thread-safe.
  std::optional<browser::BrowserStats> browser_totals() const;
  // Writes the index beside each finished WARC file of settings().warc_dir: the owner ticks it
  // while the crawl runs (a PeriodicJob, thread-safe). Shared, so that a pass under way on the
  // owner's thread may outlive the crawl.
  std::shared_ptr<ArchiveIndexer> archive_indexer() const { return indexer_; }

 private:
  CollectionCrawl(CollectionCrawlSettings settings, const CrawlProcessParts& parts);
  absl::Status OpenLinks();

  const CollectionCrawlSettings settings_;
  const CrawlProcessParts parts_;
  collections::Collection collection_;
  std::unique_ptr<collections::CollectionScope> scope_;
  std::unique_ptr<CrawlLog> log_;
  CrawlStats stats_;
  ObserverList observers_;
  std::unique_ptr<LinkLedger> links_;
  std::unique_ptr<warc::WarcWriter> warc_;
  bool warc_open_ = false;
  // This run's browser, for a collection that renders: started by the first NewFetcher, stopped
  // by CloseWarc (its loader writes into the run's WARC writer). The lock lets the metrics read
  // it while a run ends.
  mutable absl::Mutex renderer_mu_;
  std::unique_ptr<BrowserPageRenderer> renderer_ ABSL_GUARDED_BY(renderer_mu_);
  // The browsers of the runs before (their memory figures 0, their peak kept).
  std::optional<browser::BrowserStats> browser_folded_ ABSL_GUARDED_BY(renderer_mu_);
  FetcherSnapshot::Warc warc_folded_;  // the writers before warc_
  const std::shared_ptr<ArchiveIndexer> indexer_;
};

}  // namespace crawler::fetcher

#endif  // CRAWLER_SERVICES_FETCHER_COLLECTION_CRAWL_H_
