// FetcherArchive: the archive side of a fetcher process (docs/archive.md): the CDXJ index written
// beside every WARC file it finishes (ArchiveIndexer, on a housekeeping thread of its own, and a
// last pass when the crawl has stopped), and its finished files served to the scheduler over
// gRPC (ArchiveFilesService on the internal port).
//
// Lifetime: construct, register service() with the server, Start(); Finish() once the crawl has
// stopped and its WARC files are closed (stops the thread, indexes what is left).
//
// Thread-safety: Start and Finish from the owning thread; the service from gRPC's threads.
#ifndef CRAWLER_SERVICES_FETCHER_GRPC_FETCHER_ARCHIVE_H_
#define CRAWLER_SERVICES_FETCHER_GRPC_FETCHER_ARCHIVE_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "lib/clock/clock.h"
#include "services/common/periodic_runner.h"
#include "services/fetcher/archive_file_store.h"
#include "services/fetcher/archive_indexer.h"
#include "services/fetcher/grpc/archive_files_service.h"

namespace crawler::fetcher {

// The id of the volume `data_dir` is on, for the scheduler to know a restarted fetcher by
// (ReportFetcherStatsRequest.archive_volume): read from <data_dir>/archive.volume, or drawn at
// random and written there the first time. kUnavailable when it cannot be written.
absl::StatusOr<std::string> ArchiveVolumeId(const std::string& data_dir);

class FetcherArchive {
 public:
  // `warc_dir`: the fetcher's WARC directory (a subdirectory per collection). `clock` must
  // outlive this.
  FetcherArchive(const std::string& warc_dir, const Clock& clock);
  ~FetcherArchive();

  grpc::Service* service() { return &service_; }
  void Start();
  void Finish();

 private:
  ArchiveFileStore store_;
  ArchiveFilesService service_;
  ArchiveIndexer indexer_;
  PeriodicRunner runner_;
  bool finished_ = false;
};

}  // namespace crawler::fetcher

#endif  // CRAWLER_SERVICES_FETCHER_GRPC_FETCHER_ARCHIVE_H_
