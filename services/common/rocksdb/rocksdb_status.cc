#include "services/common/rocksdb/rocksdb_status.h"

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "rocksdb/status.h"

namespace crawler::kv {

absl::Status ToAbslStatus(const rocksdb::Status& status, std::string_view context) {
  if (status.ok()) return absl::OkStatus();
  const std::string message =
      absl::StrCat(absl::string_view(context.data(), context.size()), ": ", status.ToString());
  switch (status.code()) {
    case rocksdb::Status::kNotFound:
      return absl::NotFoundError(message);
    case rocksdb::Status::kCorruption:
      return absl::DataLossError(message);
    case rocksdb::Status::kIOError:
      if (status.IsNoSpace()) return absl::ResourceExhaustedError(message);
      if (status.IsPathNotFound()) return absl::NotFoundError(message);
      return absl::UnavailableError(message);
    case rocksdb::Status::kBusy:
    case rocksdb::Status::kTimedOut:
    case rocksdb::Status::kTryAgain:
    case rocksdb::Status::kShutdownInProgress:
      return absl::UnavailableError(message);
    case rocksdb::Status::kInvalidArgument:
      return absl::InvalidArgumentError(message);
    case rocksdb::Status::kNotSupported:
      return absl::UnimplementedError(message);
    case rocksdb::Status::kAborted:
      return absl::AbortedError(message);
    default:
      return absl::InternalError(message);
  }
}

}  // namespace crawler::kv
