// ServiceCommonConfig: the keys every crawlerd role's YAML file shares (docs/services.md): where
// the internal RPCs listen and with which TLS files, where Prometheus metrics will be served, and
// how long a drain may take. A role's config struct holds one as a member and its key table
// Includes ServiceCommonKeys(), so the keys, flags and defaults are written once for all roles.
// A role that wants another default (e.g. another port) sets it in its own struct's member
// initialiser; the table shows that default.
//
// Thread-safety: plain values; the table is immutable.
#ifndef CRAWLER_SERVICES_COMMON_SERVICE_SERVICE_CONFIG_H_
#define CRAWLER_SERVICES_COMMON_SERVICE_SERVICE_CONFIG_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "services/common/config/key_table.h"
#include "services/common/grpc/channel.h"
#include "services/common/grpc/server_runner.h"

namespace grpc {
class Service;
}  // namespace grpc

namespace crawler::service {

struct ServiceCommonConfig {
  // "HOST:PORT" of the internal RPCs (and health, reflection). Port 0 picks a free port, which
  // the start-up line names ("<role>: serving on HOST:PORT"); tests use it. Loopback unless
  // set: an internal port open to a network is a decision (the chart makes it, with the
  // credentials below).
  std::string listen = "127.0.0.1:50051";
  // PEM files. cert and key together turn TLS on; client_ca (optional, needs cert and key) makes
  // the server require client certificates signed by it, whose common name is the caller's role
  // (grpc_common::CallAuth). All empty: plaintext.
  std::string tls_cert_file;
  std::string tls_key_file;
  std::string tls_client_ca_file;
  // File holding the internal token (at least 16 characters): every call to this role's
  // internal RPCs must carry it, and this role's own calls to the others carry it. Empty: no
  // token (then only the network, or mutual TLS, keeps strangers out).
  std::string internal_token_file;
  // "HOST:PORT" of the Prometheus /metrics endpoint; empty: none. Validated now, served once the
  // services export metrics (docs/architecture.md §11); until then setting it only logs that it is
  // unused.
  std::string metrics_listen;
  // On SIGTERM/SIGINT: how long calls in progress may run before they are cancelled. Kubernetes
  // kills a pod 30 s after SIGTERM by default (terminationGracePeriodSeconds), so the default
  // leaves 10 s for the role's own stop hook and closing its storage.
  absl::Duration drain_timeout = absl::Seconds(20);

  // kInvalidArgument naming the key: listen / metrics_listen not HOST:PORT (port 0..65535; a
  // bracketed IPv6 literal is fine), a TLS key without its certificate or the reverse, a client
  // CA without a server certificate.
  absl::Status Validate() const;

  // The endpoint of the internal RPCs serving `services`, with this block's TLS files.
  grpc_server::Endpoint InternalEndpoint(std::vector<grpc::Service*> services) const;

  // The internal token (internal_token_file's, trimmed); empty without the key. kNotFound or
  // kInvalidArgument as grpc_common::ReadTokenFile.
  absl::StatusOr<std::string> InternalToken() const;
};

// listen, tls_cert_file, tls_key_file, tls_client_ca_file, internal_token_file, metrics_listen,
// drain_timeout.
const config::KeyTable<ServiceCommonConfig>& ServiceCommonKeys();

// How a role reaches the other services (fetchers: frontiers, dedup, scheduler; the scheduler:
// frontiers): TLS towards them and the deadline of each call.
struct PeerConfig {
  // PEM CA the peers' certificates are checked against; non-empty turns TLS on towards them.
  std::string tls_ca_file;
  // A client certificate and its key, for peers that require one (tls_client_ca_file). Its
  // common name is this role's name: the peers allow each role its own calls.
  std::string tls_cert_file;
  std::string tls_key_file;
  // The name the peers' certificates are checked against instead of the address dialled (for
  // peers reached by IP address, or certificates made for one shared name).
  std::string tls_server_name;
  // Deadline of one call to a peer: a peer that is down fails the call within it
  // (UNAVAILABLE or DEADLINE_EXCEEDED) and the caller retries later.
  absl::Duration rpc_deadline = absl::Seconds(10);

  // kInvalidArgument naming the key.
  absl::Status Validate() const;
  // The channel options towards the peers; `token`: the internal token the calls carry.
  grpc_common::ChannelOptions Channel(const std::string& token = "") const;
};

// peer_tls_ca_file, peer_tls_cert_file, peer_tls_key_file, peer_tls_server_name, rpc_deadline.
const config::KeyTable<PeerConfig>& PeerKeys();

// Checks "HOST:PORT": a non-empty host (a name, an IPv4 address or a bracketed IPv6 address) and
// a decimal port in [0, 65535]. kInvalidArgument naming `key` otherwise.
absl::Status ValidateHostPort(absl::string_view key, absl::string_view address);

}  // namespace crawler::service

#endif  // CRAWLER_SERVICES_COMMON_SERVICE_SERVICE_CONFIG_H_
