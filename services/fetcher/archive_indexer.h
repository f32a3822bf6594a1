// ArchiveIndexer: writes the sorted CDXJ index (lib/warc/cdxj_indexer.h) beside every WARC file
// a crawl has finished: "X.cdxj" next to "X.warc.gz", in the WARC directory and in its
// collection subdirectories (<warc_dir>/<collection>/, the fetcher service's layout).
//
// A WARC file is finished once it has its final name (the writer renames "X.warc.gz.open" when
// it rotates or closes, and finishes a killed writer's file at the next start), so the indexer
// looks for finished files without an index rather than being told of each: one mechanism for
// rotated, closed and recovered files alike. A pass runs every `interval` (a PeriodicJob) and
// once more when the crawl has stopped (IndexPending after the writers are closed), so an index
// follows its WARC within one interval, and every file has one when the process ends normally.
// A process killed in between leaves finished files without an index: the next start indexes
// them. The index is written under a temporary name and renamed, so "X.cdxj" is complete when
// it exists.
//
// A crawl's WARC writer indexes its files itself as it writes them (WarcWriterOptions::
// write_index: no second read); it tells the indexer (Announce), which reports those files at
// its next pass as it reports its own. The indexer reads only the files that came without an
// index: a killed writer's, one whose index could not be written, other tools'.
//
// A file that cannot be indexed (damaged: a recovered writer cut a torn record, but other tools
// may have put files there) is reported once, with the reason, and not tried again while its
// size and modification time stay the same.
//
// Thread-safety: IndexPending and Tick are serialised internally; counters may be read from
// any thread.
#ifndef CRAWLER_SERVICES_FETCHER_ARCHIVE_INDEXER_H_
#define CRAWLER_SERVICES_FETCHER_ARCHIVE_INDEXER_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "lib/log/logger.h"
#include "services/common/periodic_runner.h"

namespace crawler::fetcher {

struct ArchiveIndexerOptions {
  // The WARC directory (its files and those of its immediate subdirectories are indexed).
  std::string warc_dir;
  // Time between passes. Indexing a file reads it once (decompressing it): ~1 s for a 1 GB
  // WARC file, so passes are cheap when nothing is new and the wait is short against a file's
  // life (minutes to hours before it rotates).
  absl::Duration interval = absl::Seconds(5);
  // Where a line per indexed (info) or failed (warning) file goes.
  Logger log;
  // Called with the WARC file and its new index after each index is written, here or by its
  // writer (a fetcher computes their digests then, while they are in the page cache); may be
  // empty.
  std::function<void(const std::string& warc, const std::string& cdxj)> indexed;
};

class ArchiveIndexer final : public PeriodicJob {
 public:
  explicit ArchiveIndexer(ArchiveIndexerOptions options);

  // Indexes every finished WARC file that has no index yet. Returns how many it wrote.
  uint64_t IndexPending() ABSL_LOCKS_EXCLUDED(mu_);

  // A WARC file its writer indexed (WarcWriterOptions::indexed), reported at the next pass.
  // Takes only a lock of its own, so a writer may call it under its lock.
  void Announce(std::string warc, std::string cdxj) ABSL_LOCKS_EXCLUDED(announced_mu_);

  // PeriodicJob: a pass when `interval` has passed since the last one.
  void Tick(absl::Time now) override ABSL_LOCKS_EXCLUDED(mu_);

  // Indexes written, and files that could not be indexed, since construction.
  uint64_t indexed() const { return indexed_.load(std::memory_order_relaxed); }
  uint64_t failed() const { return failed_.load(std::memory_order_relaxed); }

 private:
  // Indexes `warc` unless it failed before as it is now.
  void IndexOne(const std::string& warc) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const ArchiveIndexerOptions options_;
  absl::Mutex mu_;
  absl::Time last_pass_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
  // Files that failed: path -> (size, modification time in ns) when they did.
  std::map<std::string, std::pair<uint64_t, int64_t>> failures_ ABSL_GUARDED_BY(mu_);
  std::atomic<uint64_t> indexed_{0};
  std::atomic<uint64_t> failed_{0};
  // Announced and not reported yet. A leaf lock.
  absl::Mutex announced_mu_;
  std::vector<std::pair<std::string, std::string>> announced_ ABSL_GUARDED_BY(announced_mu_);
};

// The WARC files of `warc_dir` (and of its immediate subdirectories) that are finished: named
// *.warc.gz or *.warc (not *.open), in name order.
std::vector<std::string> FinishedWarcFiles(const std::string& warc_dir);

}  // namespace crawler::fetcher

#endif  // CRAWLER_SERVICES_FETCHER_ARCHIVE_INDEXER_H_
