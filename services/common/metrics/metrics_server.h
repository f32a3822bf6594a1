// MetricsServer: the registry a process's metrics live in, served in the Prometheus text format
// at http://<listen>/metrics (prometheus-cpp's Exposer, civetweb: 8 threads; a connection that
// has not sent its request within 5 s is closed, so idle or half-sent connections cannot hold
// the scrapes up for long). docs/metrics.md lists every
// metric; names follow `crawler_<service>_<what>_<unit>` with bounded labels only (never a URL
// or a host).
//
// One MetricsServer per process (no global registry): whoever starts the process (a crawlerd
// role, `crawler crawl`) creates it and hands registry() to the parts that export metrics. Those
// either add their families to registry() once and update them on their hot path (holding the
// prometheus::Counter& of each fixed label set), or add a Collectable that reads their existing
// counters when scraped (AddCollectable; nothing on the hot path).
//
// Every server exports crawler_build_info{version} = 1.
//
// Thread-safety: registry() and AddCollectable are thread-safe (prometheus-cpp locks); scrapes
// run on the exposer's own threads. Collectables must outlive the MetricsServer or be held by it
// (AddCollectable keeps a shared_ptr).
#ifndef CRAWLER_SERVICES_COMMON_METRICS_METRICS_SERVER_H_
#define CRAWLER_SERVICES_COMMON_METRICS_METRICS_SERVER_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "prometheus/collectable.h"
#include "prometheus/metric_family.h"
#include "prometheus/registry.h"
#include "services/common/metrics/rpc_metrics.h"

namespace prometheus {
class Exposer;
}  // namespace prometheus

namespace crawler::metrics {

class MetricsServer {
 public:
  // Binds `listen` ("host:port"; port 0 picks a free one, see port()) and serves /metrics there.
  // InvalidArgument for an empty or malformed address, Unavailable when it cannot be bound (in
  // use, no such interface, no permission); the message names the address.
  static absl::StatusOr<std::unique_ptr<MetricsServer>> Start(const std::string& listen);

  ~MetricsServer();
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  prometheus::Registry& registry() { return *registry_; }

  // Serves `collectable` at /metrics next to the registry, for as long as this server lives.
  void AddCollectable(std::shared_ptr<prometheus::Collectable> collectable);

  // Stops serving `collectable` (e.g. before what it reads goes away); a scrape in progress
  // finishes first.
  void RemoveCollectable(const std::shared_ptr<prometheus::Collectable>& collectable);

  // Stops serving /metrics (a scrape in progress finishes first; later ones find the port
  // closed). For a process shutting down: called before its parts go, no scrape sees a part of
  // the series vanish while the rest remain. The registry and collectables stay usable
  // (AddCollectable and RemoveCollectable become no-ops for serving).
  void StopServing();

  // The gRPC server metrics of `service` (rpc_metrics.h), made on first use and kept for as long
  // as this server lives (so it must outlive the gRPC servers using its interceptors).
  RpcMetrics& Rpc(const std::string& service);

  // The bound port (the actual one when `listen` asked for port 0).
  int port() const { return port_; }
  // "host:port" with the bound port, for log lines and tests.
  const std::string& address() const { return address_; }

 private:
  MetricsServer() = default;

  std::shared_ptr<prometheus::Registry> registry_;
  absl::Mutex mu_;
  std::vector<std::shared_ptr<prometheus::Collectable>> collectables_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, std::unique_ptr<RpcMetrics>> rpc_ ABSL_GUARDED_BY(mu_);
  // Null after StopServing.
  std::unique_ptr<prometheus::Exposer> exposer_ ABSL_GUARDED_BY(mu_);
  int port_ = 0;
  std::string address_;
};

// A SnapshotCollector served by a MetricsServer until Reset() or destruction: what a role's
// server holds for the figures it reads from its parts, so a scrape never sees them gone.
class ScopedCollector {
 public:
  ScopedCollector() = default;
  // With a null `server`, nothing is served (metrics are off).
  ScopedCollector(MetricsServer* server,
                  std::function<std::vector<prometheus::MetricFamily>()> callback);
  ScopedCollector(ScopedCollector&& other) noexcept;
  ScopedCollector& operator=(ScopedCollector&& other) noexcept;
  ~ScopedCollector() { Reset(); }

  // Stops serving it (a scrape in progress finishes first). Idempotent.
  void Reset();

 private:
  MetricsServer* server_ = nullptr;
  std::shared_ptr<prometheus::Collectable> collectable_;
};

// For grpc_server::ServerOptions::interceptors: the RPC metrics of `service` in `server`
// (MetricsServer::Rpc); an empty function (no interceptors) when `server` is null.
std::function<std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>>()>
RpcInterceptors(MetricsServer* server, const std::string& service);

// The version reported by crawler_build_info (the project's CMake version).
const char* BuildVersion();

}  // namespace crawler::metrics

#endif  // CRAWLER_SERVICES_COMMON_METRICS_METRICS_SERVER_H_
