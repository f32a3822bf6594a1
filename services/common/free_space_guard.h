// FreeSpaceGuard: stops a process cleanly before the disks it writes to are full. Every Tick it
// asks each directory's file system for the space left to unprivileged writers (statvfs
// f_bavail); the first time one is below `min_free_bytes` it calls `on_low` once with a status
// naming the directory, the space left and the threshold.
//
// Why stop early rather than at the first failed write: a write that fails mid-crawl leaves the
// pages fetched since the last durable completion archived but not recorded as done, so a resumed
// crawl fetches and archives them again. A stop with room to spare drains like SIGTERM: every
// completion is recorded and nothing is fetched twice. (Heritrix pauses its crawls the same way.)
// Write errors that come anyway (another process filling the disk between two ticks, a failing
// device) still stop the crawl, through the storage's own errors.
//
// Thread-safety: Tick runs on the PeriodicRunner's thread; fired() and status() may be read from
// any thread.
#ifndef CRAWLER_SERVICES_COMMON_FREE_SPACE_GUARD_H_
#define CRAWLER_SERVICES_COMMON_FREE_SPACE_GUARD_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "services/common/periodic_runner.h"

namespace crawler {

struct FreeSpaceGuardOptions {
  // Directories the process writes to (several on one file system are checked alike).
  std::vector<std::string> directories;
  // Stop below this many free bytes; 0 turns the guard off.
  uint64_t min_free_bytes = 0;
};

class FreeSpaceGuard final : public PeriodicJob {
 public:
  // The bytes free to unprivileged writers on the file system holding `directory`.
  using FreeBytesFn = std::function<absl::StatusOr<uint64_t>(const std::string& directory)>;
  // statvfs(3): f_bavail * f_frsize.
  static absl::StatusOr<uint64_t> StatvfsFreeBytes(const std::string& directory);

  FreeSpaceGuard(FreeSpaceGuardOptions options, std::function<void(const absl::Status&)> on_low,
                 FreeBytesFn free_bytes = &StatvfsFreeBytes);

  // Checks every directory (a directory that cannot be asked is skipped: its writes report
  // their own errors).
  void Tick(absl::Time now) override;

  bool fired() const;
  // kResourceExhausted once fired ("only N MiB free in DIR, below min_free_bytes (M MiB) ..."),
  // else OK.
  absl::Status status() const;

 private:
  const FreeSpaceGuardOptions options_;
  const std::function<void(const absl::Status&)> on_low_;
  const FreeBytesFn free_bytes_;

  mutable absl::Mutex mu_;
  absl::Status status_ ABSL_GUARDED_BY(mu_);
};

}  // namespace crawler

#endif  // CRAWLER_SERVICES_COMMON_FREE_SPACE_GUARD_H_
