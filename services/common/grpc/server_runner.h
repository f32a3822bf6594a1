// ServerRunner: how every crawler service serves gRPC. Each endpoint (the internal RPCs;
// optionally the admin API on a port of its own) is a grpc::Server of its own, so a service is
// reachable only where it is listed, each with optional TLS from certificate files, plus
// grpc.health.v1.Health (one status per service name and the overall "") and server
// reflection. It logs one line per endpoint when serving and one when stopped, and drains on
// Shutdown: new calls are refused, calls in progress get until the deadline to finish.
//
// Thread-safety: Shutdown and SetServing may be called from any thread; Wait blocks until
// Shutdown has finished. The services must outlive the runner.
#ifndef CRAWLER_SERVICES_COMMON_GRPC_SERVER_RUNNER_H_
#define CRAWLER_SERVICES_COMMON_GRPC_SERVER_RUNNER_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "grpcpp/server.h"
#include "grpcpp/support/config.h"
#include "grpcpp/support/server_interceptor.h"
#include "lib/log/logger.h"

namespace grpc {
class Service;
}  // namespace grpc

namespace crawler::grpc_server {

struct TlsFiles {
  // PEM files; all empty: plaintext. cert and key together; ca (optional) makes the server
  // require and verify client certificates.
  std::string cert_file;
  std::string key_file;
  std::string ca_file;
};

struct Endpoint {
  // "HOST:PORT"; port 0 picks a free one (Port() tells which).
  std::string listen;
  TlsFiles tls;
  // The services reachable on this endpoint, and only on it.
  std::vector<grpc::Service*> services;
  // Largest request message accepted, bytes: what any caller, authenticated or not, can make
  // the server read and hold per call (gRPC reads a message whole before a handler sees it).
  // Each endpoint's own, from what its methods carry: a 512-URL batch is ~100 KiB, a
  // collection's definition with its seeds a few MiB at most (more seeds go by AddSeeds).
  int max_receive_bytes = 4 << 20;
  // What gRPC may hold for this endpoint's calls and connections, bytes (a ResourceQuota): past
  // it the transport cancels streams rather than read more, so many callers sending large
  // messages at once cannot take the process's memory.
  size_t max_memory_bytes = size_t{128} << 20;
  // Its services check a credential (CallAuth). An endpoint without one that listens beyond
  // loopback is served with a warning in the log.
  bool authenticated = true;
};

struct ServerOptions {
  // The service's name in errors ("frontier", "fetcher", "dedup", "scheduler").
  std::string name;
  // Where "serving on HOST:PORT" and "stopped serving on HOST:PORT" go.
  Logger log;
  std::vector<Endpoint> endpoints;
  // Largest response sent, bytes (a lease of 1,024 URLs is ~300 KiB; a collection's
  // definition with its seeds a few MiB). Requests: Endpoint::max_receive_bytes.
  int max_send_bytes = 64 << 20;
  // Server interceptors, made afresh for each endpoint's server (each takes ownership of its
  // own), e.g. metrics::RpcMetrics::NewFactory. Empty: none.
  std::function<
      std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>>()>
      interceptors;
};

class ServerRunner {
 public:
  // Binds every endpoint and starts serving. kInvalidArgument for bad options, kNotFound for a
  // TLS file that cannot be read, kUnavailable when an address cannot be bound.
  static absl::StatusOr<std::unique_ptr<ServerRunner>> Start(const ServerOptions& options);
  ~ServerRunner();

  // The port endpoint `index` is bound to.
  int Port(size_t index) const { return ports_.at(index); }

  // Health of the whole server (the "" service) and of each registered service.
  void SetServing(bool serving);

  // Stops accepting calls and waits up to `deadline` for those in progress; then cancels them.
  void Shutdown(absl::Duration deadline);
  void Wait();

 private:
  ServerRunner(Logger log, std::vector<std::unique_ptr<grpc::Server>> servers,
               std::vector<int> ports, std::vector<std::string> addresses);

  const Logger log_;
  std::vector<std::unique_ptr<grpc::Server>> servers_;
  const std::vector<int> ports_;
  const std::vector<std::string> addresses_;
  absl::Mutex mu_;
  bool shut_down_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace crawler::grpc_server

#endif  // CRAWLER_SERVICES_COMMON_GRPC_SERVER_RUNNER_H_
