// PolitenessStoreConfig: where a crawling process keeps its politeness state, as configured
// (the `politeness` and `redis_password_file` keys of `crawler crawl` and `crawlerd fetcher`),
// and OpenPolitenessStore, which builds the Politeness it names: InProcessPoliteness (state in
// this process; the standalone default) or RedisPoliteness (one budget per host and address for
// every process and collection sharing the Redis).
#ifndef CRAWLER_SERVICES_COMMON_POLITENESS_POLITENESS_STORE_H_
#define CRAWLER_SERVICES_COMMON_POLITENESS_POLITENESS_STORE_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "lib/clock/clock.h"
#include "lib/log/logger.h"
#include "lib/politeness/politeness.h"
#include "lib/politeness/politeness_options.h"
#include "services/common/config/key_table.h"

namespace crawler::politeness {

inline constexpr char kInProcessStore[] = "in-process";

struct PolitenessStoreConfig {
  // "in-process", or "redis://HOST[:PORT][/DB]".
  std::string politeness = kInProcessStore;
  // A file holding the Redis password (one line; a trailing newline is ignored). Empty: none.
  std::string redis_password_file;
  // How long to keep trying at start while the Redis cannot be reached (e.g. a service started
  // with its Redis, as in Kubernetes). Zero: fail at once, as a crawl on the command line does.
  absl::Duration redis_start_wait = absl::ZeroDuration();

  // kInvalidArgument naming the key.
  absl::Status Validate() const;
};

// politeness (--politeness), redis_password_file (--redis-password-file), redis_start_wait
// (--redis-start-wait).
const config::KeyTable<PolitenessStoreConfig>& PolitenessStoreKeys();

// Builds the configured store. `request_timeout` (the fetcher's total timeout) sizes how long a
// claimed connection slot outlives a fetcher that died mid-request. Redis: kUnavailable when it
// cannot be reached at start, within redis_start_wait (one line on stderr says it waits; a crawl
// does not start blind), kPermissionDenied for a refused
// password, kNotFound for an unreadable password file.
// `log` says that it waits, and (for Redis) each outage and recovery.
absl::StatusOr<std::unique_ptr<politeness::Politeness>> OpenPolitenessStore(
    const PolitenessStoreConfig& config, const politeness::PolitenessOptions& policy,
    absl::Duration request_timeout, const Clock& clock, uint64_t seed, const Logger& log = {});

}  // namespace crawler::politeness

#endif  // CRAWLER_SERVICES_COMMON_POLITENESS_POLITENESS_STORE_H_
