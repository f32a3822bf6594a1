// CallAuth: who may call a gRPC service, checked first thing in every handler of the service
// (docs/services.md, "Who can call what"). Two credentials, either or both:
//
// - a bearer token: the call must carry the metadata `authorization: Bearer <token>`, compared
//   in time that does not depend on where the tokens differ. The Admin API has its token (the
//   users'); the internal services share the internal token (the roles'), which every role's
//   clients attach (grpc_common::ChannelOptions::bearer_token).
// - a client certificate (mutual TLS, the server's tls_client_ca_file): the TLS handshake has
//   already refused a client without one signed by the CA; here the certificate's common name is
//   the caller's role ("frontier", "fetcher", "dedup", "scheduler"), and `roles` says which roles
//   may call each method (a fetcher may lease and complete, only the scheduler may drop a
//   collection). A caller without a certificate (plaintext, or TLS without client certificates)
//   is not checked for a role: the token is then the whole credential.
//
// A refused call is answered UNAUTHENTICATED (no or a wrong token) or PERMISSION_DENIED (a role
// not allowed the method), counted, and logged with the method and the peer -- never a token --
// at most once a second (RateLimitedLog, to the server's Logger): a client hammering the port
// cannot flood the log.
//
// Why in the handlers and not in an interceptor: gRPC C++ server interceptors (1.51) can observe
// a call but not fail it before its handler runs. The body is read before any handler; the
// server's message size limit per endpoint (ServerRunner) bounds what an unauthenticated caller
// can make it read.
//
// Thread-safety: thread-safe. The clock must outlive the object.
#ifndef CRAWLER_SERVICES_COMMON_GRPC_CALL_AUTH_H_
#define CRAWLER_SERVICES_COMMON_GRPC_CALL_AUTH_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "grpcpp/server_context.h"
#include "grpcpp/support/status.h"
#include "lib/clock/clock.h"
#include "lib/log/logger.h"
#include "services/common/rate_limited_log.h"

namespace crawler::grpc_common {

// The bearer token in `path`, surrounding whitespace removed. kNotFound if it cannot be read,
// kInvalidArgument if it is shorter than 16 characters (too easy to guess).
absl::StatusOr<std::string> ReadTokenFile(const std::string& path);

// True if `a` equals `b`, in time that depends on their lengths only.
bool ConstantTimeEquals(std::string_view a, std::string_view b);

struct CallAuthOptions {
  // The service in the refusal lines, e.g. "admin API"; empty: the Logger's role says it all.
  std::string service;
  // The token every call must carry; empty: none.
  std::string token;
  // Method name -> the roles (client certificate common names) that may call it. A method not
  // listed may be called by any role. Checked only for callers with a certificate.
  std::map<std::string, std::set<std::string>, std::less<>> roles;
};

class CallAuth {
 public:
  // `log` receives the refusal lines.
  CallAuth(CallAuthOptions options, const Clock& clock, Logger log);

  // OK if the caller may call `method` (the RPC's short name, e.g. "AddUrls"); the refusal
  // otherwise (see the header comment).
  grpc::Status Check(const grpc::ServerContext& context, std::string_view method);

  // Calls refused so far.
  uint64_t refused() const { return refused_.load(std::memory_order_relaxed); }

 private:
  grpc::Status Refuse(const grpc::ServerContext& context, std::string_view method,
                      grpc::StatusCode code, std::string_view why);

  const CallAuthOptions options_;
  RateLimitedLog log_;
  std::atomic<uint64_t> refused_{0};
};

}  // namespace crawler::grpc_common

#endif  // CRAWLER_SERVICES_COMMON_GRPC_CALL_AUTH_H_
