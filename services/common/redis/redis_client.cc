#include "services/common/redis/redis_client.h"

#include <hiredis/hiredis.h>
#include <sys/time.h>

#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace crawler::redis {
namespace {

absl::string_view AbslView(std::string_view s) { return absl::string_view(s.data(), s.size()); }

}  // namespace

absl::StatusOr<RedisAddress> RedisAddress::Parse(std::string_view url) {
  constexpr std::string_view kScheme = "redis://";
  auto invalid = [&](std::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad Redis address \"", AbslView(url), "\": ", AbslView(why),
                     " (expected redis://HOST[:PORT][/DB])"));
  };
  if (!url.starts_with(kScheme)) return invalid("it must start with redis://");
  std::string_view rest = url.substr(kScheme.size());
  if (rest.find('@') != std::string_view::npos) {
    return invalid("no credentials in the URL; give the password in a file");
  }
  RedisAddress address;
  if (const size_t slash = rest.find('/'); slash != std::string_view::npos) {
    const std::string_view db = rest.substr(slash + 1);
    if (!db.empty() && (!absl::SimpleAtoi(AbslView(db), &address.db) || address.db < 0)) {
      return invalid("the database must be a number >= 0");
    }
    rest = rest.substr(0, slash);
  }
  std::string_view port;
  if (rest.starts_with('[')) {
    const size_t close = rest.find(']');
    if (close == std::string_view::npos) return invalid("unclosed [ in the host");
    address.host = std::string(rest.substr(1, close - 1));
    const std::string_view after = rest.substr(close + 1);
    if (!after.empty()) {
      if (!after.starts_with(':')) return invalid("junk after the host");
      port = after.substr(1);
    }
  } else if (const size_t colon = rest.rfind(':'); colon != std::string_view::npos) {
    address.host = std::string(rest.substr(0, colon));
    port = rest.substr(colon + 1);
  } else {
    address.host = std::string(rest);
  }
  if (address.host.empty()) return invalid("no host");
  if (!port.empty()) {
    uint32_t p = 0;
    if (!absl::SimpleAtoi(AbslView(port), &p) || p == 0 || p > 65535) {
      return invalid("the port must be a number in [1, 65535]");
    }
    address.port = static_cast<uint16_t>(p);
  }
  return address;
}

std::string RedisAddress::ToString() const {
  const bool v6 = host.find(':') != std::string::npos;
  return absl::StrCat("redis://", v6 ? "[" : "", host, v6 ? "]" : "", ":", port,
                      db != 0 ? absl::StrCat("/", db) : "");
}

void ReplyDeleter::operator()(redisReply* reply) const { freeReplyObject(reply); }

std::string ReplyError(const redisReply& reply) {
  if (reply.type != REDIS_REPLY_ERROR) return {};
  return std::string(reply.str, reply.len);
}

std::optional<std::string_view> ReplyText(const redisReply& reply) {
  if (reply.type != REDIS_REPLY_STRING && reply.type != REDIS_REPLY_STATUS) return std::nullopt;
  return std::string_view(reply.str, reply.len);
}

std::optional<int64_t> ReplyInteger(const redisReply& reply) {
  if (reply.type != REDIS_REPLY_INTEGER) return std::nullopt;
  return reply.integer;
}

absl::StatusOr<std::unique_ptr<RedisConnection>> RedisConnection::Connect(
    const RedisOptions& options) {
  redisContext* context = redisConnectWithTimeout(options.address.host.c_str(),
                                                  options.address.port,
                                                  absl::ToTimeval(options.connect_timeout));
  if (context == nullptr) return absl::ResourceExhaustedError("cannot allocate a Redis context");
  if (context->err != 0) {
    absl::Status status = absl::UnavailableError(
        absl::StrCat("cannot connect to ", options.address.ToString(), ": ", context->errstr));
    redisFree(context);
    return status;
  }
  std::unique_ptr<RedisConnection> connection(new RedisConnection(context));
  if (redisSetTimeout(context, absl::ToTimeval(options.io_timeout)) != REDIS_OK) {
    return absl::UnavailableError(
        absl::StrCat("cannot set timeouts on ", options.address.ToString()));
  }
  std::vector<std::vector<std::string>> setup;
  if (!options.password.empty()) setup.push_back({"AUTH", options.password});
  if (options.address.db != 0) setup.push_back({"SELECT", absl::StrCat(options.address.db)});
  if (setup.empty()) return connection;
  absl::StatusOr<std::vector<Reply>> replies = connection->Pipeline(setup);
  if (!replies.ok()) return replies.status();
  for (size_t i = 0; i < replies->size(); ++i) {
    if (std::string error = ReplyError(*(*replies)[i]); !error.empty()) {
      const std::string what =
          absl::StrCat(options.address.ToString(), " refused ", setup[i][0], ": ", error);
      if (setup[i][0] == "AUTH") return absl::PermissionDeniedError(what);
      return absl::InvalidArgumentError(what);
    }
  }
  return connection;
}

RedisConnection::~RedisConnection() { redisFree(context_); }

absl::Status RedisConnection::Broken(std::string_view what) {
  broken_ = true;
  return absl::UnavailableError(
      absl::StrCat("Redis ", AbslView(what), ": ",
                   context_->err != 0 ? context_->errstr : "connection closed"));
}

absl::StatusOr<std::vector<Reply>> RedisConnection::Pipeline(
    const std::vector<std::vector<std::string>>& commands) {
  if (broken_) return absl::UnavailableError("Redis connection already broken");
  std::vector<const char*> argv;
  std::vector<size_t> lengths;
  for (const std::vector<std::string>& command : commands) {
    argv.clear();
    lengths.clear();
    for (const std::string& arg : command) {
      argv.push_back(arg.data());
      lengths.push_back(arg.size());
    }
    if (redisAppendCommandArgv(context_, static_cast<int>(argv.size()), argv.data(),
                               lengths.data()) != REDIS_OK) {
      return Broken("write");
    }
  }
  std::vector<Reply> replies;
  replies.reserve(commands.size());
  for (size_t i = 0; i < commands.size(); ++i) {
    void* raw = nullptr;
    if (redisGetReply(context_, &raw) != REDIS_OK || raw == nullptr) return Broken("read");
    replies.emplace_back(static_cast<redisReply*>(raw));
  }
  return replies;
}

absl::StatusOr<Reply> RedisConnection::Command(std::vector<std::string> args) {
  std::vector<std::vector<std::string>> one;
  one.push_back(std::move(args));
  absl::StatusOr<std::vector<Reply>> replies = Pipeline(one);
  if (!replies.ok()) return replies.status();
  return std::move(replies->front());
}

}  // namespace crawler::redis
