// RedisConnection: one synchronous hiredis connection to a Redis server, and the address syntax
// the crawler's configuration uses for it (redis://HOST:PORT[/DB]).
//
// Commands go out in pipelines: Pipeline() writes every command, then reads every reply, so a
// batch costs one round trip. An I/O error or a timeout breaks the connection for good (hiredis
// cannot resynchronise a pipeline): the owner drops it and connects again.
//
// The only place that includes hiredis.
//
// Thread-safety: a connection is used by one thread at a time.
#ifndef CRAWLER_SERVICES_COMMON_REDIS_REDIS_CLIENT_H_
#define CRAWLER_SERVICES_COMMON_REDIS_REDIS_CLIENT_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

struct redisContext;
struct redisReply;

namespace crawler::redis {

struct RedisAddress {
  std::string host;
  uint16_t port = 6379;
  int db = 0;

  // "redis://HOST[:PORT][/DB]"; HOST may be a bracketed IPv6 literal. kInvalidArgument, naming
  // what is wrong, for anything else (a password in the URL included: it belongs in a file).
  static absl::StatusOr<RedisAddress> Parse(std::string_view url);
  std::string ToString() const;  // the URL form
};

struct RedisOptions {
  RedisAddress address;
  // Sent with AUTH after connecting when not empty (read from a file by the caller).
  std::string password;
  absl::Duration connect_timeout = absl::Seconds(1);
  // Per read or write: a server that stops answering fails the call within this.
  absl::Duration io_timeout = absl::Seconds(1);
};

// A reply, freed with the object.
struct ReplyDeleter {
  void operator()(redisReply* reply) const;
};
using Reply = std::unique_ptr<redisReply, ReplyDeleter>;

// The reply's error text, if it is an error reply (empty otherwise).
std::string ReplyError(const redisReply& reply);
// The text of a string or status reply, the value of an integer reply; nullopt for other types.
std::optional<std::string_view> ReplyText(const redisReply& reply);
std::optional<int64_t> ReplyInteger(const redisReply& reply);

class RedisConnection {
 public:
  // Connects, authenticates and selects the database. kUnavailable when the server cannot be
  // reached; kPermissionDenied when it refuses the password.
  static absl::StatusOr<std::unique_ptr<RedisConnection>> Connect(const RedisOptions& options);
  ~RedisConnection();
  RedisConnection(const RedisConnection&) = delete;
  RedisConnection& operator=(const RedisConnection&) = delete;

  // Sends the commands (each an argument vector) and returns their replies in order; error
  // replies are replies (check ReplyError). kUnavailable on an I/O error or timeout, after which
  // broken() is true.
  absl::StatusOr<std::vector<Reply>> Pipeline(const std::vector<std::vector<std::string>>& commands);
  // One command, one round trip.
  absl::StatusOr<Reply> Command(std::vector<std::string> args);

  bool broken() const { return broken_; }

 private:
  explicit RedisConnection(redisContext* context) : context_(context) {}
  absl::Status Broken(std::string_view what);

  redisContext* context_;
  bool broken_ = false;
};

}  // namespace crawler::redis

#endif  // CRAWLER_SERVICES_COMMON_REDIS_REDIS_CLIENT_H_
