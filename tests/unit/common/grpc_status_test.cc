// absl::Status <-> grpc::Status (services/common/grpc/status.h): every canonical code maps to
// the gRPC code of the same name and back, with its message.
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "services/common/grpc/status.h"

namespace crawler::grpc_common {
namespace {

const std::vector<std::pair<absl::StatusCode, grpc::StatusCode>>& AllCodes() {
  static const auto* codes = new std::vector<std::pair<absl::StatusCode, grpc::StatusCode>>{
      {absl::StatusCode::kCancelled, grpc::StatusCode::CANCELLED},
      {absl::StatusCode::kUnknown, grpc::StatusCode::UNKNOWN},
      {absl::StatusCode::kInvalidArgument, grpc::StatusCode::INVALID_ARGUMENT},
      {absl::StatusCode::kDeadlineExceeded, grpc::StatusCode::DEADLINE_EXCEEDED},
      {absl::StatusCode::kNotFound, grpc::StatusCode::NOT_FOUND},
      {absl::StatusCode::kAlreadyExists, grpc::StatusCode::ALREADY_EXISTS},
      {absl::StatusCode::kPermissionDenied, grpc::StatusCode::PERMISSION_DENIED},
      {absl::StatusCode::kResourceExhausted, grpc::StatusCode::RESOURCE_EXHAUSTED},
      {absl::StatusCode::kFailedPrecondition, grpc::StatusCode::FAILED_PRECONDITION},
      {absl::StatusCode::kAborted, grpc::StatusCode::ABORTED},
      {absl::StatusCode::kOutOfRange, grpc::StatusCode::OUT_OF_RANGE},
      {absl::StatusCode::kUnimplemented, grpc::StatusCode::UNIMPLEMENTED},
      {absl::StatusCode::kInternal, grpc::StatusCode::INTERNAL},
      {absl::StatusCode::kUnavailable, grpc::StatusCode::UNAVAILABLE},
      {absl::StatusCode::kDataLoss, grpc::StatusCode::DATA_LOSS},
      {absl::StatusCode::kUnauthenticated, grpc::StatusCode::UNAUTHENTICATED},
  };
  return *codes;
}

TEST(GrpcStatusTest, OkMapsToOk) {
  EXPECT_TRUE(ToGrpcStatus(absl::OkStatus()).ok());
  EXPECT_TRUE(FromGrpcStatus(grpc::Status::OK).ok());
}

TEST(GrpcStatusTest, EveryCanonicalCodeMapsOneToOneWithItsMessage) {
  for (const auto& [absl_code, grpc_code] : AllCodes()) {
    const std::string message = "partition 3: " + std::to_string(static_cast<int>(absl_code));
    const grpc::Status to = ToGrpcStatus(absl::Status(absl_code, message));
    EXPECT_EQ(to.error_code(), grpc_code);
    EXPECT_EQ(to.error_message(), message);
    const absl::Status from = FromGrpcStatus(grpc::Status(grpc_code, message));
    EXPECT_EQ(from.code(), absl_code);
    EXPECT_EQ(std::string(from.message()), message);
  }
}

TEST(GrpcStatusTest, CodesOutsideTheCanonicalRangeBecomeUnknown) {
  const absl::Status from =
      FromGrpcStatus(grpc::Status(static_cast<grpc::StatusCode>(42), "from a broken peer"));
  EXPECT_EQ(from.code(), absl::StatusCode::kUnknown);
  EXPECT_EQ(std::string(from.message()), "from a broken peer");
  const grpc::Status to = ToGrpcStatus(absl::Status(static_cast<absl::StatusCode>(99), "odd"));
  EXPECT_EQ(to.error_code(), grpc::StatusCode::UNKNOWN);
}

// A status message is sent in the reply's trailing metadata, which clients cap (8 KiB by
// default): a longer one would turn any error into "metadata size exceeds limit".
TEST(GrpcStatusTest, LongMessagesAreCutToFitTheMetadata) {
  constexpr size_t kMessageKept = 1900;  // status.h
  const grpc::Status to =
      ToGrpcStatus(absl::InvalidArgumentError("field x: " + std::string(10 << 20, 'y')));
  EXPECT_EQ(to.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_LE(to.error_message().size(), 2048u);
  EXPECT_GE(to.error_message().size(), kMessageKept);
  EXPECT_EQ(to.error_message().substr(0, 12), "field x: yyy");
  EXPECT_NE(to.error_message().find("cut"), std::string::npos);
  // No UTF-8 sequence is cut in half: every lead byte of "é" keeps its continuation byte.
  const std::string cut =
      ToGrpcStatus(absl::InternalError(std::string(kMessageKept - 1, 'a') + "\xc3\xa9\xc3\xa9" +
                                       std::string(5000, 'd')))
          .error_message();
  EXPECT_EQ(cut.substr(0, kMessageKept - 1), std::string(kMessageKept - 1, 'a'));
  for (size_t i = cut.find('\xc3'); i != std::string::npos; i = cut.find('\xc3', i + 1)) {
    EXPECT_EQ(cut.substr(i, 2), "\xc3\xa9") << "at " << i;
  }
}

}  // namespace
}  // namespace crawler::grpc_common
