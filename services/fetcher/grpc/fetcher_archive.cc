#include "services/fetcher/grpc/fetcher_archive.h"

#include <cstdio>

namespace crawler::fetcher {

FetcherArchive::FetcherArchive(const std::string& warc_dir, const Clock& clock)
    : store_(warc_dir),
      service_(store_),
      indexer_({.warc_dir = warc_dir,
                .log =
                    [](const std::string& line) {
                      std::fprintf(stderr, "fetcher: %s\n", line.c_str());
                    }}),
      runner_({.tick = absl::Seconds(1), .thread_name = "warc-index"}, clock, {&indexer_}) {}

FetcherArchive::~FetcherArchive() { runner_.Stop(); }

void FetcherArchive::Start() {
  // Files finished by an earlier run (or by recovery at this start) are indexed first.
  runner_.Start();
}

void FetcherArchive::Finish() {
  if (finished_) return;
  finished_ = true;
  runner_.Stop();
  indexer_.IndexPending();
}

}  // namespace crawler::fetcher
