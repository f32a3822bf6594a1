// ToAbslStatus: the one place where rocksdb::Status becomes absl::Status, so every RocksDB-backed
// adapter reports the same canonical codes:
//   NotFound -> kNotFound; Corruption -> kDataLoss; IOError with NoSpace -> kResourceExhausted,
//   with PathNotFound -> kNotFound, other IOError -> kUnavailable (the disk or the DB lock is not
//   usable now); Busy, TimedOut, TryAgain, ShutdownInProgress -> kUnavailable;
//   InvalidArgument -> kInvalidArgument; NotSupported -> kUnimplemented; Aborted -> kAborted;
//   anything else -> kInternal. The RocksDB message is kept, prefixed with `context`.
//
// Thread-safety: a pure function.
#ifndef CRAWLER_SERVICES_COMMON_ROCKSDB_ROCKSDB_STATUS_H_
#define CRAWLER_SERVICES_COMMON_ROCKSDB_ROCKSDB_STATUS_H_

#include <string_view>

#include "absl/status/status.h"
#include "rocksdb/status.h"

namespace crawler::kv {

absl::Status ToAbslStatus(const rocksdb::Status& status, std::string_view context = "rocksdb");

}  // namespace crawler::kv

#endif  // CRAWLER_SERVICES_COMMON_ROCKSDB_ROCKSDB_STATUS_H_
