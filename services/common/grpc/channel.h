// MakeChannel: how every crawler client (fetchers, the scheduler, crawlctl, tools) opens a gRPC
// channel to a service: plaintext or TLS from PEM files, a bearer token on every call, a limit
// on the replies it takes, and keepalive pings so that a peer that vanished (a killed pod,
// a cut connection) is noticed within seconds instead of at the kernel's TCP timeout.
//
// A channel connects lazily and reconnects by itself; a call on a channel whose server is down
// fails with UNAVAILABLE (or DEADLINE_EXCEEDED at its deadline), which the callers' retry
// policies (services/common/retry) wait out.
//
// Thread-safety: pure functions; grpc::Channel is thread-safe.
#ifndef CRAWLER_SERVICES_COMMON_GRPC_CHANNEL_H_
#define CRAWLER_SERVICES_COMMON_GRPC_CHANNEL_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "grpcpp/channel.h"

namespace crawler::grpc_common {

struct ChannelOptions {
  // PEM files; all empty: plaintext. ca_file alone: TLS verifying the server against it (empty
  // ca_file with TLS on: the system roots). cert_file and key_file together: a client
  // certificate for servers that require one.
  std::string ca_file;
  std::string cert_file;
  std::string key_file;
  bool tls = false;  // TLS even when no file is given (system roots, no client certificate)
  // Overrides the name checked against the server's certificate (tests, IP-addressed pods).
  std::string tls_server_name;
  // Sent with every call as `authorization: Bearer <token>` (the internal token,
  // grpc_common::CallAuth); empty: none. Over plaintext too: gRPC's call credentials refuse
  // insecure channels, so the header is added by a client interceptor.
  std::string bearer_token;
  int max_message_bytes = 64 << 20;
  // Keepalive ping interval on an idle connection, and how long a ping may go unanswered.
  absl::Duration keepalive_time = absl::Seconds(10);
  absl::Duration keepalive_timeout = absl::Seconds(5);
  // Reconnect back-off bounds after a failed connection attempt.
  absl::Duration min_reconnect_backoff = absl::Milliseconds(100);
  absl::Duration max_reconnect_backoff = absl::Seconds(5);
};

// A channel to `target` ("HOST:PORT", or any gRPC target URI). kInvalidArgument for an empty
// target or a client certificate without its key; kNotFound for a PEM file that cannot be read.
absl::StatusOr<std::shared_ptr<grpc::Channel>> MakeChannel(const std::string& target,
                                                           const ChannelOptions& options = {});

}  // namespace crawler::grpc_common

#endif  // CRAWLER_SERVICES_COMMON_GRPC_CHANNEL_H_
