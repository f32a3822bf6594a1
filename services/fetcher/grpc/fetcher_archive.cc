#include "services/fetcher/grpc/fetcher_archive.h"

#include <cstdio>
#include <filesystem>
#include <random>
#include <system_error>

#include "absl/strings/ascii.h"
#include "absl/strings/str_format.h"
#include "services/common/atomic_file.h"

namespace crawler::fetcher {

absl::StatusOr<std::string> ArchiveVolumeId(const std::string& data_dir) {
  const std::filesystem::path path = std::filesystem::path(data_dir) / "archive.volume";
  absl::StatusOr<std::string> kept = ReadWholeFile(path);
  if (kept.ok() && !absl::StripAsciiWhitespace(*kept).empty()) {
    return std::string(absl::StripAsciiWhitespace(*kept));
  }
  std::random_device entropy;
  const std::string id = absl::StrFormat("%08x%08x", entropy(), entropy());
  std::error_code ec;
  std::filesystem::create_directories(data_dir, ec);
  if (absl::Status s = WriteFileAtomically(path, id + "\n"); !s.ok()) return s;
  return id;
}

FetcherArchive::FetcherArchive(const std::string& warc_dir, const Clock& clock)
    : store_(warc_dir),
      service_(store_),
      indexer_(
          {.warc_dir = warc_dir,
           .log =
               [](const std::string& line) { std::fprintf(stderr, "fetcher: %s\n", line.c_str()); },
           // Digests now, off the listing's path: a listing then reads no file.
           .indexed =
               [this](const std::string& warc, const std::string& cdxj) {
                 store_.Warm(warc).IgnoreError();
                 store_.Warm(cdxj).IgnoreError();
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
