#include "services/common/free_space_guard.h"

#include <sys/statvfs.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace crawler {
namespace {

std::string Mebibytes(uint64_t bytes) {
  return absl::StrFormat("%.1f MiB", static_cast<double>(bytes) / (1 << 20));
}

}  // namespace

absl::StatusOr<uint64_t> FreeSpaceGuard::StatvfsFreeBytes(const std::string& directory) {
  struct statvfs fs {};
  if (::statvfs(directory.c_str(), &fs) != 0) {
    return absl::UnavailableError(
        absl::StrCat("statvfs ", directory, ": ", std::strerror(errno)));
  }
  return static_cast<uint64_t>(fs.f_bavail) * fs.f_frsize;
}

FreeSpaceGuard::FreeSpaceGuard(FreeSpaceGuardOptions options,
                               std::function<void(const absl::Status&)> on_low,
                               FreeBytesFn free_bytes)
    : options_(std::move(options)),
      on_low_(std::move(on_low)),
      free_bytes_(std::move(free_bytes)),
      check_every_bytes_(options_.check_every_bytes > 0
                             ? options_.check_every_bytes
                             : std::max<uint64_t>(options_.min_free_bytes / 8, 1)) {}

void FreeSpaceGuard::Tick(absl::Time) { Check(); }

void FreeSpaceGuard::Written(uint64_t bytes) {
  if (options_.min_free_bytes == 0) return;
  const uint64_t unchecked = unchecked_bytes_.fetch_add(bytes, std::memory_order_relaxed) + bytes;
  if (unchecked < check_every_bytes_) return;
  // The writer that takes the count back to 0 checks; others that crossed the mark go on.
  if (unchecked_bytes_.exchange(0, std::memory_order_relaxed) >= check_every_bytes_) Check();
}

void FreeSpaceGuard::Check() {
  if (options_.min_free_bytes == 0 || fired()) return;
  unchecked_bytes_.store(0, std::memory_order_relaxed);
  for (const std::string& directory : options_.directories) {
    absl::StatusOr<uint64_t> free = free_bytes_(directory);
    if (!free.ok() || *free >= options_.min_free_bytes) continue;
    const absl::Status low = absl::ResourceExhaustedError(absl::StrCat(
        "only ", Mebibytes(*free), " free in ", directory, ", below min_free_bytes (",
        Mebibytes(options_.min_free_bytes),
        "): stopped before the disk filled; free space and run again to resume"));
    {
      absl::MutexLock lock(&mu_);
      if (!status_.ok()) return;  // another thread's check found it first
      status_ = low;
    }
    on_low_(low);
    return;
  }
}

bool FreeSpaceGuard::fired() const {
  absl::MutexLock lock(&mu_);
  return !status_.ok();
}

absl::Status FreeSpaceGuard::status() const {
  absl::MutexLock lock(&mu_);
  return status_;
}

}  // namespace crawler
