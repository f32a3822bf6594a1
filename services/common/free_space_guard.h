// FreeSpaceGuard: stops a process cleanly before the disks it writes to are full. Every Tick it
// asks each directory's file system for the space left to unprivileged writers (statvfs
// f_bavail); the first time one is below `min_free_bytes` it calls `on_low` once with a status
// naming the directory, the space left and the threshold. A writer also reports its bytes
// (Written), and the guard checks at once whenever `check_every_bytes` have gone by since its
// last check: a crawl on a fast machine writes megabytes between two ticks (a 2,000-page crawl
// of loopback pages filled 3 MiB in 110 ms), more than a small margin can absorb.
//
// Why stop early rather than at the first failed write: a write that fails mid-crawl leaves the
// pages fetched since the last durable completion archived but not recorded as done, so a resumed
// crawl fetches and archives them again. A stop with room to spare drains like SIGTERM: every
// completion is recorded and nothing is fetched twice. (Heritrix pauses its crawls the same way.)
// Write errors that come anyway (another process filling the disk between two ticks, a failing
// device) still stop the crawl, through the storage's own errors.
//
// Thread-safety: Tick runs on the PeriodicRunner's thread; Written, fired() and status() may be
// called from any thread. `on_low` runs on the thread whose check found the space low.
#ifndef CRAWLER_SERVICES_COMMON_FREE_SPACE_GUARD_H_
#define CRAWLER_SERVICES_COMMON_FREE_SPACE_GUARD_H_

#include <atomic>
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
  // Check again once this many bytes were reported Written since the last check; 0: an eighth
  // of min_free_bytes, so at most that much is written past the threshold before it is seen.
  uint64_t check_every_bytes = 0;
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

  // `bytes` were (or are about to be) written to one of the directories; checks on this thread
  // when check_every_bytes have gone by since the last check.
  void Written(uint64_t bytes);

  bool fired() const;
  // kResourceExhausted once fired ("only N MiB free in DIR, below min_free_bytes (M MiB) ..."),
  // else OK.
  absl::Status status() const;

 private:
  const FreeSpaceGuardOptions options_;
  const std::function<void(const absl::Status&)> on_low_;
  const FreeBytesFn free_bytes_;
  const uint64_t check_every_bytes_;
  std::atomic<uint64_t> unchecked_bytes_{0};  // reported Written since the last check

  mutable absl::Mutex mu_;
  absl::Status status_ ABSL_GUARDED_BY(mu_);

  void Check();
};

}  // namespace crawler

#endif  // CRAWLER_SERVICES_COMMON_FREE_SPACE_GUARD_H_
