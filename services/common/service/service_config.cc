#include "services/common/service/service_config.h"

#include <algorithm>
#include <cstdint>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "services/common/grpc/call_auth.h"

namespace crawler::service {

absl::Status ValidateHostPort(absl::string_view key, absl::string_view address) {
  auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat(key, ": \"", address, "\" is not HOST:PORT (", why, ")"));
  };
  const size_t colon = address.rfind(':');
  if (colon == absl::string_view::npos) return bad("no port");
  const absl::string_view host = address.substr(0, colon);
  const absl::string_view port = address.substr(colon + 1);
  if (host.empty()) return bad("no host");
  if (host.front() == '[') {
    if (host.size() < 3 || host.back() != ']') return bad("unclosed IPv6 bracket");
  } else if (host.find(':') != absl::string_view::npos) {
    return bad("an IPv6 address needs brackets, e.g. [::1]:50051");
  }
  uint32_t number = 0;
  if (port.empty() || port.size() > 5 ||
      !std::all_of(port.begin(), port.end(), absl::ascii_isdigit) ||
      !absl::SimpleAtoi(port, &number) || number > 65535) {
    return bad("port must be 0..65535");
  }
  return absl::OkStatus();
}

absl::Status ServiceCommonConfig::Validate() const {
  if (absl::Status s = ValidateHostPort("listen", listen); !s.ok()) return s;
  if (!metrics_listen.empty()) {
    if (absl::Status s = ValidateHostPort("metrics_listen", metrics_listen); !s.ok()) return s;
  }
  if (tls_cert_file.empty() != tls_key_file.empty()) {
    return absl::InvalidArgumentError("tls_cert_file and tls_key_file go together");
  }
  if (!tls_client_ca_file.empty() && tls_cert_file.empty()) {
    return absl::InvalidArgumentError(
        "tls_client_ca_file needs tls_cert_file and tls_key_file (client certificates are "
        "only checked over TLS)");
  }
  return absl::OkStatus();
}

grpc_server::Endpoint ServiceCommonConfig::InternalEndpoint(
    std::vector<grpc::Service*> services) const {
  grpc_server::Endpoint endpoint;
  endpoint.listen = listen;
  endpoint.tls = {tls_cert_file, tls_key_file, tls_client_ca_file};
  endpoint.services = std::move(services);
  endpoint.authenticated = !internal_token_file.empty() || !tls_client_ca_file.empty();
  return endpoint;
}

absl::StatusOr<std::string> ServiceCommonConfig::InternalToken() const {
  if (internal_token_file.empty()) return std::string();
  absl::StatusOr<std::string> token = grpc_common::ReadTokenFile(internal_token_file);
  if (!token.ok()) {
    return absl::Status(token.status().code(),
                        absl::StrCat("internal_token_file: ", token.status().message()));
  }
  return token;
}

const config::KeyTable<ServiceCommonConfig>& ServiceCommonKeys() {
  using C = ServiceCommonConfig;
  static const auto* const table = [] {
    auto* t = new config::KeyTable<C>;
    t->Add({"listen", "--listen", "HOST:PORT of the internal RPCs (port 0: any free port)"},
           &C::listen)
        .Add({"tls_cert_file", "--tls-cert-file", "PEM certificate; with the key, serve TLS"},
             &C::tls_cert_file)
        .Add({"tls_key_file", "--tls-key-file", "PEM private key of tls_cert_file"},
             &C::tls_key_file)
        .Add({"tls_client_ca_file", "--tls-client-ca-file",
              "PEM CA; clients must present a certificate it signed"},
             &C::tls_client_ca_file)
        .Add({"internal_token_file", "--internal-token-file",
              "File with the internal token: required of every internal call, sent with this "
              "role's own"},
             &C::internal_token_file)
        .Add({"metrics_listen", "--metrics-listen",
              "Serve Prometheus metrics at http://HOST:PORT/metrics (port 0: a free port)"},
             &C::metrics_listen)
        .Add({"drain_timeout", "--drain-timeout",
              "On SIGTERM, how long calls in progress may finish, e.g. 20s"},
             &C::drain_timeout);
    return t;
  }();
  return *table;
}

absl::Status PeerConfig::Validate() const {
  if (tls_cert_file.empty() != tls_key_file.empty()) {
    return absl::InvalidArgumentError("peer_tls_cert_file and peer_tls_key_file go together");
  }
  if (!tls_cert_file.empty() && tls_ca_file.empty()) {
    return absl::InvalidArgumentError(
        "peer_tls_cert_file needs peer_tls_ca_file (client certificates only go over TLS)");
  }
  if (rpc_deadline <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("rpc_deadline must be > 0");
  }
  return absl::OkStatus();
}

grpc_common::ChannelOptions PeerConfig::Channel(const std::string& token) const {
  grpc_common::ChannelOptions options;
  options.ca_file = tls_ca_file;
  options.cert_file = tls_cert_file;
  options.key_file = tls_key_file;
  options.tls_server_name = tls_server_name;
  options.bearer_token = token;
  return options;
}

const config::KeyTable<PeerConfig>& PeerKeys() {
  using C = PeerConfig;
  static const auto* const table = [] {
    auto* t = new config::KeyTable<C>;
    t->Add({"peer_tls_ca_file", "--peer-tls-ca-file",
            "PEM CA of the other services' certificates; set: talk TLS to them"},
           &C::tls_ca_file)
        .Add({"peer_tls_cert_file", "--peer-tls-cert-file",
              "PEM client certificate for services that require one"},
             &C::tls_cert_file)
        .Add({"peer_tls_key_file", "--peer-tls-key-file", "PEM key of peer_tls_cert_file"},
             &C::tls_key_file)
        .Add({"peer_tls_server_name", "--peer-tls-server-name",
              "Name checked in the other services' certificates instead of their address"},
             &C::tls_server_name)
        .Add({"rpc_deadline", "--rpc-deadline",
              "Deadline of one call to another service, e.g. 10s"},
             &C::rpc_deadline);
    return t;
  }();
  return *table;
}

}  // namespace crawler::service
