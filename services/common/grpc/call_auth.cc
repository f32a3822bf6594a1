#include "services/common/grpc/call_auth.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "grpcpp/security/auth_context.h"

namespace crawler::grpc_common {

absl::StatusOr<std::string> ReadTokenFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read the token file ", path));
  std::ostringstream text;
  text << in.rdbuf();
  std::string token(absl::StripAsciiWhitespace(text.str()));
  if (token.size() < 16) {
    return absl::InvalidArgumentError(
        absl::StrCat("the token in ", path, " is shorter than 16 characters"));
  }
  return token;
}

bool ConstantTimeEquals(std::string_view a, std::string_view b) {
  // Every byte of the longer one is looked at, whatever the contents.
  const size_t n = std::max(a.size(), b.size());
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < n; ++i) {
    const unsigned char x = i < a.size() ? static_cast<unsigned char>(a[i]) : 0;
    const unsigned char y = i < b.size() ? static_cast<unsigned char>(b[i]) : 0;
    diff = static_cast<unsigned char>(diff | (x ^ y));
  }
  return diff == 0;
}

CallAuth::CallAuth(CallAuthOptions options, const Clock& clock, Logger log)
    : options_(std::move(options)), log_(absl::Seconds(1), clock, std::move(log)) {}

grpc::Status CallAuth::Refuse(const grpc::ServerContext& context, std::string_view method,
                              grpc::StatusCode code, std::string_view why) {
  refused_.fetch_add(1, std::memory_order_relaxed);
  log_.Log(absl::StrCat("refused ", std::string(method),
                        options_.service.empty() ? "" : absl::StrCat(" (", options_.service, ")"),
                        " from ", context.peer(), ": ", std::string(why)));
  if (code == grpc::StatusCode::PERMISSION_DENIED) {
    return grpc::Status(code,
                        absl::StrCat(std::string(why), " may not call ", std::string(method)));
  }
  return grpc::Status(code, "a valid bearer token is required (authorization: Bearer <token>)");
}

grpc::Status CallAuth::Check(const grpc::ServerContext& context, std::string_view method) {
  if (!options_.token.empty()) {
    const auto& metadata = context.client_metadata();
    auto it = metadata.find("authorization");
    if (it == metadata.end()) {
      return Refuse(context, method, grpc::StatusCode::UNAUTHENTICATED,
                    "no authorization metadata");
    }
    const std::string_view value(it->second.data(), it->second.size());
    constexpr std::string_view kBearer = "Bearer ";
    if (value.size() <= kBearer.size() ||
        !absl::EqualsIgnoreCase(absl::string_view(value.data(), kBearer.size()),
                                absl::string_view(kBearer.data(), kBearer.size()))) {
      return Refuse(context, method, grpc::StatusCode::UNAUTHENTICATED, "not a bearer token");
    }
    if (!ConstantTimeEquals(value.substr(kBearer.size()), options_.token)) {
      return Refuse(context, method, grpc::StatusCode::UNAUTHENTICATED, "wrong token");
    }
  }
  auto allowed = options_.roles.find(method);
  if (allowed == options_.roles.end()) return grpc::Status::OK;
  const std::shared_ptr<const grpc::AuthContext> auth = context.auth_context();
  if (auth == nullptr) return grpc::Status::OK;
  const std::vector<grpc::string_ref> names = auth->FindPropertyValues("x509_common_name");
  if (names.empty()) return grpc::Status::OK;  // no client certificate: the token decided
  const std::string role(names.front().data(), names.front().size());
  if (allowed->second.contains(role)) return grpc::Status::OK;
  return Refuse(context, method, grpc::StatusCode::PERMISSION_DENIED,
                absl::StrCat("role \"", role, "\""));
}

}  // namespace crawler::grpc_common
