#include "services/common/metrics/rpc_metrics.h"

#include <chrono>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "grpcpp/support/status.h"

namespace crawler::metrics {
namespace {

std::string_view CodeName(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK:
      return "OK";
    case grpc::StatusCode::CANCELLED:
      return "CANCELLED";
    case grpc::StatusCode::UNKNOWN:
      return "UNKNOWN";
    case grpc::StatusCode::INVALID_ARGUMENT:
      return "INVALID_ARGUMENT";
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return "DEADLINE_EXCEEDED";
    case grpc::StatusCode::NOT_FOUND:
      return "NOT_FOUND";
    case grpc::StatusCode::ALREADY_EXISTS:
      return "ALREADY_EXISTS";
    case grpc::StatusCode::PERMISSION_DENIED:
      return "PERMISSION_DENIED";
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return "RESOURCE_EXHAUSTED";
    case grpc::StatusCode::FAILED_PRECONDITION:
      return "FAILED_PRECONDITION";
    case grpc::StatusCode::ABORTED:
      return "ABORTED";
    case grpc::StatusCode::OUT_OF_RANGE:
      return "OUT_OF_RANGE";
    case grpc::StatusCode::UNIMPLEMENTED:
      return "UNIMPLEMENTED";
    case grpc::StatusCode::INTERNAL:
      return "INTERNAL";
    case grpc::StatusCode::UNAVAILABLE:
      return "UNAVAILABLE";
    case grpc::StatusCode::DATA_LOSS:
      return "DATA_LOSS";
    case grpc::StatusCode::UNAUTHENTICATED:
      return "UNAUTHENTICATED";
    default:
      return "UNKNOWN";
  }
}

// Times one call: from its interceptor's creation (the call arrived) to its status being sent.
class TimingInterceptor final : public grpc::experimental::Interceptor {
 public:
  TimingInterceptor(RpcMetrics& metrics, const char* method)
      : metrics_(metrics), method_(method), start_(std::chrono::steady_clock::now()) {}

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    using grpc::experimental::InterceptionHookPoints;
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::PRE_SEND_STATUS)) {
      code_ = methods->GetSendStatus().error_code();
    }
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::POST_RECV_CLOSE) &&
        !recorded_) {
      // Only seen when the client cancelled before a status went out.
      if (!status_sent_) code_ = grpc::StatusCode::CANCELLED;
    }
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::PRE_SEND_STATUS)) {
      status_sent_ = true;
      recorded_ = true;
      metrics_.Record(
          method_, std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(),
          code_);
    }
    methods->Proceed();
  }

 private:
  RpcMetrics& metrics_;
  const char* const method_;
  const std::chrono::steady_clock::time_point start_;
  grpc::StatusCode code_ = grpc::StatusCode::OK;
  bool status_sent_ = false;
  bool recorded_ = false;
};

class TimingFactory final : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  explicit TimingFactory(RpcMetrics& metrics) : metrics_(metrics) {}
  grpc::experimental::Interceptor* CreateServerInterceptor(
      grpc::experimental::ServerRpcInfo* info) override {
    // Health checks and reflection are the runner's, not the service's: not timed.
    const std::string_view method = info->method();
    if (method.starts_with("/grpc.")) return nullptr;
    return new TimingInterceptor(metrics_, info->method());
  }

 private:
  RpcMetrics& metrics_;
};

}  // namespace

const prometheus::Histogram::BucketBoundaries& ShortCallBuckets() {
  static const auto* const kBuckets = new prometheus::Histogram::BucketBoundaries{
      0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1};
  return *kBuckets;
}

RpcMetrics::RpcMetrics(prometheus::Registry& registry, const std::string& service)
    : duration_(prometheus::BuildHistogram()
                    .Name(absl::StrCat("crawler_", service, "_rpc_duration_seconds"))
                    .Help("gRPC calls served, from arrival to status sent, by method.")
                    .Register(registry)),
      errors_(prometheus::BuildCounter()
                  .Name(absl::StrCat("crawler_", service, "_rpc_errors_total"))
                  .Help("gRPC calls served that ended with a non-OK status, by method and code.")
                  .Register(registry)) {}

std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface> RpcMetrics::NewFactory() {
  return std::make_unique<TimingFactory>(*this);
}

RpcMetrics::PerMethod& RpcMetrics::For(const char* full_method) {
  absl::MutexLock lock(&mu_);
  auto it = methods_.find(full_method);
  if (it == methods_.end()) {
    std::string_view name(full_method);
    name.remove_prefix(name.rfind('/') + 1);
    PerMethod entry{.duration = &duration_.Add({{"method", std::string(name)}}, ShortCallBuckets()),
                    .method = std::string(name)};
    it = methods_.emplace(full_method, std::move(entry)).first;
  }
  return it->second;
}

void RpcMetrics::Record(const char* full_method, double seconds, grpc::StatusCode code) {
  PerMethod& m = For(full_method);
  m.duration->Observe(seconds);
  if (code != grpc::StatusCode::OK) {
    errors_.Add({{"method", m.method}, {"code", std::string(CodeName(code))}}).Increment();
  }
}

}  // namespace crawler::metrics
