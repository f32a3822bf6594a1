#include "services/common/grpc/channel.h"

#include "absl/strings/str_cat.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/support/channel_arguments.h"
#include "grpcpp/support/client_interceptor.h"
#include "services/common/atomic_file.h"

namespace crawler::grpc_common {
namespace {

int Millis(absl::Duration d) { return static_cast<int>(absl::ToInt64Milliseconds(d)); }

// Adds `authorization: Bearer <token>` to every call's initial metadata.
class BearerInterceptor final : public grpc::experimental::Interceptor {
 public:
  explicit BearerInterceptor(const std::string& header) : header_(header) {}
  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(
            grpc::experimental::InterceptionHookPoints::PRE_SEND_INITIAL_METADATA)) {
      methods->GetSendInitialMetadata()->emplace("authorization", header_);
    }
    methods->Proceed();
  }

 private:
  const std::string& header_;
};

class BearerInterceptorFactory final
    : public grpc::experimental::ClientInterceptorFactoryInterface {
 public:
  explicit BearerInterceptorFactory(const std::string& token) : header_("Bearer " + token) {}
  grpc::experimental::Interceptor* CreateClientInterceptor(
      grpc::experimental::ClientRpcInfo*) override {
    return new BearerInterceptor(header_);
  }

 private:
  const std::string header_;  // outlives the interceptors: the channel owns the factory
};

}  // namespace

absl::StatusOr<std::shared_ptr<grpc::Channel>> MakeChannel(const std::string& target,
                                                           const ChannelOptions& options) {
  if (target.empty()) return absl::InvalidArgumentError("empty server address");
  if (options.cert_file.empty() != options.key_file.empty()) {
    return absl::InvalidArgumentError("a client certificate needs both its cert and key file");
  }
  std::shared_ptr<grpc::ChannelCredentials> credentials;
  if (options.tls || !options.ca_file.empty() || !options.cert_file.empty()) {
    grpc::SslCredentialsOptions ssl;
    if (!options.ca_file.empty()) {
      absl::StatusOr<std::string> ca = ReadWholeFile(options.ca_file);
      if (!ca.ok()) return ca.status();
      ssl.pem_root_certs = *ca;
    }
    if (!options.cert_file.empty()) {
      absl::StatusOr<std::string> cert = ReadWholeFile(options.cert_file);
      if (!cert.ok()) return cert.status();
      absl::StatusOr<std::string> key = ReadWholeFile(options.key_file);
      if (!key.ok()) return key.status();
      ssl.pem_cert_chain = *cert;
      ssl.pem_private_key = *key;
    }
    credentials = grpc::SslCredentials(ssl);
  } else {
    credentials = grpc::InsecureChannelCredentials();
  }
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(options.max_message_bytes);
  args.SetMaxSendMessageSize(options.max_message_bytes);
  args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, Millis(options.keepalive_time));
  args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, Millis(options.keepalive_timeout));
  args.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 0);
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, Millis(options.min_reconnect_backoff));
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, Millis(options.min_reconnect_backoff));
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, Millis(options.max_reconnect_backoff));
  if (!options.tls_server_name.empty()) {
    args.SetSslTargetNameOverride(options.tls_server_name);
  }
  if (options.bearer_token.empty()) return grpc::CreateCustomChannel(target, credentials, args);
  std::vector<std::unique_ptr<grpc::experimental::ClientInterceptorFactoryInterface>> factories;
  factories.push_back(std::make_unique<BearerInterceptorFactory>(options.bearer_token));
  return grpc::experimental::CreateCustomChannelWithInterceptors(target, credentials, args,
                                                                 std::move(factories));
}

}  // namespace crawler::grpc_common
