#include "services/common/metrics/metrics_server.h"

#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "prometheus/exposer.h"
#include "prometheus/gauge.h"
#include "services/common/metrics/snapshot_collector.h"

#ifndef CRAWLER_VERSION
#define CRAWLER_VERSION "unknown"
#endif

namespace crawler::metrics {
namespace {

// "host:port" with a numeric port 0..65535 and a non-empty host ("[::1]:9100" for IPv6).
absl::Status CheckListen(const std::string& listen) {
  const size_t colon = listen.rfind(':');
  uint32_t port = 0;
  if (colon == std::string::npos || colon == 0 ||
      !absl::SimpleAtoi(listen.substr(colon + 1), &port) || port > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("metrics address \"", listen, "\" is not host:port"));
  }
  return absl::OkStatus();
}

// See Start.
constexpr int kThreads = 8;
constexpr absl::Duration kRequestTimeout = absl::Seconds(5);

}  // namespace

const char* BuildVersion() { return CRAWLER_VERSION; }

absl::StatusOr<std::unique_ptr<MetricsServer>> MetricsServer::Start(const std::string& listen) {
  if (absl::Status s = CheckListen(listen); !s.ok()) return s;
  std::unique_ptr<MetricsServer> server(new MetricsServer());
  server->registry_ = std::make_shared<prometheus::Registry>();
  // civetweb reports a failed bind by throwing (prometheus-cpp has no other way); this is the
  // one place the exception is turned into a Status.
  std::unique_ptr<prometheus::Exposer> exposer;
  try {
    // civetweb gives each connection a worker thread until its request is read, for up to
    // request_timeout_ms: with its defaults (2 threads... 30 s) two idle connections that sent
    // half a request held every scrape for 30 s. Enough threads that a few such connections
    // leave the scraper one, and a timeout that frees theirs well inside a scrape's.
    exposer = std::make_unique<prometheus::Exposer>(std::vector<std::string>{
        "listening_ports", listen, "num_threads", std::to_string(kThreads),
        "request_timeout_ms", std::to_string(absl::ToInt64Milliseconds(kRequestTimeout))});
  } catch (const std::exception& e) {
    return absl::UnavailableError(absl::StrCat("cannot serve metrics on ", listen, ": ", e.what()));
  }
  const std::vector<int> ports = exposer->GetListeningPorts();
  if (ports.empty()) {
    return absl::UnavailableError(absl::StrCat("cannot serve metrics on ", listen));
  }
  server->port_ = ports.front();
  server->address_ = absl::StrCat(listen.substr(0, listen.rfind(':')), ":", server->port_);
  exposer->RegisterCollectable(server->registry_);
  {
    absl::MutexLock lock(&server->mu_);
    server->exposer_ = std::move(exposer);
  }
  prometheus::BuildGauge()
      .Name("crawler_build_info")
      .Help("Always 1; the label says which build of the crawler runs.")
      .Register(*server->registry_)
      .Add({{"version", BuildVersion()}})
      .Set(1);
  return server;
}

MetricsServer::~MetricsServer() {
  // Stop serving before the collectables go.
  StopServing();
}

void MetricsServer::StopServing() {
  std::unique_ptr<prometheus::Exposer> exposer;
  {
    absl::MutexLock lock(&mu_);
    exposer = std::move(exposer_);
  }
  // Outside the lock: civetweb's stop waits for the scrape threads, which may be collecting.
  exposer.reset();
}

void MetricsServer::AddCollectable(std::shared_ptr<prometheus::Collectable> collectable) {
  absl::MutexLock lock(&mu_);
  if (exposer_ != nullptr) exposer_->RegisterCollectable(collectable);
  collectables_.push_back(std::move(collectable));
}

void MetricsServer::RemoveCollectable(const std::shared_ptr<prometheus::Collectable>& collectable) {
  absl::MutexLock lock(&mu_);
  if (exposer_ != nullptr) exposer_->RemoveCollectable(collectable);
  std::erase(collectables_, collectable);
}

ScopedCollector::ScopedCollector(MetricsServer* server,
                                 std::function<std::vector<prometheus::MetricFamily>()> callback) {
  if (server == nullptr) return;
  server_ = server;
  collectable_ = std::make_shared<SnapshotCollector>(std::move(callback));
  server_->AddCollectable(collectable_);
}

ScopedCollector::ScopedCollector(ScopedCollector&& other) noexcept
    : server_(std::exchange(other.server_, nullptr)), collectable_(std::move(other.collectable_)) {}

ScopedCollector& ScopedCollector::operator=(ScopedCollector&& other) noexcept {
  if (this != &other) {
    Reset();
    server_ = std::exchange(other.server_, nullptr);
    collectable_ = std::move(other.collectable_);
  }
  return *this;
}

void ScopedCollector::Reset() {
  if (server_ != nullptr && collectable_ != nullptr) server_->RemoveCollectable(collectable_);
  server_ = nullptr;
  collectable_.reset();
}

std::function<std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>>()>
RpcInterceptors(MetricsServer* server, const std::string& service) {
  if (server == nullptr) return nullptr;
  RpcMetrics* rpc = &server->Rpc(service);
  return [rpc] {
    std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> out;
    out.push_back(rpc->NewFactory());
    return out;
  };
}

RpcMetrics& MetricsServer::Rpc(const std::string& service) {
  absl::MutexLock lock(&mu_);
  std::unique_ptr<RpcMetrics>& rpc = rpc_[service];
  if (rpc == nullptr) rpc = std::make_unique<RpcMetrics>(*registry_, service);
  return *rpc;
}

}  // namespace crawler::metrics
