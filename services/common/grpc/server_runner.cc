#include "services/common/grpc/server_runner.h"

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "grpcpp/ext/proto_server_reflection_plugin.h"
#include "grpcpp/health_check_service_interface.h"
#include "grpcpp/impl/server_builder_option.h"
#include "grpcpp/impl/server_builder_plugin.h"
#include "grpcpp/impl/server_initializer.h"
#include "grpcpp/resource_quota.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/server_builder.h"
#include "services/common/atomic_file.h"

namespace crawler::grpc_server {
namespace {

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> Credentials(const TlsFiles& tls) {
  if (tls.cert_file.empty() && tls.key_file.empty() && tls.ca_file.empty()) {
    return grpc::InsecureServerCredentials();
  }
  if (tls.cert_file.empty() || tls.key_file.empty()) {
    return absl::InvalidArgumentError("TLS needs both a certificate and a key file");
  }
  absl::StatusOr<std::string> cert = ReadWholeFile(tls.cert_file);
  if (!cert.ok()) return cert.status();
  absl::StatusOr<std::string> key = ReadWholeFile(tls.key_file);
  if (!key.ok()) return key.status();
  grpc::SslServerCredentialsOptions ssl(GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE);
  ssl.pem_key_cert_pairs.push_back({*key, *cert});
  if (!tls.ca_file.empty()) {
    absl::StatusOr<std::string> ca = ReadWholeFile(tls.ca_file);
    if (!ca.ok()) return ca.status();
    ssl.pem_root_certs = *ca;
    ssl.client_certificate_request = GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY;
  }
  return grpc::SslServerCredentials(ssl);
}

// Records the full names of the services a server was built with ("crawler.v1.Frontier"), so
// that health can answer for each by name: grpc::Service does not expose its name, and a
// builder plugin is where gRPC hands the list out.
class ServiceNames final : public grpc::ServerBuilderOption {
 public:
  explicit ServiceNames(std::vector<std::string>* names) : names_(names) {}
  void UpdateArguments(grpc::ChannelArguments*) override {}
  void UpdatePlugins(std::vector<std::unique_ptr<grpc::ServerBuilderPlugin>>* plugins) override {
    plugins->push_back(std::make_unique<Plugin>(names_));
  }

 private:
  class Plugin final : public grpc::ServerBuilderPlugin {
   public:
    explicit Plugin(std::vector<std::string>* names) : names_(names) {}
    std::string name() override { return "crawler_service_names"; }
    void InitServer(grpc::ServerInitializer*) override {}
    void Finish(grpc::ServerInitializer* si) override {
      for (const std::string& service : *si->GetServiceList()) {
        // gRPC's own (health, reflection) are not ours to report on.
        if (!absl::StartsWith(service, "grpc.")) names_->push_back(service);
      }
    }
    void ChangeArguments(const std::string&, void*) override {}

   private:
    std::vector<std::string>* const names_;
  };
  std::vector<std::string>* const names_;
};

// True for the loopback names and addresses a listen address may give ("127.0.0.1",
// "localhost", "[::1]"): no other machine can reach those.
bool IsLoopback(const std::string& host) {
  return host == "localhost" || host == "[::1]" || host.rfind("127.", 0) == 0;
}

}  // namespace

absl::StatusOr<std::unique_ptr<ServerRunner>> ServerRunner::Start(const ServerOptions& options) {
  if (options.name.empty()) return absl::InvalidArgumentError("server name must not be empty");
  if (options.endpoints.empty()) return absl::InvalidArgumentError("no endpoint to listen on");
  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  std::vector<std::unique_ptr<grpc::Server>> servers;
  std::vector<int> ports;
  std::vector<std::string> addresses;
  for (const Endpoint& endpoint : options.endpoints) {
    if (endpoint.listen.empty()) return absl::InvalidArgumentError("empty listen address");
    absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> credentials =
        Credentials(endpoint.tls);
    if (!credentials.ok()) return credentials.status();
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort(endpoint.listen, *credentials, &port);
    // gRPC sets SO_REUSEPORT by default: a second process on the same port would then share it
    // silently instead of failing to start.
    builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
    // Clients ping every 10 s while calls are open (channel.h); the default policy would answer
    // pings more frequent than every 5 minutes with GOAWAY.
    builder.AddChannelArgument(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS, 5000);
    builder.SetMaxReceiveMessageSize(endpoint.max_receive_bytes);
    builder.SetMaxSendMessageSize(options.max_send_bytes);
    grpc::ResourceQuota quota(absl::StrCat(options.name, " ", endpoint.listen));
    quota.Resize(endpoint.max_memory_bytes);
    builder.SetResourceQuota(quota);
    for (grpc::Service* service : endpoint.services) builder.RegisterService(service);
    std::vector<std::string> names;
    builder.SetOption(std::make_unique<ServiceNames>(&names));
    if (options.interceptors) builder.experimental().SetInterceptorCreators(options.interceptors());
    std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
    if (server == nullptr || port == 0) {
      for (auto& s : servers) s->Shutdown();
      return absl::UnavailableError(
          absl::StrCat(options.name, ": cannot listen on ", endpoint.listen));
    }
    // Registered NOT_SERVING; SetServing(true) below turns them with the overall "".
    if (grpc::HealthCheckServiceInterface* health = server->GetHealthCheckService()) {
      for (const std::string& name : names) health->SetServingStatus(name, false);
    }
    ports.push_back(port);
    const std::string host = endpoint.listen.substr(0, endpoint.listen.rfind(':'));
    addresses.push_back(absl::StrCat(host, ":", port));
    options.log.Info("serving on ", addresses.back(),
                     endpoint.tls.cert_file.empty() ? "" : " (TLS)");
    if (!endpoint.authenticated && !IsLoopback(host)) {
      options.log.Warning("warning: ", addresses.back(),
                          " takes calls from anyone who can reach it (no internal token, no "
                          "client certificates): keep it off untrusted networks");
    }
    servers.push_back(std::move(server));
  }
  auto runner = std::unique_ptr<ServerRunner>(
      new ServerRunner(options.log, std::move(servers), std::move(ports), std::move(addresses)));
  runner->SetServing(true);
  return runner;
}

ServerRunner::ServerRunner(Logger log, std::vector<std::unique_ptr<grpc::Server>> servers,
                           std::vector<int> ports, std::vector<std::string> addresses)
    : log_(std::move(log)),
      servers_(std::move(servers)),
      ports_(std::move(ports)),
      addresses_(std::move(addresses)) {}

ServerRunner::~ServerRunner() { Shutdown(absl::ZeroDuration()); }

void ServerRunner::SetServing(bool serving) {
  for (auto& server : servers_) {
    if (grpc::HealthCheckServiceInterface* health = server->GetHealthCheckService()) {
      health->SetServingStatus(serving);
    }
  }
}

void ServerRunner::Shutdown(absl::Duration deadline) {
  {
    absl::MutexLock lock(&mu_);
    if (shut_down_) return;
    shut_down_ = true;
  }
  SetServing(false);
  const auto until = absl::ToChronoTime(absl::Now() + deadline);
  for (auto& server : servers_) server->Shutdown(until);
  for (size_t i = 0; i < servers_.size(); ++i) {
    servers_[i]->Wait();
    log_.Info("stopped serving on ", addresses_[i]);
  }
}

void ServerRunner::Wait() {
  for (auto& server : servers_) server->Wait();
}

}  // namespace crawler::grpc_server
