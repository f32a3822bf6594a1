// RpcMetrics: the gRPC server metrics every crawler service exports, recorded by a server
// interceptor (no handler changes):
//   crawler_<service>_rpc_duration_seconds{method}  histogram, call start to status sent
//   crawler_<service>_rpc_errors_total{method,code}  counter, calls ending with a non-OK status
// `method` is the RPC's short name ("Lease", "AddUrls"); `code` the gRPC status code name
// ("UNAVAILABLE"). Both sets are bounded by the proto.
//
// Thread-safety: thread-safe; one RpcMetrics serves every endpoint of a server. It must outlive
// the servers whose interceptors it made.
#ifndef CRAWLER_SERVICES_COMMON_METRICS_RPC_METRICS_H_
#define CRAWLER_SERVICES_COMMON_METRICS_RPC_METRICS_H_

#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "grpcpp/support/server_interceptor.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/histogram.h"
#include "prometheus/registry.h"

namespace crawler::metrics {

class RpcMetrics {
 public:
  // `service`: "frontier", "fetcher", "dedup" or "scheduler" (the metric names' second word).
  RpcMetrics(prometheus::Registry& registry, const std::string& service);

  // A new interceptor factory for one grpc::ServerBuilder (each builder takes ownership of its
  // own).
  std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface> NewFactory();

  // Records one finished call. `full_method` is gRPC's "/package.Service/Method".
  void Record(const char* full_method, double seconds, grpc::StatusCode code);

 private:
  struct PerMethod {
    prometheus::Histogram* duration;
    std::string method;
  };
  PerMethod& For(const char* full_method);

  prometheus::Family<prometheus::Histogram>& duration_;
  prometheus::Family<prometheus::Counter>& errors_;
  absl::Mutex mu_;
  // Keyed by the method string's address: gRPC keeps one static string per registered method.
  absl::flat_hash_map<const char*, PerMethod> methods_ ABSL_GUARDED_BY(mu_);
};

// The upper bounds of the buckets of the RPC and politeness-claim histograms (0.5 ms .. 1 s):
// shared so the dashboards' quantiles are comparable.
const prometheus::Histogram::BucketBoundaries& ShortCallBuckets();

}  // namespace crawler::metrics

#endif  // CRAWLER_SERVICES_COMMON_METRICS_RPC_METRICS_H_
