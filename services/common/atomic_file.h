// Small files written so that a crash leaves either the old file or the new one, never a torn
// one: a temporary file beside the target, fsynced, renamed over it, and the directory fsynced
// (so the rename itself survives a power loss). For settings and state files of a few KB that
// are replaced whole; not for large or appended files.
#ifndef CRAWLER_SERVICES_COMMON_ATOMIC_FILE_H_
#define CRAWLER_SERVICES_COMMON_ATOMIC_FILE_H_

#include <filesystem>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace crawler {

// Writes `contents` to `path` (its directory must exist). Unavailable, naming the file and the
// system error, when any step fails; `path` is then unchanged (a `path`.tmp may be left).
absl::Status WriteFileAtomically(const std::filesystem::path& path, const std::string& contents);

// The whole of `path`: NotFound when it does not exist or cannot be opened, DataLoss when reading
// it fails part-way.
absl::StatusOr<std::string> ReadWholeFile(const std::filesystem::path& path);

}  // namespace crawler

#endif  // CRAWLER_SERVICES_COMMON_ATOMIC_FILE_H_
