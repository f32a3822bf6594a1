#include "services/common/grpc/status.h"

#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "lib/encoding/absl_view.h"
#include "lib/encoding/utf8.h"

namespace crawler::grpc_common {
namespace {

// Both enums number the canonical codes 0 (OK) to 16 (UNAUTHENTICATED) identically; these
// asserts pin the ends and the two codes whose names differ most between the libraries.
static_assert(static_cast<int>(absl::StatusCode::kOk) == grpc::StatusCode::OK);
static_assert(static_cast<int>(absl::StatusCode::kCancelled) == grpc::StatusCode::CANCELLED);
static_assert(static_cast<int>(absl::StatusCode::kDataLoss) == grpc::StatusCode::DATA_LOSS);
static_assert(static_cast<int>(absl::StatusCode::kUnauthenticated) ==
              grpc::StatusCode::UNAUTHENTICATED);
constexpr int kLastCanonicalCode = grpc::StatusCode::UNAUTHENTICATED;

// A status message travels in the reply's trailing metadata, which clients cap (gRPC's default:
// 8 KiB, percent-encoding included): a longer one turns the error into "metadata size exceeds
// limit". Messages past 2 KiB keep their first 1,900 bytes.
constexpr size_t kMaxMessageBytes = 2048;
constexpr size_t kMessageKept = 1900;

}  // namespace

grpc::Status ToGrpcStatus(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  int code = static_cast<int>(status.code());
  if (code < 0 || code > kLastCanonicalCode) code = grpc::StatusCode::UNKNOWN;
  const std::string_view message(status.message().data(), status.message().size());
  if (message.size() <= kMaxMessageBytes) {
    return grpc::Status(static_cast<grpc::StatusCode>(code), std::string(message));
  }
  const size_t kept = encoding::Utf8PrefixLength(message, kMessageKept);
  return grpc::Status(static_cast<grpc::StatusCode>(code),
                      absl::StrCat(encoding::AsAbsl(message.substr(0, kept)), " [... ",
                                   message.size() - kept, " more bytes cut]"));
}

absl::Status FromGrpcStatus(const grpc::Status& status) {
  if (status.ok()) return absl::OkStatus();
  int code = static_cast<int>(status.error_code());
  if (code < 0 || code > kLastCanonicalCode) code = static_cast<int>(absl::StatusCode::kUnknown);
  return absl::Status(static_cast<absl::StatusCode>(code), status.error_message());
}

}  // namespace crawler::grpc_common
