#include "services/common/politeness/politeness_store.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "lib/politeness/in_process_politeness.h"
#include "services/common/redis/redis_politeness.h"

namespace crawler::politeness {
namespace {

using redis::RedisAddress;
using redis::RedisPoliteness;
using redis::RedisPolitenessOptions;

}  // namespace

absl::Status PolitenessStoreConfig::Validate() const {
  if (politeness == kInProcessStore) {
    if (!redis_password_file.empty()) {
      return absl::InvalidArgumentError(
          "redis_password_file is given but politeness is in-process (set politeness to a "
          "redis:// URL)");
    }
    return absl::OkStatus();
  }
  if (redis_start_wait < absl::ZeroDuration()) {
    return absl::InvalidArgumentError("redis_start_wait must be >= 0");
  }
  absl::StatusOr<RedisAddress> address = RedisAddress::Parse(politeness);
  if (!address.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "politeness: ", address.status().message(), "; or \"", kInProcessStore, "\""));
  }
  return absl::OkStatus();
}

const config::KeyTable<PolitenessStoreConfig>& PolitenessStoreKeys() {
  static const auto* const table = [] {
    auto* t = new config::KeyTable<PolitenessStoreConfig>;
    t->Add({"politeness", "--politeness",
            "Politeness state: in-process, or redis://HOST[:PORT][/DB] shared by every crawler "
            "using it"},
           &PolitenessStoreConfig::politeness)
        .Add({"redis_password_file", "--redis-password-file",
              "File holding the Redis password (with a redis:// politeness store)"},
             &PolitenessStoreConfig::redis_password_file)
        .Add({"redis_start_wait", "--redis-start-wait",
              "How long to retry at start while the Redis cannot be reached (0: fail at once)"},
             &PolitenessStoreConfig::redis_start_wait);
    return t;
  }();
  return *table;
}

absl::StatusOr<std::unique_ptr<politeness::Politeness>> OpenPolitenessStore(
    const PolitenessStoreConfig& config, const politeness::PolitenessOptions& policy,
    absl::Duration request_timeout, const Clock& clock, uint64_t seed, const Logger& log) {
  if (absl::Status s = config.Validate(); !s.ok()) return s;
  if (config.politeness == kInProcessStore) {
    return std::make_unique<politeness::InProcessPoliteness>(policy, clock, seed);
  }
  RedisPolitenessOptions options;
  options.redis.address = *RedisAddress::Parse(config.politeness);
  if (!config.redis_password_file.empty()) {
    std::ifstream in(config.redis_password_file);
    if (!in) {
      return absl::NotFoundError(
          absl::StrCat("cannot read redis_password_file ", config.redis_password_file));
    }
    std::stringstream text;
    text << in.rdbuf();
    options.redis.password = std::string(absl::StripTrailingAsciiWhitespace(text.str()));
  }
  // A request ends within the fetcher's total timeout; the margin covers its release in flight.
  options.slot_ttl = request_timeout + absl::Seconds(30);
  options.fresh_grace = policy.max_delay;
  options.log = log;
  // Only an unreachable Redis is waited for (a refused password or a bad reply is not going to
  // change); the wait is real time, with a back-off from 100 ms to 2 s between attempts.
  const absl::Time deadline = absl::Now() + config.redis_start_wait;
  absl::Duration pause = absl::Milliseconds(100);
  absl::StatusOr<std::unique_ptr<RedisPoliteness>> store =
      RedisPoliteness::Create(options, policy, clock, seed);
  if (absl::IsUnavailable(store.status()) && config.redis_start_wait > absl::ZeroDuration()) {
    log.Info("politeness: waiting up to ", absl::FormatDuration(config.redis_start_wait),
             " for Redis at ", config.politeness, " (", store.status().message(), ")");
  }
  while (absl::IsUnavailable(store.status()) && absl::Now() < deadline) {
    absl::SleepFor(std::min(pause, deadline - absl::Now()));
    pause = std::min(pause * 2, absl::Seconds(2));
    store = RedisPoliteness::Create(options, policy, clock, seed);
  }
  if (!store.ok()) {
    return absl::Status(store.status().code(),
                        absl::StrCat("politeness store: ", store.status().message()));
  }
  return std::unique_ptr<politeness::Politeness>(*std::move(store));
}

}  // namespace crawler::politeness
