// ArchiveFileStore: what a fetcher serves of its archive (proto ArchiveFiles, docs/archive.md):
// the finished WARC files of a collection's directory (<warc_dir>/<collection>/) and their CDXJ
// indexes, listed with size and SHA-256, and read from any offset.
//
// Finished means final: a WARC file has its final name only once its writer has closed it
// (WarcWriter renames "X.warc.gz.open"), and an index is renamed into place complete
// (ArchiveIndexer). Files still being written -- "*.open", and the index of a finished WARC not
// written yet -- are listed by name as in progress, never served.
//
// Names come from clients: a collection must be a plain directory name and a file a plain name
// of an archive file (*.warc.gz, *.warc, *.cdxj) that is a regular file in it, so nothing
// outside <warc_dir>/<collection>/ can be read, by ".." or by a symbolic link.
//
// SHA-256s are computed once per file (reading it whole) and kept while the file's size,
// modification time and inode stay the same: when the file is indexed (Warm), or at its first
// listing.
//
// Thread-safety: thread-safe (the digest cache has its own lock; a digest is computed outside
// it).
#ifndef CRAWLER_SERVICES_FETCHER_ARCHIVE_FILE_STORE_H_
#define CRAWLER_SERVICES_FETCHER_ARCHIVE_FILE_STORE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace crawler::fetcher {

struct ArchiveFileInfo {
  enum class Kind { kWarc, kCdxj };
  std::string name;
  Kind kind = Kind::kWarc;
  uint64_t size = 0;
  std::string sha256;  // "sha256:<hex>"
  absl::Time modified;
};

struct ArchiveListing {
  std::vector<ArchiveFileInfo> files;    // by name
  std::vector<std::string> in_progress;  // by name
};

class ArchiveFileStore {
 public:
  // Bytes handed to a Read sink at once.
  static constexpr size_t kChunkBytes = size_t{256} << 10;

  explicit ArchiveFileStore(std::string warc_dir);

  // The collection's files. kInvalidArgument for a name that is not a plain directory name; an
  // unknown collection has an empty listing. kUnavailable when a file cannot be read for its
  // digest.
  absl::StatusOr<ArchiveListing> List(const std::string& collection) ABSL_LOCKS_EXCLUDED(mu_);

  // Calls `sink(offset, data)` with the bytes of finished file `name` from `offset` to its end,
  // kChunkBytes at a time, until the end or until `sink` returns false (the client went away:
  // kCancelled). kInvalidArgument for a bad collection name, kNotFound for a name that is not a
  // finished archive file of the collection, kOutOfRange for an offset past its end.
  absl::Status Read(const std::string& collection, const std::string& name, uint64_t offset,
                    const std::function<bool(uint64_t offset, std::string_view data)>& sink);

  // Computes and keeps the digest of the finished file at `path` now, so that the next listing
  // need not read it. kUnavailable when it cannot be read.
  absl::Status Warm(const std::string& path) ABSL_LOCKS_EXCLUDED(mu_);

 private:
  struct Cached {
    uint64_t size = 0;
    int64_t mtime_ns = 0;
    uint64_t inode = 0;
    std::string sha256;
  };
  // The file's digest, from the cache or computed.
  absl::StatusOr<std::string> Digest(const std::string& path, const Cached& now)
      ABSL_LOCKS_EXCLUDED(mu_);

  const std::string warc_dir_;
  absl::Mutex mu_;
  std::map<std::string, Cached> digests_ ABSL_GUARDED_BY(mu_);
};

// The id of the volume `data_dir` is on, for the scheduler to know a restarted fetcher by (its
// reports' archive_volume): read from <data_dir>/archive.volume, or drawn at random and written
// there the first time. kUnavailable when it cannot be written.
absl::StatusOr<std::string> ArchiveVolumeId(const std::string& data_dir);

// True if `name` can name a directory or file in it: not empty, ".", "..", and without '/'
// or NUL.
bool IsPlainName(std::string_view name);

}  // namespace crawler::fetcher

#endif  // CRAWLER_SERVICES_FETCHER_ARCHIVE_FILE_STORE_H_
