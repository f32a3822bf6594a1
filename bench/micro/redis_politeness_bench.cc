// Micro-benchmarks of RedisPoliteness against a real redis-server on loopback (started by the
// benchmark, no persistence): what one claim and its release cost, alone and in the batches a
// fetcher sends when many hosts are due at once. One iteration = one claim and one release;
// items = claims. Skipped when redis-server is not installed.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "lib/clock/clock.h"
#include "services/common/redis/redis_politeness.h"
#include "tests/unit/redis/local_redis.h"

namespace crawler::bench {
namespace {

struct Fixture {
  redis::testing::LocalRedis server;
  SystemClock clock;
  std::unique_ptr<redis::RedisPoliteness> store;

  bool Start() {
    if (!server.Start()) return false;
    redis::RedisPolitenessOptions options;
    options.redis.address = server.address();
    options.fresh_grace = absl::ZeroDuration();
    politeness::PolitenessOptions policy;
    policy.min_delay = absl::ZeroDuration();  // every claim is granted: the cost, not the wait
    policy.delay_factor = 0;
    auto created = redis::RedisPoliteness::Create(options, policy, clock, 1);
    if (!created.ok()) return false;
    store = *std::move(created);
    return true;
  }
};

// batch = 1: a claim and a release, each one round trip. batch = N: N hosts claimed in one
// pipeline and released in another.
void BM_RedisClaimRelease(benchmark::State& state) {
  Fixture f;
  if (!f.Start()) {
    state.SkipWithError("redis-server did not start (is it installed?)");
    return;
  }
  const auto batch = static_cast<size_t>(state.range(0));
  std::vector<politeness::ClaimRequest> claims;
  std::vector<politeness::ReleaseRequest> releases;
  for (size_t i = 0; i < batch; ++i) {
    const std::string host = absl::StrCat("h", i, ".example");
    const std::string ip = absl::StrCat("192.0.2.", i % 250);
    claims.push_back({.host_key = host, .ip = ip});
    releases.push_back({.host_key = host, .ip = ip, .response_time = absl::Milliseconds(20)});
  }
  for (auto _ : state) {
    auto granted = f.store->ClaimAll(claims);
    benchmark::DoNotOptimize(granted);
    auto released = f.store->ReleaseAll(releases);
    benchmark::DoNotOptimize(released);
  }
  const politeness::PolitenessStats s = f.store->Stats();
  if (s.granted != s.claims) state.SkipWithError("a claim was refused: the loop measured waits");
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * batch));
  state.counters["round_trips_per_claim"] =
      static_cast<double>(s.round_trips) / static_cast<double>(s.claims);
}
// Distinct IPs per host within a batch, so the address budget never refuses.
BENCHMARK(BM_RedisClaimRelease)->Arg(1)->Arg(16)->Arg(64)->UseRealTime();

}  // namespace
}  // namespace crawler::bench
