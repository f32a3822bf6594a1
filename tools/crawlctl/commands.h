// crawlctl's commands against the scheduler's Admin API (proto/crawler/v1/admin.proto), as
// functions main.cc wires to the command line and tests call directly. Each prints its result
// (a table, or the reply as JSON with --json) to the session's `out`, its errors to `err`
// prefixed "crawlctl: ", and returns the process exit code (ExitCode).
//
// Every call carries the session's deadline (never a call without one, so crawlctl never
// hangs on a dead server) and, when a token is set, the metadata
// "authorization: Bearer <token>". The token is never printed.
//
// Thread-safety: a Session belongs to one thread.
#ifndef CRAWLER_TOOLS_CRAWLCTL_COMMANDS_H_
#define CRAWLER_TOOLS_CRAWLCTL_COMMANDS_H_

#include <cstdint>
#include <istream>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "crawler/v1/admin.grpc.pb.h"
#include "grpcpp/channel.h"
#include "grpcpp/support/status.h"
#include "tools/crawlctl/output.h"
#include "tools/crawlctl/requests.h"

namespace crawler::crawlctl {

// Process exit codes (docs/crawlctl.md).
enum ExitCode : int {
  kExitOk = 0,
  kExitFailure = 1,          // any other error the server reported (e.g. ALREADY_EXISTS)
  kExitInvalid = 2,          // bad flags or input: YAML, a field, a file (client or server)
  kExitUnreachable = 3,      // no answer from the scheduler within --timeout
  kExitUnauthenticated = 4,  // the token was refused (UNAUTHENTICATED, PERMISSION_DENIED)
  kExitNotFound = 5,         // no such collection
};

struct SessionOptions {
  std::string server = "localhost:50052";  // the scheduler's admin_listen default
  std::string token_file;                  // empty: no authorization metadata
  bool tls = false;                        // TLS with the system roots (or ca_file)
  std::string ca_file;                     // PEM roots to verify the server; implies TLS
  std::string tls_server_name;             // certificate name override (tests, IP addresses)
  absl::Duration timeout = absl::Seconds(10);  // deadline of each call, > 0
  bool json = false;                       // print replies as JSON (output.h ToJson)
};

class Session {
 public:
  // Reads the token file (whitespace-trimmed; kInvalidArgument if unreadable or empty) and
  // opens the channel (lazily connected: a server that is down fails the first call, not this).
  static absl::StatusOr<Session> Open(const SessionOptions& options, std::ostream& out,
                                      std::ostream& err);

  const SessionOptions& options() const { return options_; }
  v1::Admin::Stub& stub() { return *stub_; }
  // The channel to the admin port, for the other services there (ArchiveAdmin).
  const std::shared_ptr<grpc::Channel>& channel() const { return channel_; }
  std::ostream& out() { return *out_; }
  std::ostream& err() { return *err_; }

  // A context with the deadline and the authorization metadata.
  std::unique_ptr<grpc::ClientContext> NewContext() const;

  // Prints "crawlctl: ..." for a failed call and returns its exit code: UNAVAILABLE and
  // DEADLINE_EXCEEDED -> "cannot reach the scheduler at H:P (CODE): ..." 3; UNAUTHENTICATED and
  // PERMISSION_DENIED -> "CODE: ...: check --token-file" 4; NOT_FOUND -> "collection 'x' not
  // found" 5 (`collection` empty: the server's message); INVALID_ARGUMENT -> 2; else 1.
  int Fail(const grpc::Status& status, const std::string& collection = "");
  // Prints "crawlctl: <message>" and returns kExitInvalid (a local input error).
  int FailInput(const absl::Status& status);

 private:
  Session(SessionOptions options, std::string token, std::shared_ptr<grpc::Channel> channel,
          std::ostream& out, std::ostream& err);

  SessionOptions options_;
  std::string token_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::Admin::Stub> stub_;
  std::ostream* out_;
  std::ostream* err_;
};

// Prints a reply: the table `format` makes of it for people, or its JSON for scripts (--json).
// Returns kExitOk, or kExitFailure if the output failed.
template <typename Reply, typename Format>
int PrintReply(Session& session, const Reply& reply, Format format) {
  session.out() << (session.options().json ? ToJson(reply) : format(reply));
  return session.out() ? kExitOk : kExitFailure;
}

// `collections create -f FILE`.
// Seeds past one request's bound (SplitOffSeeds) follow the create through AddSeeds.
int CreateCollection(Session& session, const CollectionFile& file);
// Streams `batcher`'s seeds into collection `name` (Admin.AddSeeds) and takes the reply;
// `sent_any` (may be null): whether the list held a seed. Nothing is sent (CANCELLED) when the
// list could not be read (batcher.failed()) or held no seed.
grpc::Status StreamSeeds(Session& session, const std::string& name, SeedBatcher& batcher,
                         v1::AddSeedsResponse& response, bool* sent_any = nullptr);
// `collections update NAME -f FILE`.
int UpdateCollection(Session& session, const std::string& name, const CollectionFile& file);
// `collections list`: every page, in one table (or one ListCollectionsResponse in JSON).
int ListCollections(Session& session);
// `collections get NAME`.
int GetCollection(Session& session, const std::string& name);
// `collections pause NAME` / `resume NAME`: one line naming the new state.
int PauseCollection(Session& session, const std::string& name);
int ResumeCollection(Session& session, const std::string& name);
// `collections delete NAME`.
int DeleteCollection(Session& session, const std::string& name);
// `seeds add NAME FILE|-`: streams `in` in messages of at most `batch_size` seeds.
// `sitemaps`: the URLs are sitemaps to read (AddSeedsRequest.sitemaps).
int AddSeeds(Session& session, const std::string& name, std::istream& in,
             size_t batch_size = SeedBatcher::kMaxSeedsPerMessage, bool sitemaps = false);

struct WatchOptions {
  bool watch = false;                           // refresh until interrupted (or `count`)
  absl::Duration interval = absl::Seconds(2);   // between refreshes
  uint64_t count = 0;                           // refreshes before stopping; 0: no bound
  bool clear_screen = false;                    // clear a terminal before each refresh
};
// `stats NAME [--watch] [--interval D] [--count N]`. With --json, one line per refresh.
int Stats(Session& session, const std::string& name, const WatchOptions& watch = {});
// crawlctl partitions: the partition layout and a reshard's progress.
int Partitions(Session& session);

// `explain NAME URL...`: requests of at most 100 URLs, printed as one reply.
int Explain(Session& session, const std::string& name, const std::vector<std::string>& urls);

}  // namespace crawler::crawlctl

#endif  // CRAWLER_TOOLS_CRAWLCTL_COMMANDS_H_
